"""Size and coverage of ``compare_models``' paired intervals and p-values, per metric.

Seeded simulation. The true logit is eta ~ N(0, tau^2) (tau = 1.5) and D ~ Bernoulli(expit
eta). A *calibrated* model sees eta through independent noise, Z = eta + e, e ~ N(0,
sigma^2), and scores s = P(D = 1 | Z) = E[expit(eta) | Z], eta | Z ~ N(Z tau^2 / (tau^2 +
sigma^2), tau^2 sigma^2 / (tau^2 + sigma^2)), integrated by 60-point Gauss-Hermite
quadrature (:func:`calibrated_signal`). Three data-generating processes (DGPs):

* ``calibrated pair``: two calibrated models, independent noises of the same sigma = 0.8.
  The two models are exchangeable, so every population difference is 0: the share of
  p-values below 0.05 is the test's *size*, and the coverage of 0 by the intervals is 1 -
  size. Every calibration error is near 0 here, where its estimate is most biased: the
  near-zero problem of a difference of two biased estimates.
* ``overconfident pair``: the same two models made over-confident, s' = expit(1.5 logit s):
  again exchangeable (population differences 0), now with calibration errors away from 0.
* ``sharp and blunt`` (not in the default run): both models calibrated, a sharp (sigma =
  0.5) and a blunt one (sigma = 1): not interchangeable, but every calibration error (LCS,
  ICI, MCB, ECE) is 0 for both in the population, so the rejection rate of those metrics is
  the size under the weaker hypothesis "equal metric values", which the permutation test
  does not assume (Brier, log loss and AUC differ).
* ``unequal``: model a calibrated (sigma = 0.5), model b over-confident (sigma = 1, logit x
  1.5): every difference is non-zero. Its population value (each metric's limit at its fixed
  settings: 10 quantile bins, nn = 0.15, lowess span) is the mean of the metric's difference
  on two independent samples of ``--big`` rows (their half-difference is printed as its
  error). The coverage of that value is measured.

For each DGP and n in ``--n`` (default 500, 2000, 20000), ``reps(n)`` data sets (``--reps``
at n <= 2000, a tenth of it at larger n, at least 10), each compared with ``--n-boot``
bootstrap replicates. DeLong's AUC test, which needs no resampling, gets ``--delong-reps``
data sets of its own at each n (a fifth of them above n = 2000). The blocks are run smallest
n first and printed as each is done. Printed: rejection rate at 5 % (p <= 0.05; the size when
the truth is 0) of compare_models' default test, the paired permutation test with ``--n-boot``
permutations (exact size floor(0.05 (B + 1)) / (B + 1) for interchangeable models), coverage
of the population difference by the 95 % basic bootstrap interval, the mean difference and
the truth, each rate with its Monte Carlo standard error sqrt(r (1 - r) / R). Nothing is
asserted; the small seeded version is tests/test_compare_models.py.

``--test-only``: only the permutation tests (no bootstrap, no DeLong, no population values),
for their size and power at a fraction of the cost. ``--variants METRIC``: instead of the
study, the coverage of four bootstrap intervals for one metric (:func:`variants`).
``--intervals`` (with ``--metrics``, e.g. ``ece ici``): only the intervals, no test and no
DeLong (:func:`intervals`): from the same paired resamples of each data set, the basic
interval, the directional bounds compare_models gives the ECE and ICI, and Fang & Santos's
pointwise interval (the estimated zero sets taken as right); coverage of the population
difference (0 for the exchangeable pairs and for the calibration errors of ``sharp and
blunt``) and mean width, with Monte Carlo standard errors. ``--shrunk METRIC``: intervals
between the basic one and the bounds, from plug-in gaps shrunk towards 0 (:func:`shrunk`),
tried to bring the bounds' 1.00 cells under the contract's 0.98 and dropped.

Usage: ``nice python benchmarks/coverage_compare_models.py [--quick] [--n 500 2000 20000]
[--reps 200] [--n-boot 100] [--delong-reps 1000] [--big 1000000] [--dgps ...] [--out f.csv]
[--test-only | --variants ece | --shrunk ece | --intervals --metrics ece ici
[--big-reps-divisor 10]]``
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings

import numpy as np
import pandas as pd
from scipy.special import expit, logit

from locacal._validation import CalibrationWarning
from locacal.metrics.registry import evaluate
from locacal.report._directional import (
    DIRECTIONAL,
    DirectionalReplicates,
    directional_bounds,
)
from locacal.report.comparison import (
    DEFAULT_METRICS,
    _bootstrap,
    _permute,
    compare_models,
    paired_bootstrap_bounds,
    permutation_pvalue,
)

TAU = 1.5
_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(60)
_WEIGHTS = _WEIGHTS / _WEIGHTS.sum()
BOOT_METRICS = tuple(m for m in DEFAULT_METRICS if m != "auc")


def calibrated_signal(z: np.ndarray, tau: float, sigma: float) -> np.ndarray:
    """P(D = 1 | Z = z) for Z = eta + e, eta ~ N(0, tau^2), e ~ N(0, sigma^2), D ~
    Bernoulli(expit eta): E[expit(eta) | z] by Gauss-Hermite quadrature (probabilists')."""
    shrink = tau**2 / (tau**2 + sigma**2)
    sd = np.sqrt(tau**2 * sigma**2 / (tau**2 + sigma**2))
    out = np.zeros_like(z, dtype=np.float64)
    for x, w in zip(_NODES, _WEIGHTS, strict=True):
        out += w * expit(shrink * z + sd * x)
    return out


def draw(dgp: str, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Labels and the two models' scores of one data set of the DGP."""
    eta = rng.normal(0.0, TAU, n)
    d = (rng.random(n) < expit(eta)).astype(np.float64)

    def model(sigma: float) -> np.ndarray:
        return calibrated_signal(eta + rng.normal(0.0, sigma, n), TAU, sigma)

    if dgp == "calibrated pair":
        return d, model(0.8), model(0.8)
    if dgp == "overconfident pair":
        return d, expit(1.5 * logit(model(0.8))), expit(1.5 * logit(model(0.8)))
    if dgp == "unequal":
        return d, model(0.5), expit(1.5 * logit(model(1.0)))
    if dgp == "sharp and blunt":
        return d, model(0.5), model(1.0)
    raise ValueError(f"unknown dgp {dgp!r}")


DGPS = ("calibrated pair", "overconfident pair", "unequal", "sharp and blunt")
#: Processes whose two models are interchangeable (every population difference is 0).
EXCHANGEABLE = ("calibrated pair", "overconfident pair")


def truth(dgp: str, big: int, rng: np.random.Generator, names=(*BOOT_METRICS, "auc")
          ) -> tuple[dict[str, float], dict[str, float]]:
    """Population difference of each metric (0 for the exchangeable pairs) and its error."""
    if dgp in EXCHANGEABLE:
        return dict.fromkeys(names, 0.0), dict.fromkeys(names, 0.0)
    diffs = []
    for _ in range(2):
        d, a, b = draw(dgp, big, rng)
        va, vb = evaluate(names, a, d), evaluate(names, b, d)
        diffs.append({m: va[m] - vb[m] for m in names})
    return ({m: (diffs[0][m] + diffs[1][m]) / 2 for m in names},
            {m: abs(diffs[0][m] - diffs[1][m]) / 2 for m in names})


#: The calibration errors: 0 in the population for a calibrated model.
CALIBRATION_ERRORS = ("lcs", "ici", "mcb", "ece")


def difference_truths(dgps, big: int, rng: np.random.Generator, metrics
                      ) -> dict[str, tuple[dict[str, float], dict[str, float]]]:
    """:func:`truth` of each DGP for ``metrics``, with the calibration errors' difference
    set to 0 for ``sharp and blunt`` (both models calibrated, so both errors are 0)."""
    truths = {dgp: truth(dgp, big, rng, metrics) for dgp in dgps}
    if "sharp and blunt" in truths:
        true, err = truths["sharp and blunt"]
        truths["sharp and blunt"] = ({m: 0.0 if m in CALIBRATION_ERRORS else v
                                      for m, v in true.items()}, err)
    return truths


def _permutation_only(a, b, d, n_perm, seed) -> pd.DataFrame:
    """The rows of compare_models' table with only the permutation p-values: the same
    functions compare_models calls (``_permute``, ``permutation_pvalue``), no bootstrap."""
    rng = np.random.default_rng(seed)
    va, vb = evaluate(BOOT_METRICS, a, d), evaluate(BOOT_METRICS, b, d)
    diff = np.array([va[m] - vb[m] for m in BOOT_METRICS])
    pvalue = permutation_pvalue(diff, _permute(BOOT_METRICS, a, b, d, n_perm, rng))
    return pd.DataFrame({"metric": BOOT_METRICS, "difference": diff, "lower": np.nan,
                         "upper": np.nan, "pvalue": pvalue})


def run(dgps, sizes, reps, n_boot, delong_reps, big, seed, out=None, test_only=False,
        test="permutation") -> pd.DataFrame:
    """The study, smallest n first; each (n, DGP) block is printed (and appended to ``out``)
    as soon as it is done, so that an interrupted run still reports what it measured.
    ``test_only``: only the permutation tests (``n_boot`` permutations, no bootstrap, no
    DeLong, no population values: the coverage columns are NaN)."""
    rng = np.random.default_rng(seed)
    names = (*BOOT_METRICS, "auc")
    truths = {dgp: (dict.fromkeys(names, np.nan), dict.fromkeys(names, np.nan)) if test_only
              else truth(dgp, big, rng) for dgp in dgps}
    rows = []
    for n in sizes:
        r = reps if n <= 2000 else max(10, reps // 10)
        r_delong = delong_reps if n <= 2000 else max(100, delong_reps // 5)
        for dgp in dgps:
            true, err = truths[dgp]
            start = time.perf_counter()
            records = []
            for _ in range(r):
                d, a, b = draw(dgp, n, rng)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", CalibrationWarning)
                    if test_only:
                        records.append(_permutation_only(a, b, d, n_boot,
                                                         rng.integers(2**63)))
                        continue
                    table = compare_models({"a": a, "b": b}, d, metrics=BOOT_METRICS,
                                           n_boot=n_boot, seed=rng.integers(2**63),
                                           test=test)
                records.append(table.to_frame())
            frame = pd.concat(records)
            block = [_summary(dgp, n, m, frame[frame.metric == m], true[m], err[m], n_boot)
                     for m in BOOT_METRICS]
            if test_only:
                for row in block:
                    row["cover_95%"] = row["se_cover"] = np.nan
                rows += block
                _block_done(f"{dgp}, n = {n}: {r} data sets x {n_boot} permutations", start,
                            block, rows, out)
                continue
            # DeLong: no resampling, many data sets
            frame = []
            for _ in range(r_delong):
                d, a, b = draw(dgp, n, rng)
                t = compare_models({"a": a, "b": b}, d, metrics=["auc"], ci=False)
                frame.append(t.to_frame())
            block.append(_summary(dgp, n, "auc", pd.concat(frame), true["auc"], err["auc"], 0))
            rows += block
            _block_done(f"{dgp}, n = {n}: {r} data sets x {n_boot} resamples, {r_delong} for "
                        "DeLong", start, block, rows, out)
    return pd.DataFrame(rows)


def _intervals(metrics, a, b, d, n_boot, seed, level=0.95) -> dict[str, tuple]:
    """The basic and the directional intervals of each metric's difference a - b from the
    same paired resamples (compare_models' own ``_bootstrap``, no test): ``{metric:
    (difference, basic lower, basic upper, directional lower, directional upper, pointwise
    lower, pointwise upper)}``, the directional bounds being compare_models' interval for
    the ECE and ICI and the pointwise one Fang & Santos's with the estimated zero sets
    (NaN for the metrics that keep the basic interval)."""
    va, vb = evaluate(metrics, a, d), evaluate(metrics, b, d)
    diff = np.array([va[m] - vb[m] for m in metrics])
    reps, deltas = _bootstrap(list(metrics), [a, b], d, n_boot, np.random.default_rng(seed))
    lower, upper, _ = paired_bootstrap_bounds(diff, reps[:, 0, :] - reps[:, 1, :], level)
    out = {}
    for j, m in enumerate(metrics):
        lo = hi = p_lo = p_hi = np.nan
        if m in deltas:
            up, low = deltas[m]
            (lo,), (hi,) = directional_bounds(diff[j:j + 1], up[:, [0]] - low[:, [1]],
                                              low[:, [0]] - up[:, [1]], level)
            # Fang & Santos's pointwise interval (the zero sets taken as estimated)
            (p_lo,), (p_hi,) = directional_bounds(diff[j:j + 1], up[:, [0]] - up[:, [1]],
                                                  up[:, [0]] - up[:, [1]], level)
        out[m] = (diff[j], lower[j], upper[j], lo, hi, p_lo, p_hi)
    return out


def intervals(metrics, dgps, sizes, reps, n_boot, big, seed, out=None,
              big_reps_divisor=10) -> pd.DataFrame:
    """``--intervals``: the coverage of the population difference (0 for the exchangeable
    pairs and, for the calibration errors, for ``sharp and blunt``) by the 95 % basic and
    directional intervals, from the same resamples of the same data sets; no test, no
    DeLong. ``reps`` data sets at n <= 2000, ``reps // big_reps_divisor`` (at least 10)
    above."""
    rng = np.random.default_rng(seed)
    metrics = tuple(metrics)
    truths = difference_truths(dgps, big, rng, metrics)
    rows = []
    for n in sizes:
        r = reps if n <= 2000 else max(10, reps // big_reps_divisor)
        for dgp in dgps:
            true, err = truths[dgp]
            start = time.perf_counter()
            found = []
            for _ in range(r):
                d, a, b = draw(dgp, n, rng)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", CalibrationWarning)
                    found.append(_intervals(metrics, a, b, d, n_boot, rng.integers(2**63)))
            for m in metrics:
                x = np.array([f[m] for f in found])
                row = {"dgp": dgp, "n": n, "metric": m, "reps": r, "n_boot": n_boot,
                       "truth": true[m], "truth_err": err[m], "mean_diff": x[:, 0].mean()}
                for name, (lo, hi) in {"basic": (1, 2), "directional": (3, 4),
                                       "pointwise": (5, 6)}.items():
                    if m not in DIRECTIONAL and name != "basic":
                        continue
                    cover = float(np.mean((x[:, lo] <= true[m]) & (true[m] <= x[:, hi])))
                    row[f"cover_{name}"] = cover
                    row[f"se_{name}"] = np.sqrt(cover * (1 - cover) / r)
                    row[f"width_{name}"] = float(np.mean(x[:, hi] - x[:, lo]))
                rows.append(row)
            _block_done(f"{dgp}, n = {n}: {r} data sets x {n_boot} resamples", start,
                        rows[-len(metrics):], rows, out)
    return pd.DataFrame(rows)


def variants(metric, dgps, sizes, reps, n_boot, big, seed) -> pd.DataFrame:
    """Coverage of other bootstrap intervals for one metric's difference (``--variants``):
    the alternatives that were measured before keeping the basic interval. With d̂ the
    difference on the data, d*_b its ordinary paired resamples (mean m*, quantiles q_lo,
    q_hi) and d°_b resamples of m = n/4 rows (quantiles r_lo, r_hi of sqrt(m/n)(d°_b - d̂)):

    * ``basic``: [2d̂ - q_hi, 2d̂ - q_lo] (what compare_models returns);
    * ``percentile``: [q_lo, q_hi];
    * ``bias x 2.41``: the basic interval moved by a bias correction scaled for an
      absolute gap near 0, d̂ - (m* - d̂) / (sqrt 2 - 1) (the plug-in's bias grows like the
      noise's standard deviation, and a resample adds the noise once more);
    * ``m out of n``: [d̂ - r_hi, d̂ - r_lo] (Bickel, Götze & van Zwet 1997), consistent for
      functionals that are not differentiable, such as |gap| at 0.
    """
    warnings.simplefilter("ignore", CalibrationWarning)  # small bins of the m-row resamples
    rng = np.random.default_rng(seed)
    rows = []
    for n in sizes:
        m_rows = n // 4
        for dgp in dgps:
            true = truth(dgp, big, rng)[0][metric]
            hits = {"basic": 0, "percentile": 0, "bias x 2.41": 0, "m out of n": 0}

            def diff(a, b, d):
                return evaluate([metric], a, d)[metric] - evaluate([metric], b, d)[metric]

            for _ in range(reps):
                d, a, b = draw(dgp, n, rng)
                dh = diff(a, b, d)
                full = np.array([diff(a[i], b[i], d[i]) for i in
                                 (rng.integers(0, n, n) for _ in range(n_boot))])
                small = np.array([diff(a[i], b[i], d[i]) for i in
                                  (rng.integers(0, n, m_rows) for _ in range(n_boot))])
                q_lo, q_hi = np.nanquantile(full, [0.025, 0.975])
                r_lo, r_hi = np.nanquantile(np.sqrt(m_rows / n) * (small - dh), [0.025, 0.975])
                shift = dh - np.nanmean(full)
                centre = dh + shift / (np.sqrt(2.0) - 1.0)
                intervals = {"basic": (2 * dh - q_hi, 2 * dh - q_lo),
                             "percentile": (q_lo, q_hi),
                             "bias x 2.41": (centre - (q_hi - np.nanmean(full)),
                                             centre - (q_lo - np.nanmean(full))),
                             "m out of n": (dh - r_hi, dh - r_lo)}
                for k, (lo, hi) in intervals.items():
                    hits[k] += lo <= true <= hi
            for k, h in hits.items():
                cover = h / reps
                rows.append({"dgp": dgp, "n": n, "metric": metric, "interval": k,
                             "reps": reps, "n_boot": n_boot, "truth": true,
                             "cover_95%": cover, "se_cover": np.sqrt(cover * (1 - cover) / reps)})
            _show(pd.DataFrame(rows[-len(hits):]))
    return pd.DataFrame(rows)


def _plugin_replicates(rep: DirectionalReplicates, gap: np.ndarray) -> np.ndarray:
    """``sum_j w*_j |g_j + h_j| - sum_j w_j |g_j|`` for each stored resample of ``rep``
    (h_j = gap*_j - gap_hat_j), the error law of the plug-in if the true gaps were ``g``:
    ``g = gap_hat`` gives the basic bootstrap, ``g = 0`` Fang & Santos's with every gap in
    the zero set. Reads the stored replicates (``_weights``, ``_wh``): a study, not API."""
    w, wh = rep._weights(), rep._wh
    with np.errstate(invalid="ignore", divide="ignore"):
        h = np.where(w > 0, wh / w, 0.0)
    return np.nansum(w * np.abs(gap + h), axis=1) - rep.weight @ np.abs(gap)


#: Plug-in gaps shrunk towards 0 by their bootstrap standard error se (``--shrunk``).
SHRINK_RULES = {
    "sqrt": lambda g, se: np.sign(g) * np.sqrt(np.maximum(g**2 - se**2, 0.0)),
    "soft": lambda g, se: np.sign(g) * np.maximum(np.abs(g) - se, 0.0),
    "james-stein": lambda g, se: g * np.maximum(0.0, 1.0 - se**2 / np.maximum(g**2, 1e-300)),
}


def shrunk(metric, dgps, sizes, reps, n_boot, big, seed) -> pd.DataFrame:
    """``--shrunk METRIC`` (ece or ici): coverage of intervals between the basic one and
    the directional bounds, tried to meet the contract's ceiling (0.98) where the bounds
    cover 1.00. Each takes the paired replicates of the plug-in's error at shrunk gaps,
    ``delta_a(g~_a) - delta_b(g~_b)`` (:func:`_plugin_replicates`), with g~ from the data's
    gaps and their bootstrap standard errors by each rule of :data:`SHRINK_RULES` (an
    estimate of |g| from E gap_hat^2 = g^2 + se^2; soft thresholding at one s.e.; positive-
    part James-Stein per gap), and the interval [d_hat - q_hi, d_hat - q_lo]. Printed
    beside the basic interval and the bounds, from the same resamples."""
    warnings.simplefilter("ignore", CalibrationWarning)
    rng = np.random.default_rng(seed)
    truths = difference_truths(dgps, big, rng, (metric,))
    rows = []
    for n in sizes:
        for dgp in dgps:
            true = truths[dgp][0][metric]
            names = ("basic", "bounds", *SHRINK_RULES)
            hits, width = dict.fromkeys(names, 0), dict.fromkeys(names, 0.0)
            start = time.perf_counter()
            for _ in range(reps):
                d, a, b = draw(dgp, n, rng)
                ra = DirectionalReplicates(metric, a, d, n_boot)
                rb = DirectionalReplicates(metric, b, d, n_boot)
                value = np.empty((n_boot, 2))
                for k in range(n_boot):
                    idx = rng.integers(0, n, n)
                    value[k] = ra.add(k, idx), rb.add(k, idx)
                dh = ra.value - rb.value
                q_lo, q_hi = np.nanquantile(value[:, 0] - value[:, 1], [0.025, 0.975])
                found = {"basic": (2 * dh - q_hi, 2 * dh - q_lo)}
                (lo,), (hi,) = directional_bounds(np.array([dh]),
                                                  (ra.upper() - rb.lower())[:, None],
                                                  (ra.lower() - rb.upper())[:, None], 0.95)
                found["bounds"] = (lo, hi)
                for rule, shrink in SHRINK_RULES.items():
                    plug = [_plugin_replicates(r, shrink(r.gap, np.where(
                        np.isfinite(se := r.standard_errors()), se, np.inf)))
                        for r in (ra, rb)]
                    q_lo, q_hi = np.nanquantile(plug[0] - plug[1], [0.025, 0.975])
                    found[rule] = (dh - q_hi, dh - q_lo)
                for k, (lo, hi) in found.items():
                    hits[k] += lo <= true <= hi
                    width[k] += hi - lo
            for k in names:
                cover = hits[k] / reps
                rows.append({"dgp": dgp, "n": n, "metric": metric, "interval": k,
                             "reps": reps, "truth": true, "cover_95%": cover,
                             "se_cover": np.sqrt(cover * (1 - cover) / reps),
                             "width": width[k] / reps})
            _block_done(f"{dgp}, n = {n}: {reps} data sets x {n_boot} resamples", start,
                        rows[-len(names):], rows, None)
    return pd.DataFrame(rows)


def _block_done(what: str, start: float, block: list[dict], rows: list[dict],
                out: str | None) -> None:
    """A finished block: its time on stderr, its rows printed, every row so far saved."""
    print(f"  {what}, {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    _show(pd.DataFrame(block))
    if out:
        pd.DataFrame(rows).to_csv(out, index=False)


def _show(table: pd.DataFrame) -> None:
    with pd.option_context("display.width", 160, "display.max_rows", 200,
                           "display.float_format", "{:.4g}".format):
        print(table.to_string(index=False), flush=True)


def _summary(dgp, n, metric, frame, true, err, n_boot) -> dict:
    r = len(frame)
    reject = float((frame["pvalue"] <= 0.05).mean())
    cover = float(((frame["lower"] <= true) & (true <= frame["upper"])).mean())
    return {"dgp": dgp, "n": n, "metric": metric, "reps": r, "n_boot": n_boot,
            "truth": true, "truth_err": err, "mean_diff": float(frame["difference"].mean()),
            "reject_5%": reject, "se_reject": np.sqrt(reject * (1 - reject) / r),
            "cover_95%": cover, "se_cover": np.sqrt(cover * (1 - cover) / r)}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="n = 500 only, 40 data sets, 50 resamples, big = 200000")
    parser.add_argument("--n", type=int, nargs="+", default=[500, 2000, 20000])
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--n-boot", type=int, default=100)
    parser.add_argument("--delong-reps", type=int, default=1000)
    parser.add_argument("--big", type=int, default=1_000_000)
    parser.add_argument("--dgps", nargs="+", default=list(DGPS[:3]), choices=DGPS)
    parser.add_argument("--test", default="permutation", choices=("permutation", "bootstrap"),
                        help="compare_models' test= (the p-values)")
    parser.add_argument("--seed", type=int, default=20261125)
    parser.add_argument("--out", default=None)
    parser.add_argument("--test-only", action="store_true",
                        help="only the permutation tests' size and power (--n-boot "
                        "permutations; no bootstrap intervals, no DeLong)")
    parser.add_argument("--intervals", action="store_true",
                        help="only the intervals: coverage of the basic and directional "
                        "intervals from the same resamples (no test, no DeLong)")
    parser.add_argument("--metrics", nargs="+", default=list(BOOT_METRICS),
                        choices=BOOT_METRICS, help="with --intervals: the metrics studied")
    parser.add_argument("--big-reps-divisor", type=int, default=10,
                        help="with --intervals: data sets above n = 2000 are reps / this")
    parser.add_argument("--shrunk", default=None, choices=DIRECTIONAL, metavar="METRIC",
                        help="instead of the study: coverage of plug-in intervals at shrunk "
                        "gaps beside the basic one and the bounds (ece or ici)")
    parser.add_argument("--variants", default=None, metavar="METRIC",
                        help="instead of the study: coverage of four interval variants for "
                        "METRIC's difference (e.g. ece, cheap)")
    args = parser.parse_args(argv)
    if args.quick:
        args.n, args.reps, args.n_boot, args.big, args.delong_reps = [500], 40, 50, 200_000, 400
    print(f"seed {args.seed}, n_boot {args.n_boot}, reps {args.reps} (n <= 2000; a tenth "
          f"above), DeLong reps {args.delong_reps} (a fifth above n = 2000), big {args.big}",
          flush=True)
    if args.intervals:
        intervals(args.metrics, args.dgps, args.n, args.reps, args.n_boot, args.big,
                  args.seed, args.out, args.big_reps_divisor)
        return
    if args.shrunk:
        shrunk(args.shrunk, args.dgps, args.n, args.reps, args.n_boot, args.big, args.seed)
        return
    if args.variants:
        variants(args.variants, args.dgps, args.n, args.reps, args.n_boot, args.big, args.seed)
        return
    run(args.dgps, args.n, args.reps, args.n_boot, args.delong_reps, args.big, args.seed,
        args.out, args.test_only, args.test)


if __name__ == "__main__":
    main()
