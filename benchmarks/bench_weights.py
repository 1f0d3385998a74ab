"""Weighted WMSE and weighted kernel curves: the O(n log n) paths next to the ones they replace.

For n = 1e5 and 1e6 scores (Beta(2, 3), events Bernoulli(s^1.3), weights Gamma(2)) this prints,
in seconds, measured in the same run:

* ``np.sort``: sorting the scores once, the floor any exact method pays;
* ``wmse knn old``: the nearest-neighbour means of the weighted WMSE as they were computed
  before (one argsort of all distances per grid point, 101 points), kept here as the reference;
* ``wmse knn new``: :func:`locacal.localfit._knn.knn_means` (one sort, bisection per point),
  and the largest difference between the two;
* ``wmse new``: the whole ``locacal.wmse`` with weights (density included);
* ``kernel old``: the dense weighted Gaussian kernel fit at 100 points (O(n m), the former
  ``_weighted_kernel_fit``), local constant and local linear;
* ``kernel new``: :func:`locacal.localfit._gauss.kernel_regression` at the same points
  (binned above 5e6 pairs), and the largest difference.

Nothing is asserted: this prints a table. Usage: ``python benchmarks/bench_weights.py``
"""

from __future__ import annotations

import time

import numpy as np

import locacal
from locacal.data.sample import sort_sample
from locacal.density import bw_nrd0
from locacal.localfit._gauss import kernel_regression
from locacal.localfit._knn import knn_means


def knn_means_old(scores, labels, weights, points, k):
    """The former weighted nearest-neighbour means: an argsort of all distances per point."""
    wy = weights * labels
    out = np.empty(points.size)
    for j, t in enumerate(points):
        dist = np.abs(scores - t)
        order = np.argsort(dist, kind="stable")
        reach = np.searchsorted(np.cumsum(weights[order]), k * (1.0 - 1e-12), side="left")
        h = dist[order[min(reach, order.size - 1)]]
        inside, edge = dist < h, dist == h
        share = (k - weights[inside].sum()) / weights[edge].sum()
        out[j] = (wy[inside].sum() + share * wy[edge].sum()) / k
    return out


def kernel_fit_old(scores, labels, weights, points, bw, reg_type):
    """The former dense weighted kernel fit, O(n m) in chunks of points."""
    out = np.empty(points.size)
    chunk = max(1, 4_000_000 // scores.size)
    for start in range(0, points.size, chunk):
        t = points[start:start + chunk, None]
        dist = scores[None, :] - t
        k = weights[None, :] * np.exp(-0.5 * (dist / bw) ** 2)
        s0, t0 = k.sum(axis=1), k @ labels
        if reg_type == "lc":
            out[start:start + chunk] = t0 / s0
        else:
            kd = k * dist
            s1, s2, t1 = kd.sum(axis=1), (kd * dist).sum(axis=1), kd @ labels
            out[start:start + chunk] = (s2 * t0 - s1 * t1) / (s0 * s2 - s1 * s1)
    return out


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    value = fn(*args, **kwargs)
    return time.perf_counter() - start, value


def main() -> None:
    rng = np.random.default_rng(0)
    grid = np.linspace(0.0, 1.0, 101)
    points = np.linspace(0.005, 0.995, 100)
    print(f"{'n':>9} {'step':<22} {'seconds':>9} {'max |diff|':>11}")
    for n in (100_000, 1_000_000):
        s = rng.beta(2, 3, size=n)
        y = (rng.uniform(size=n) < s**1.3).astype(float)
        w = rng.gamma(2.0, size=n)
        w_norm = w * (n / w.sum())  # WMSE's normalised weights: k = round(n nn)
        k = float(round(0.15 * n))
        rows = [("np.sort", timed(np.sort, s)[0], np.nan)]
        t_old, old = timed(knn_means_old, s, y, w_norm, grid, k)
        t_new, new = timed(lambda s, y, w, k: knn_means(sort_sample(s, y, w), grid, k),
                           s, y, w_norm, k)
        rows += [("wmse knn old", t_old, np.nan), ("wmse knn new", t_new,
                                                    np.max(np.abs(old - new)))]
        rows.append(("wmse new (whole)", timed(locacal.wmse, s, y, weights=w)[0], np.nan))
        bw = bw_nrd0(s, w)
        for reg_type in ("lc", "ll"):
            t_old, old = timed(kernel_fit_old, s, y, w, points, bw, reg_type)
            t_new, new = timed(kernel_regression, s, y, w, points, bw, reg_type)
            rows += [(f"kernel {reg_type} old", t_old, np.nan),
                     (f"kernel {reg_type} new", t_new, np.max(np.abs(old - new)))]
        for name, sec, diff in rows:
            print(f"{n:>9} {name:<22} {sec:>9.3f} {diff:>11.1e}")


if __name__ == "__main__":
    main()
