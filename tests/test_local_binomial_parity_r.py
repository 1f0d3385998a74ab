"""Parity of the local logistic likelihood (``family="binomial"``) with R's locfit 1.5-9.7.

R's numbers are committed in tests/reference/local_binomial/ with their inputs (see
tests/rreference.py); tests/test_r_references.py re-runs R to prove them. R fits at the
prescribed points themselves: ``predict(locfit(d ~ lp(s, ...), family = "binomial",
ev = pts), where = "fitp", se.fit = TRUE)``.

Data: rare events, prevalence ~2 % (n = 1500, scores expit(-4 + 0.9 z), z normal; true map
a miscalibrated logit-linear one), 25 points from the 1 % to the 99 % score quantile.

Measured (R 4.2.2, x86-64), native engine with locfit's iteration against R, over degrees
1-2, kernels tricube and rect, spans 0.1, 0.25, 0.6: value <= 8e-14 -> asserted at 1e-8 (the
issue's tolerance); se.fit (logit scale) <= 3.2e-9 relative (degree 2, near-singular windows
of the low tail with se ~ 200; <= 5e-12 elsewhere) -> rtol 1e-8, at the points where
locfit's iteration ends normally. The low tail holds degenerate windows at the small spans,
each compared as locfit defines it: no event (value 0 in both), a nearly perfect fit
(locfit's "perfect fit": value compared, its se.fit is not computed), and |a_0| > 700
("parameters out of bounds": locfit reports 0.5, this engine expit(a_0), i.e. ~0). The
span criteria agree where every data window ends normally (the larger spans); at the small
spans locfit's conventions at degenerate windows enter its criteria (each 'out of bounds'
row adds 2 log 2 to its deviance and ~1 to its df; a 'perfect fit' row 0 influence), which
this engine does not reproduce. One unexplained difference: degree 2 with the rectangular
kernel, where locfit's influence in the windows at the largest scores exceeds the local
likelihood's by up to ~30 % (value equal), so its df is 0.28 larger at nn = 0.6.

The fully converged local likelihood differs from R's values by 4e-7 to 2.3e-6 (max over
the points, per case) here: locfit stops its Newton steps when the log-likelihood changes
by less than 1e-6 x the window's kernel weight; relative to the value that is 2e-5 to 1e-1,
and up to 100 % in the far low tail where the value is ~1e-6. Asserted between 1e-12 and
5e-4 absolute, i.e. present and bounded. GCV and AIC (``gcv``/``aic`` with
``ev = dat()``): <= 1e-12 relative -> 1e-8. With case weights (R given ``d * w`` successes
out of ``w`` trials) the value agrees likewise; the standard error does not (locfit treats
weights as trial counts), so only the value is compared there. In windows without events
both report 0 (R: logit -1000; here -inf) and R's ``se.fit`` is a value left over from
another point (locfit skips the variance there), ours NaN; the band does not use it (a
score interval, locacal.curves._likelihood_band).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

from locacal.curves import LocalRegressionCalibrator, smoothing_table
from locacal.data.sample import sort_sample
from locacal.localfit._likelihood import STATUS, fit_binomial
from tests.rreference import r_reference

SPANS = (0.1, 0.25, 0.6)
CASES = [(deg, kern) for deg in (1, 2) for kern in ("tricube", "rect")]
R_KERNELS = {"tricube": "tcub", "rect": "rect"}
TOL = 1e-8


def _inputs(weighted: bool = False) -> dict:
    rng = np.random.default_rng(2024)
    n = 1500
    s = np.sort(expit(-4.0 + 0.9 * rng.standard_normal(n)))
    d = (rng.uniform(size=n) < expit(-0.5 + 0.85 * np.log(s / (1 - s)))).astype(float)
    pts = np.quantile(s, np.linspace(0.01, 0.99, 25))
    out = {"s": s, "d": d, "pts": pts, "nnvals": np.array(SPANS)}
    if weighted:
        out["w"] = rng.integers(1, 4, size=n).astype(float)
    return out


R_FIT = """
library(locfit)
kerns <- c("tcub", "rect")
dat <- data.frame(s = s, d = d)
out <- list()
for (k in kerns) for (dg in 1:2) for (nnv in nnvals) {
  fit <- locfit(d ~ lp(s, nn = nnv, deg = dg), data = dat, family = "binomial", kern = k,
                ev = pts)
  pr <- predict(fit, where = "fitp", se.fit = TRUE)
  out[[sprintf("%s_%d_%g", k, dg, nnv)]] <- pr$fit
  out[[sprintf("se_%s_%d_%g", k, dg, nnv)]] <- pr$se.fit
}
"""

R_WEIGHTED = """
library(locfit)
dat <- data.frame(s = s, dw = d * w, w = w)
out <- list()
for (nnv in nnvals) {
  fit <- locfit(dw ~ lp(s, nn = nnv, deg = 1), data = dat, weights = w, family = "binomial",
                kern = "tcub", ev = pts)
  out[[sprintf("tcub_1_%g", nnv)]] <- predict(fit, where = "fitp")
}
"""

R_CRITERIA = """
library(locfit)
dat <- data.frame(s = s, d = d)
out <- list()
for (k in c("tcub", "rect")) for (dg in 1:2) {
  g <- sapply(nnvals, function(a) gcv(d ~ lp(s, nn = a, deg = dg), data = dat,
                                      family = "binomial", kern = k, ev = dat()))
  a <- sapply(nnvals, function(a) aic(d ~ lp(s, nn = a, deg = dg), data = dat,
                                      family = "binomial", kern = k, ev = dat()))
  key <- sprintf("%s_%d", k, dg)
  out[[paste0("df_", key)]] <- g[2, ]
  out[[paste0("deviance_", key)]] <- -2 * g[1, ]
  out[[paste0("gcv_", key)]] <- g[4, ]
  out[[paste0("aic_", key)]] <- a[4, ]
}
"""

REF_FIT = r_reference("local_binomial/fit", R_FIT, _inputs)
REF_WEIGHTED = r_reference("local_binomial/weighted", R_WEIGHTED, lambda: _inputs(True))
REF_CRITERIA = r_reference("local_binomial/criteria", R_CRITERIA, _inputs)


@pytest.mark.parametrize(("degree", "kernel"), CASES)
def test_native_reproduces_locfits_iteration(degree, kernel):
    arrays, r = REF_FIT.inputs_and_output()
    sample = sort_sample(arrays["s"], arrays["d"], None)
    assert 0.01 < arrays["d"].mean() < 0.04  # rare events
    for nn in SPANS:
        key = f"{R_KERNELS[kernel]}_{degree}_{nn:g}"
        mine = fit_binomial(sample, arrays["pts"], degree, nn, None, kernel)
        ok = mine.status == STATUS.index("ok")
        assert ok.sum() >= 15, key
        # value: wherever locfit reports one (ok, one label, nearly perfect fit)
        same = ~np.isin(mine.status, [STATUS.index("out_of_bounds")])
        np.testing.assert_allclose(mine.value[same], r[key][same], rtol=0, atol=TOL,
                                   err_msg=key)
        # |a_0| > 700: locfit zeroes the coefficients and reports 0.5; here expit(a_0)
        oob = ~same
        assert np.all(r[key][oob] == 0.5)
        assert np.all(np.minimum(mine.value[oob], 1 - mine.value[oob]) < 1e-3)
        np.testing.assert_allclose(mine.se[ok], r["se_" + key][ok], rtol=TOL, err_msg=key)
        converged = fit_binomial(sample, arrays["pts"], degree, nn, None, kernel,
                                 converge=True)
        gap = np.max(np.abs(converged.value - r[key])[ok])
        assert 1e-12 < gap < 5e-4, (key, gap)  # locfit stops short of the maximiser


def test_calibrator_and_r_backend_agree_with_the_reference():
    arrays, r = REF_FIT.inputs_and_output()
    cal = LocalRegressionCalibrator(degree=1, nn=0.25, kernel="tricube", family="binomial")
    cal.fit(arrays["s"], arrays["d"])
    np.testing.assert_allclose(cal.predict(arrays["pts"]), r["tcub_1_0.25"], atol=TOL)


@pytest.mark.r
def test_r_backend_passes_family_binomial():
    pytest.importorskip("rpy2")
    arrays, r = REF_FIT.inputs_and_output()
    cal = LocalRegressionCalibrator(degree=2, nn=0.6, kernel="rect", family="binomial",
                                    backend="locfit")
    cal.fit(arrays["s"], arrays["d"])
    np.testing.assert_allclose(cal.predict(arrays["pts"]), r["rect_2_0.6"], atol=1e-14)


def test_case_weights_are_successes_out_of_trials_in_locfit():
    arrays, r = REF_WEIGHTED.inputs_and_output()
    sample = sort_sample(arrays["s"], arrays["d"], arrays["w"])
    for nn in SPANS:
        mine = fit_binomial(sample, arrays["pts"], 1, nn, None, "tricube")
        np.testing.assert_allclose(mine.value, r[f"tcub_1_{nn:g}"], atol=TOL)


@pytest.mark.parametrize(("degree", "kernel"), CASES)
def test_likelihood_gcv_and_aic_equal_locfits(degree, kernel):
    arrays, r = REF_CRITERIA.inputs_and_output()
    tab = smoothing_table(arrays["s"], arrays["d"], degree=degree, nn=list(SPANS),
                          kernel=kernel, family="binomial").table
    sample = sort_sample(arrays["s"], arrays["d"], None)
    key = f"{R_KERNELS[kernel]}_{degree}"
    compared = 0
    for j, nn in enumerate(SPANS):
        status = fit_binomial(sample, sample.scores, degree, nn, None, kernel).status
        if np.all(status == STATUS.index("ok")) and (degree, kernel) != (2, "rect"):
            compared += 1
            for col in ("df", "deviance", "gcv", "aic"):
                np.testing.assert_allclose(tab[col][j], r[f"{col}_{key}"][j], rtol=TOL,
                                           err_msg=f"{col} nn={nn}")
        elif (degree, kernel) == (2, "rect"):
            # unexplained: with the rectangular kernel in degree 2, locfit's (J^-1)_00 in the
            # windows at the top of the scores exceeds the one of the converged local
            # likelihood by up to ~30 % (2.67 vs 2.04 at the largest score, value equal to
            # 1e-13), so its df is 0.28 larger at nn = 0.6; the se at the 1-99 % quantile
            # points agrees (test above). Bounded here, not claimed equal.
            assert abs(tab["df"][j] - r[f"df_{key}"][j]) < 0.5 or np.any(status != 0)
        else:
            # locfit's own conventions at degenerate data windows (its 0.5 where |a_0| >
            # 700, influence 0 at a nearly perfect fit) enter its criteria; not reproduced
            oob = np.sum(status == STATUS.index("out_of_bounds"))
            assert tab["deviance"][j] <= r[f"deviance_{key}"][j] + 1e-9 * (oob == 0)
    assert compared >= (0 if (degree, kernel) == (2, "rect") else 1)
