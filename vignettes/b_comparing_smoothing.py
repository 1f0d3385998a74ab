# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # (b) Comparing smoothing choices on real data: mortgage denials (HMDA)
#
# A calibration curve g(s) = E[D | s] is a smoothed picture of the labels against the
# scores, and the picture depends on the smoothing: the span, the local degree, the kernel.
# This notebook fits a model on part of a real data set, takes its scores on the held-out
# part, and asks locacal which smoothing the data support:
#
# 1. spans, degrees, kernels and the two local-regression backends, side by side;
# 2. locfit's selection criteria over a grid of spans (`smoothing_table`), and spans chosen
#    by GCV and leave-one-out CV (`nn="gcv"`, `nn="cv"`);
# 3. one table and one picture comparing smoothers of different kinds (`compare_curves`).
#
# **Data**: the Boston HMDA mortgage applications (2,380 rows, 12 % denied) from the R
# package AER, shipped as `data/hmda.csv` (source, licence and the command that exported it:
# `data/hmda.md`; no R is needed here).

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import locacal
from locacal.plotting import plot_curves, plot_score_histogram

pd.set_option("display.width", 120)
pd.set_option("display.precision", 5)

# %% [markdown]
# ## The model and its held-out scores
#
# A logistic regression on every applicant variable (credit histories as indicators),
# fitted on half of the applications; the other half, never seen by the model, is where we
# look at calibration.

# %%
hmda = pd.read_csv("data/hmda.csv")
labels = (hmda["deny"] == "yes").astype(int)
yes_no = ["phist", "selfemp", "insurance", "condomin", "afam", "single", "hschool"]
features = hmda.drop(columns="deny").assign(**{c: hmda[c].eq("yes") for c in yes_no})
features = pd.get_dummies(features, columns=["chist", "mhist"], drop_first=True).astype(float)

x_fit, x_held, y_fit, y_held = train_test_split(features, labels, test_size=0.5,
                                                stratify=labels, random_state=0)
model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(x_fit, y_fit)
scores = model.predict_proba(x_held)[:, 1]
y = y_held.to_numpy()

print(f"{scores.size} held-out applications, denial rate {y.mean():.3f}, "
      f"mean score {scores.mean():.3f}, AUC {roc_auc_score(y, scores):.3f}")
fig, ax = plt.subplots(figsize=(6, 2.5), layout="constrained")
plot_score_histogram(scores, y, ax=ax)
plt.show()

# %% [markdown]
# Most scores are below 0.2; only a few dozen applications lie above 0.5. Whatever the
# smoother, the right half of every curve rests on few points: the bands will say so.
#
# ## Spans
#
# Local-linear regression (degree 1) with the tricube kernel; `nn` is the fraction of the
# sample in each local window. Small spans follow the noise, large spans flatten the
# curvature.

# %%
spans = {f"nn = {nn}": locacal.calibration_curve(scores, y, method="local", degree=1,
                                                  kernel="tricube", nn=nn)
         for nn in (0.05, 0.15, 0.4, 1.0)}
fig, axes = plt.subplots(1, 2, figsize=(11, 5), layout="constrained")
plot_curves(spans, ax=axes[0])
axes[0].set_title("local-linear, tricube: four spans")
spans["nn = 0.4"].plot(ax=axes[1], label="nn = 0.4, 95 % band")
axes[1].set_title("one span with its pointwise band")
plt.show()

# %% [markdown]
# ## Degrees
#
# At a fixed span, degree 0 (a local mean) is biased where the curve is steep and at the
# edges of the data, where the window is one-sided; degree 1 corrects that first-order
# bias; degree 2 also follows curvature, at the price of more variance.

# %%
degrees = {f"degree {k}": locacal.calibration_curve(scores, y, method="local", degree=k,
                                                    kernel="tricube", nn=0.4)
           for k in (0, 1, 2)}
degrees["slides (degree 0, rect, nn = 0.15)"] = locacal.calibration_curve(
    scores, y, method="local", degree=0, kernel="rect", nn=0.15)
plot_curves(degrees)
plt.show()

# %% [markdown]
# ## Kernels
#
# The kernel matters much less than the span: at the same span the four kernels give
# nearly the same curve, the rectangular one being the roughest.

# %%
kernels = {kernel: locacal.calibration_curve(scores, y, method="local", degree=1,
                                             kernel=kernel, nn=0.4)
           for kernel in ("rect", "tricube", "epan", "gauss")}
plot_curves(kernels)
plt.show()
pd.DataFrame({k: c.estimate for k, c in kernels.items()},
             index=pd.Index(kernels["tricube"].grid.round(3), name="score")).iloc[::11]

# %% [markdown]
# ## Backends: the native engine and R's locfit
#
# The same local fit can run in locacal's native engine (no R) or in R's locfit through
# rpy2 (`backend="locfit"`). This cell runs only where R and locfit are installed; it
# reports the largest difference between the two curves.

