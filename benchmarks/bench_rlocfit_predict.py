"""Predicting at many new scores: the native locfit tree against the locfit backend (R).

Run ``python benchmarks/bench_rlocfit_predict.py`` (``--sizes 2000`` and ``--queries 1e5`` for
a quick look). For n calibration points (uniform scores, Bernoulli(score) labels) and m query
scores, either all distinct (uniform) or rounded to 3 decimals (at most 1001 distinct values,
like a model with coarse scores), it prints the seconds, best of 3, of

* ``native fit``: ``build_tree`` (locfit's tree, its vertex fits, interpolation tables);
* ``native predict``: the tree at the m queries;
* ``R fit``: :func:`locacal.localfit.rlocfit.locfit_fit` (input checks, the crash check once,
  ``locfit()`` on the R thread);
* ``R predict``: ``LocfitFit.predict`` (checks, ``np.unique``, R's ``predict`` at the unique
  queries, scatter back), split into ``python`` (all but the R call) and ``R`` (the call on
  the R thread, transfers included);
* ``R all m``: R's ``predict`` at the m raw queries through the same bridge, unsorted and
  with repeats (what each call cost before the unique step);

and ``max |diff|``, the largest gap between the native and R predictions (locfit's own
arithmetic replayed, so expected at rounding level).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from locacal.data.sample import sort_sample
from locacal.localfit import _rthread
from locacal.localfit._direct import LocalParams
from locacal.localfit._tree import build_tree
from locacal.localfit.rlocfit import locfit_fit

COLUMNS = ["n", "m", "queries", "native fit", "native predict", "R fit", "R predict",
           "python", "R", "R all m", "max |diff|"]


def best_of(fn, repeat: int = 3) -> tuple[float, object]:
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def row(n: int, m: int, kind: str, rng: np.random.Generator) -> list:
    s = rng.uniform(size=n)
    d = (rng.uniform(size=n) < s).astype(float)
    q = rng.uniform(size=m)
    if kind == "rounded":
        q = np.round(q, 3)
    t_nfit, tree = best_of(lambda: build_tree(sort_sample(s, d, None),
                                              LocalParams(0, 0.15, None, "rect")))
    t_npred, native = best_of(lambda: tree(q))
    t_rfit, fit = best_of(lambda: locfit_fit(s, d))
    t_rpred, backend = best_of(lambda: fit.predict(q))
    unique = np.unique(q)
    t_r, _ = best_of(lambda: _rthread.run(fit._predict_sorted, unique))
    t_all, raw = best_of(lambda: _rthread.run(fit._predict_sorted, q))
    assert np.array_equal(raw, backend)
    gap = float(np.max(np.abs(native - backend)))
    return [n, f"{m:.0e}", kind, t_nfit, t_npred, t_rfit, t_rpred, t_rpred - t_r, t_r, t_all,
            f"{gap:.1e}"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000,20000")
    parser.add_argument("--queries", default="1e5,1e6")
    args = parser.parse_args()
    rng = np.random.default_rng(2024)
    rows = [row(int(float(n)), int(float(m)), kind, rng)
            for n in args.sizes.split(",") for m in args.queries.split(",")
            for kind in ("distinct", "rounded")]
    table = [[f"{v:.3f}" if isinstance(v, float) else str(v) for v in r] for r in rows]
    widths = [max(len(c), *(len(r[i]) for r in table)) for i, c in enumerate(COLUMNS)]
    print("  ".join(c.rjust(w) for c, w in zip(COLUMNS, widths, strict=True)))
    for r in table:
        print("  ".join(v.rjust(w) for v, w in zip(r, widths, strict=True)))
    print("seconds, best of 3; degree 0, rect kernel, nn = 0.15, locfit's default tree")


if __name__ == "__main__":
    main()
