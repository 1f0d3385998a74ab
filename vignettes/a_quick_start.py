# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Quick start: see, measure, fix
#
# A score s(x) in [0, 1] is *calibrated* when, among the cases that get the score p, a fraction
# p has the event: g(p) = E[D | s(X) = p] = p. locacal estimates the calibration curve g once
# and reads everything from it: the picture (g against the diagonal), the metrics (the Local
# Calibration Score and ECE are averages of g(p) - p) and the repair (the recalibrated score is
# g(s)).
#
# We simulate the 2024 slides' logistic process (§3) with an over-confident distortion: the
# event happens with probability p = expit(eta) but the score is expit(3 eta), so it is pushed
# towards 0 and 1. Because we simulated, the true probabilities are known, which real data
# never give (see the insurance and medical notebooks `d_insurance_recalibration` and
# `e_medical_risk_score` for real data).
#
# *Settings*: n = 2000 rows (the slides' sample size), 50 bootstrap resamples and 199
# resampled label vectors for the test, so that the notebook runs in about 20 seconds; the
# defaults (`n_boot=200`, `n_resamples=999`, about four times longer) give smaller Monte Carlo
# error in the interval bounds and the p-value.

# %%
# %matplotlib inline
import warnings

import matplotlib.pyplot as plt
import pandas as pd

import locacal
from locacal import simulate
from locacal.plotting import plot_score_histogram

pd.set_option("display.precision", 4)

data = simulate.logistic_dgp(2000, gamma=3.0, seed=1)
s, d, p = data["score"], data["label"], data["true_p"]
data.head()

# %% [markdown]
# ## See: the calibration curve
#
# `calibration_curve(scores, labels)` fits locacal's default smoother (local polynomial
# regression of the labels on the scores, the 15 % nearest neighbours) and tabulates it with a
# 95 % pointwise band. `.plot()` draws it against the diagonal and returns the Axes, so the
# histogram of the scores by class can go underneath.

# %%
curve = locacal.calibration_curve(s, d)
fig, (top, bottom) = plt.subplots(2, 1, figsize=(5.5, 7), height_ratios=[3, 1], sharex=True)
curve.plot(ax=top, label="local regression, 95 % band")
locacal.calibration_curve(s, d, method="binning").plot(ax=top, band=False,
                                                      label="10 quantile bins")
top.set_title("Over-confident scores (gamma = 3)")
top.set_xlabel("")
plot_score_histogram(s, d, ax=bottom)
fig.tight_layout()

# %% [markdown]
# The curve is flatter than the diagonal: below 0.5 the events happen *more* often than the
# score says, above 0.5 *less* often. The curve object holds its numbers (`to_frame()`, a tidy
# table) and is itself the fitted map g, callable on new scores:

# %%
print(curve)
print("g at 0.1, 0.5, 0.9:", curve([0.1, 0.5, 0.9]).round(3))
curve.to_frame().iloc[::12]

# %% [markdown]
# ## Measure: the calibration report
#
# `calibration_report` computes every metric of the package in one table. A few to read first:
#
# * `lcs`, the Local Calibration Score of the slides: the squared gap between the local
#   regression curve and the diagonal, averaged with the density of the scores;
# * `ece`: the expected calibration error on 10 quantile bins;
# * `brier`: the mean squared error against the 0/1 events, which mixes calibration and
#   discrimination (`calib_mse` and `refinement` are its two parts on adaptive bins);
# * `true_mse`: the mean squared error against the true probabilities, known here only
#   because we simulated;
# * `auc`: discrimination, blind to calibration (any increasing map of the scores has the
#   same AUC).

# %%
report = locacal.calibration_report({"score": s, "true p": p}, d, true_p=p)
report.set_index("model").transpose()

# %% [markdown]
# The true probabilities have the same AUC as the score (one is an increasing function of the
# other), but a much smaller LCS, ECE and Brier score: only calibration metrics see the
# distortion.
#
# An LCS is never exactly 0 in a finite sample. `ci=True` adds bootstrap intervals and
# `null_mean`, the average value a *calibrated* model with these same scores would show
# (labels redrawn as Bernoulli(s)); `calibration_test` turns that comparison into a p-value.

# %%
with_ci = locacal.calibration_report(s, d, ci=True, n_boot=50, seed=0)
with_ci.loc[["lcs", "ece", "brier", "auc"]]

# %%
test = locacal.calibration_test(s, d, n_resamples=199, seed=0)
print(f"LCS = {test.statistic:.4f}, p-value = {test.pvalue:.3f} "
      f"({test.method}, {test.null.size} resampled label vectors)")

# %% [markdown]
# ## Fix: recalibrate on a calibration split
#
# The slides' methodology (§4): split the rows into train, calibration and test sets (60 / 20
# / 20 %), fit a recalibration map g on the calibration set, and judge g(s) on the test set.
# Here no model is trained (the distorted probability plays the classifier), so the train
# split is only carried along. `recalibrate` fits Platt scaling, isotonic regression, beta
# calibration and local regression, and tabulates every metric on every split.
#
# Isotonic regression maps the scores to a step function, so its recalibrated scores tie: the
# 10 quantile bins of the table's ECE and QMSE merge at the ties or hold few rows, and locacal
# says so with a `CalibrationWarning` each time. That is expected of a step function, so we
# silence those two messages for this call.

# %%
train, calibration, test_set = locacal.split(data, seed=0)
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="tied scores leave|.* hold fewer than",
                            category=locacal.CalibrationWarning)
    result = locacal.recalibrate(train, calibration, test_set, true_p="true_p")
result.summary("test")[["brier", "ece", "lcs", "true_mse", "auc"]]

# %%
axes = result.plot(split="test")

# %% [markdown]
# Every map pulls the scores back towards the middle and divides the test LCS and true MSE
# several times. Each recalibrator is also a scikit-learn estimator on its own, to apply to
# new scores (or to close a `Pipeline`):

# %%
beta = locacal.BetaCalibrator().fit(calibration["score"], calibration["label"])
fixed = beta.predict(test_set["score"])
comparison = locacal.calibration_report(
    {"before": test_set["score"], "after beta calibration": fixed}, test_set["label"],
    true_p=test_set["true_p"])
comparison.set_index("model")[["lcs", "ece", "brier", "true_mse", "auc"]]

# %%
ax = locacal.calibration_curve(test_set["score"], test_set["label"]).plot(label="before")
ax.set_title("Test split, before and after recalibration")
ax = locacal.calibration_curve(fixed, test_set["label"]).plot(ax=ax, label="after beta")

# %% [markdown]
# ## Where next
#
# * `b_*`, comparing smoothing choices (spans, degrees, backends, the selection table, bands);
# * `c_*`, is my model calibrated: tests, intercept and slope, ICI, Hosmer-Lemeshow,
#   Spiegelhalter, CORP;
# * `d_insurance_recalibration`: a car insurance claim score with exposure, recalibrated;
# * `e_medical_risk_score`: a diabetes risk score and its clinical calibration diagnostics;
# * `f_*` and `g_*`: the 2024 slides' simulation and tree studies, the thesis's experiments.