# %%
native = locacal.calibration_curve(scores, y, method="local", degree=1, kernel="tricube",
                                   nn=0.4)
try:
    in_r = locacal.calibration_curve(scores, y, method="local", degree=1, kernel="tricube",
                                     nn=0.4, backend="locfit")
except ImportError as missing:  # rpy2, R or locfit not installed
    print(f"R's locfit is not available here ({missing}); the native curve stands alone.")
else:
    gap = np.max(np.abs(in_r.estimate - native.estimate))
    print(f"largest |native - locfit| on the {native.grid.size}-point grid: {gap:.2e}")

# %% [markdown]
# ## Which span do the data support? `smoothing_table`
#
# For each span of a grid (20 spans from about 10 neighbours per coefficient up to the
# whole sample), `smoothing_table` fits the curve at the data and computes locfit's
# criteria: the fitted degrees of freedom `df` (the trace of the hat matrix), GCV, AIC and
# likelihood CV, plus exact leave-one-out CV and the corrected AIC. Small is good.
#
# locfit's AIC is RSS + 2 df, *not* divided by the variance; with 0/1 labels (variance at
# most 1/4) it penalises each degree of freedom at least four times too much and picks the
# smoothest curve. GCV, CV and the corrected AIC do not have that defect.

# %%
table = locacal.smoothing_table(scores, y, degree=1, kernel="tricube")
table.table

# %%
pd.Series({criterion: table.best(criterion) for criterion in ("gcv", "cv", "lcv", "aicc",
                                                              "aic")},
          name="selected nn")

# %% [markdown]
# locfit's `gcvplot`: the criterion against the fitted degrees of freedom, the minimum
# marked. The curve is flat over a wide range of large spans: the data cannot tell these
# spans apart, and any of them is a reasonable choice; the small spans (many degrees of
# freedom) are clearly worse.

# %%
fig, axes = plt.subplots(1, 2, figsize=(11, 4), layout="constrained")
table.plot("gcv", ax=axes[0])
table.plot("cv", ax=axes[1])
plt.show()

# %% [markdown]
# ## Letting the calibrator choose: `nn="gcv"` and `nn="cv"`
#
# Naming a criterion instead of a number chooses the span over the same grid when the
# calibrator is fitted; `nn_` is the span used and `smoothing_table_` the table behind it.

# %%
by_gcv = locacal.LocalRegressionCalibrator(degree=1, kernel="tricube", nn="gcv").fit(scores, y)
by_cv = locacal.LocalRegressionCalibrator(degree=1, kernel="tricube", nn="cv").fit(scores, y)
print(f"GCV chooses nn = {by_gcv.nn_:.3f}; leave-one-out CV chooses nn = {by_cv.nn_:.3f}")

fig, ax = plt.subplots(figsize=(5, 5), layout="constrained")
by_gcv.curve(level=0.95).plot(ax=ax, label=f"GCV span nn = {by_gcv.nn_:.2f}, 95 % band")
by_gcv.curve(level=0.5).plot(ax=ax, label="same curve, 50 % band", color="C0")
plt.show()

# %% [markdown]
# ## Smoothers of different kinds side by side: `compare_curves`
#
# `compare_curves` fits several calibrators to the same scores and tabulates, for each:
# its degrees of freedom, the 5-fold cross-validated Brier score of the recalibrated scores
# (the fit-quality column: a curve that over- or under-smooths predicts held-out labels
# worse; a calibrator that selects its span re-selects it in every fold), and the LCS and
# ECE of *that* curve. The slides' LCS curve, the GCV-selected local-linear curve, the
# isotonic (CORP) step function and the two parametric maps:

# %%
comparison = locacal.compare_curves(scores, y, {
    "slides: degree 0, rect, nn = 0.15": {"method": "local", "degree": 0, "kernel": "rect",
                                         "nn": 0.15},
    "local-linear, GCV span": {"method": "local", "degree": 1, "kernel": "tricube",
                               "nn": "gcv"},
    "isotonic (CORP)": "isotonic",
    "Platt": "platt",
    "beta": "beta",
})
comparison.table.drop(columns="params")

# %%
fig, ax = plt.subplots(figsize=(6, 6.5), layout="constrained")
comparison.plot(ax=ax)
plt.show()

# %% [markdown]
# **Reading the comparison.** All five curves agree below 0.2, where most scores lie and
# the logistic model is close to calibrated. Above 0.5 they spread apart and the bands are
# wide: there the picture is a question of smoothing more than of evidence. One curve stands
# out: the slides' fixed degree-0 curve flattens at about 0.5 above a score of 0.6, because
# a local mean over a one-sided window at the edge of the data averages in the lower
# scores; it also has the worst cross-validated Brier score. The local-linear curve at the
# GCV span, the beta map and Platt's map predict held-out labels about equally well (their
# cross-validated Brier scores differ by about 0.001), and the selected span is large, as a
# curve close to the diagonal calls for.
