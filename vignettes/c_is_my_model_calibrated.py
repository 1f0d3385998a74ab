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
# # (c) Is my model calibrated? Tests, intercept and slope, ICI, HL, Spiegelhalter, CORP
#
# A model is calibrated when P(D = 1 | s) = s: among the cases scored 0.2, one in five has
# the event. This notebook asks the question of three sets of scores with every diagnostic
# locacal offers, from a single p-value to the full report with intervals:
#
# * two simulated models on the same 2,000 cases of the slides' logistic process, where the
#   answer is known: the true probabilities (**calibrated**) and the same probabilities
#   pushed towards 0 and 1 (**over-confident**, γ = 3 on the logit scale);
# * a logistic regression for mortgage denial fitted on half of the Boston HMDA data
#   (`data/hmda.csv`, see `data/hmda.md`) and scored on the other half (**HMDA**), where the
#   answer is not known.

# %%
import matplotlib.pyplot as plt
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import locacal
from locacal import simulate

pd.set_option("display.width", 120)
pd.set_option("display.precision", 4)
pd.set_option("display.max_colwidth", 100)

# %%
calibrated = simulate.logistic_dgp(2000, seed=3)
over = simulate.logistic_dgp(2000, gamma=3.0, seed=3)  # same cases and labels, distorted
assert (calibrated["label"] == over["label"]).all()

hmda = pd.read_csv("data/hmda.csv")
denied = (hmda["deny"] == "yes").astype(int)
yes_no = ["phist", "selfemp", "insurance", "condomin", "afam", "single", "hschool"]
features = hmda.drop(columns="deny").assign(**{c: hmda[c].eq("yes") for c in yes_no})
features = pd.get_dummies(features, columns=["chist", "mhist"], drop_first=True).astype(float)
x_fit, x_held, y_fit, y_held = train_test_split(features, denied, test_size=0.5,
                                                stratify=denied, random_state=0)
model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(x_fit, y_fit)

models = {
    "calibrated": (calibrated["score"].to_numpy(), calibrated["label"].to_numpy()),
    "over-confident": (over["score"].to_numpy(), over["label"].to_numpy()),
    "HMDA": (model.predict_proba(x_held)[:, 1], y_held.to_numpy()),
}

# %% [markdown]
# ## First, look
#
# A local-linear calibration curve with its 95 % pointwise band for each model. The
# over-confident model's curve is flatter than the diagonal: its low scores are too low
# and its high scores too high. The HMDA curve stays near the
# diagonal where its scores are (mostly below 0.3), with a wide band above.

# %%
fig, axes = plt.subplots(1, 3, figsize=(13, 4.5), layout="constrained")
for ax, (name, (s, d)) in zip(axes, models.items(), strict=True):
    locacal.calibration_curve(s, d, method="local", degree=1, kernel="tricube",
                              nn=0.3).plot(ax=ax, label="local-linear, nn = 0.3")
    ax.set_title(name)
plt.show()

# %% [markdown]
# ## A test of calibration: `calibration_test`
#
# H0: the scores are calibrated. *Consistency resampling* (Bröcker & Smith 2007) draws
# 999 label vectors D*_i ~ Bernoulli(s_i), as a calibrated model with these scores would
# produce, recomputes the statistic on each, and the p-value is the share of draws at
# least as extreme as the observed one: valid in finite samples, for any statistic. HL and
# Spiegelhalter also have asymptotic versions (`method="asymptotic"`, chosen automatically
# for large samples).

# %%
tests = {
    name: {statistic: locacal.calibration_test(s, d, statistic=statistic, seed=1)
           for statistic in ("lcs", "ece", "mcb", "hl", "spiegelhalter")}
    for name, (s, d) in models.items()
}
pd.DataFrame({name: {k: r.pvalue for k, r in row.items()} for name, row in tests.items()}
             ).rename_axis("p-value of")

# %% [markdown]
# The over-confident model is rejected by every statistic (p = 0.001 is the smallest
# p-value 999 resamples can give); the calibrated one by none. For the HMDA model only the
# binned ECE has p < 0.05, and with five tests of the same hypothesis one p-value of about
# 0.03 is weak evidence. The null distribution behind a p-value, with the observed value:

# %%
fig, axes = plt.subplots(1, 2, figsize=(11, 4), layout="constrained")
tests["HMDA"]["lcs"].plot(ax=axes[0])
axes[0].set_title("HMDA: LCS")
tests["over-confident"]["lcs"].plot(ax=axes[1])
axes[1].set_title("over-confident: LCS")
plt.show()

# %% [markdown]
# ## How is it miscalibrated? `calibration_intercept_slope`
#
# Two logistic regressions on η = logit(s) (Cox 1958): with η as an offset, the intercept
# is *calibration-in-the-large* (0 when the mean score matches the event rate); with η as
# a covariate, its coefficient is the *calibration slope* (1 when calibrated, < 1 when the
# scores are too extreme — over-fitting, over-confidence — and > 1 when they are too
# timid). Wald intervals and p-values against 0 and 1; the numbers equal R's `glm`.

# %%
pd.concat({name: locacal.calibration_intercept_slope(s, d)
           for name, (s, d) in models.items()}, names=["model", "parameter"])

# %% [markdown]
# The over-confident scores have a slope near 1/3, as the distortion η → 3η implies. The
# HMDA model's slope is about 1.2, its interval just including 1: if anything, the
# regularised logistic regression is slightly too timid, not over-fitted.
#
# ## How much? `calibration_errors`: ICI, E50, E90, Emax
#
# Austin & Steyerberg (2019): smooth the labels against the scores (R's `lowess`, as
# `rms::val.prob`), and summarise the absolute distance |g(s_i) − s_i| over the cases: its
# mean (the Integrated Calibration Index), median, 90th percentile and maximum. In
# probability units, so "ICI = 0.02" reads "on average two points off".

# %%
pd.DataFrame({name: locacal.calibration_errors(s, d) for name, (s, d) in models.items()})

# %% [markdown]
# ## The classical tests: `hosmer_lemeshow` and `spiegelhalter_z`
#
# Hosmer–Lemeshow groups the cases by deciles of the score and compares observed and
# expected events in each group with a chi-square statistic; `pvalue` uses G − 2 degrees of
# freedom (for a model fitted on these data, as R's `hoslem.test`), `pvalue_external` uses
# G (for scores fitted elsewhere, as all three here are). Spiegelhalter's z tests the Brier
# score against its expectation under calibration.

# %%
pd.concat([
    pd.concat({name: locacal.hosmer_lemeshow(s, d).to_frame()
               for name, (s, d) in models.items()}),
    pd.concat({name: locacal.spiegelhalter_z(s, d).to_frame()
               for name, (s, d) in models.items()}),
]).sort_index()

# %% [markdown]
# The Hosmer–Lemeshow table of the HMDA model, decile by decile: the largest relative gap
# is in the lowest decile (5 denials where about 2 were expected); deciles 2 to 8 have
# fewer denials than expected, the top two more. Small counts, no single striking group.

# %%
locacal.hosmer_lemeshow(*models["HMDA"]).table

# %% [markdown]
# ## Where does the Brier score come from? `corp_decomposition`
#
# The CORP decomposition (Dimitriadis, Gneiting & Jordan 2021) splits the Brier score into
# miscalibration (MCB: what the optimal monotone recalibration — isotonic regression —
# would remove), discrimination (DSC) and uncertainty (UNC, the event rate's variance):
# score = MCB − DSC + UNC. The two simulated models have the same discrimination (the
# distortion is monotone) and differ only by MCB.

# %%
pd.DataFrame({name: locacal.corp_decomposition(s, d) for name, (s, d) in models.items()})

# %% [markdown]
# ## Everything at once: `calibration_report(clinical=True, ci=True)`
#
# Every metric in one table, with `clinical=True` adding the ICI and the calibration
# intercept and slope, and `ci=True` adding a 95 % interval (`lower`, `upper`: a bootstrap
# interval for most metrics; for the calibration errors one built from label draws of a
# calibrated model with the same scores, which keeps its level when the error is near 0)
# and `null_mean`, the value such a *calibrated* model would show on average. No
# calibration error is ever 0 in a finite sample: an observed value near its `null_mean` is
# what calibration predicts. A few dozen resamples keep this notebook quick but give rough
# interval ends; the default `n_boot=200` is the setting for a report (about 3 s per model
# at n = 2,000 with `clinical=True`, whose ICI, intercept and slope are refitted on every
# resample; without it a fraction of a second).

# %%
hmda_report = locacal.calibration_report(*models["HMDA"], clinical=True, ci=True,
                                         n_boot=40, seed=0)
hmda_report.round(4)  # four decimals: a lower bound near 0 would switch its column to e-notation

# %% [markdown]
# What each number means, which direction is better, and where it comes from:
# `explain_report` puts a one-line meaning and the reference beside every metric.

# %%
locacal.explain_report(hmda_report)[["value", "better", "meaning"]]

# %% [markdown]
# Several models on the same labels give one long table, resampled with the same rows for
# every model (a paired comparison); here the calibration columns of the two simulated
# models side by side, with the true MSE against the known probabilities:

# %%
simulated = locacal.calibration_report(
    {"calibrated": calibrated["score"], "over-confident": over["score"]}, calibrated["label"],
    true_p=calibrated["true_p"], clinical=True, ci=True, n_boot=30, seed=0)
(simulated[simulated["metric"].isin(["true_mse", "lcs", "ece", "mcb", "ici", "cal_intercept",
                                     "cal_slope", "spiegelhalter_z"])]
 .set_index(["metric", "model"]).sort_index())

# %% [markdown]
# ## Verdict
#
# * **Over-confident model**: miscalibrated by every measure — tests reject, the slope is
#   about 1/3, the ICI is about ten times its calibrated-model expectation, and so is MCB.
#   Its discrimination (DSC) is that of the true probabilities: a monotone recalibration
#   can remove the whole problem without changing the ranking of the cases.
# * **Calibrated model**: no test rejects, the slope's interval contains 1, and every
#   calibration error is close to its `null_mean`.
# * **HMDA logistic regression**: no strong evidence of miscalibration on 1,190 held-out
#   applications — one borderline p-value out of five, a slope slightly above 1 with an
#   interval containing 1, an ICI of about two percentage points (its interval and the
#   ECE's, rough with 40 resamples, start just above 0). The scores can be read as
#   probabilities where most of them lie; above 0.3 there are too few applications to say
#   more.

# %% [markdown]
# ## Calibrated for every group? `by=`
#
# A score can be calibrated overall and off for one group of applicants. Every entry point
# takes `by=`, one group label per row: here the applicant's race as HMDA records it
# (`afam`), a question fair-lending reviews ask. Each group's result is the call on its rows;
# `calibration_test(..., by=)` adds a family-wise p-value and p-values adjusted for the number
# of groups (min-P, Westfall & Young 1993), and flags the groups below 5 %.

# %%
hmda_scores, hmda_labels = models["HMDA"]
applicant = x_held["afam"].map({1.0: "African American", 0.0: "other"}).rename("applicant")
by_group = locacal.calibration_test(hmda_scores, hmda_labels, by=applicant.to_numpy(), seed=1)
by_group

# %%
panels = locacal.calibration_curve(hmda_scores, hmda_labels, by=applicant).plot()

# %%
(locacal.calibration_report(hmda_scores, hmda_labels, by=applicant, clinical=True)
 [["applicant", "n", "lcs", "ici", "cal_intercept", "cal_slope"]])

# %% [markdown]
# ## Simultaneous bands and the sup test
#
# A pointwise 95 % band holds g at *each* score with probability 0.95, but over a whole
# curve some excursion of the diagonal is expected even for a calibrated model: reading
# "the diagonal leaves the band somewhere" as evidence is a multiple test. The
# simultaneous band, `band="simultaneous"`, holds g at every grid point between the 5 % and
# 95 % score quantiles *jointly* with probability about 0.95 (a sup-t band; outside that
# range the band is not drawn). Its dual test, `calibration_test(statistic="sup")`,
# rejects at 5 % exactly when the diagonal leaves that band, so the picture and the
# p-value cannot disagree. Here the default curve (local-linear, nn = 0.15) with both bands:

# %%
fig, axes = plt.subplots(1, 3, figsize=(13, 4.5), layout="constrained")
sup_tests = {}
for ax, (name, (s, d)) in zip(axes, models.items(), strict=True):
    pointwise = locacal.calibration_curve(s, d)
    simultaneous = locacal.calibration_curve(s, d, band="simultaneous")
    pointwise.plot(ax=ax, label="pointwise 95 %")
    inside = pd.notna(simultaneous.lower)
    ax.plot(simultaneous.grid[inside], simultaneous.lower[inside], "k--", lw=1,
            label="simultaneous 95 %")
    ax.plot(simultaneous.grid[inside], simultaneous.upper[inside], "k--", lw=1)
    sup_tests[name] = locacal.calibration_test(s, d, statistic="sup")
    ax.set_title(f"{name}: sup test p = {sup_tests[name].pvalue:.3g}")
    ax.legend(loc="upper left")
plt.show()

# %%
pd.DataFrame({name: {"sup-t statistic": r.statistic, "p-value": r.pvalue}
              for name, r in sup_tests.items()}).T

# %% [markdown]
# The over-confident model leaves its simultaneous band and the sup test rejects; the
# calibrated model stays well inside. The HMDA model stays inside too, not by much (p
# about 0.08, the diagonal near the band's edge at one place): the same weak evidence as
# the binned ECE above. The simultaneous band is 1.6 to 1.7 times as wide as the pointwise
# one: that is the price of reading the whole curve at once. Other methods have
# their own simultaneous band: Šidák over bins for `method="binning"` (for the bins'
# averages of g), Scheffé's band for Platt and beta maps (see the user guide,
# "Simultaneous bands").

# %% [markdown]
# ## How well calibrated? Equivalence tests and intervals near zero
#
# A calibration test that does not reject says only that the data cannot show a
# miscalibration; it does not say the miscalibration is small. `calibration_equivalence_test`
# turns the question round: H0 is "the measure is at least `margin`", and rejecting it lets
# us write "the ICI is below 0.05 at 95 % confidence". The upper bound `upper` is the estimate
# plus the 95 % quantile of the calibrated-model noise, read off labels redrawn as
# Bernoulli(score) (the module docstring of `locacal.metrics.equivalence` gives the
# triangle-inequality argument); `equivalent` is `upper < margin`. The measures are the ICI,
# the ECE, the LCS (a squared gap) and `"sup"`, the largest local gap over the central 90 %
# of the scores.

# %%
rows = {}
for name, (s, d) in models.items():
    for measure, margin in (("ici", 0.05), ("ece", 0.05), ("sup", 0.1)):
        result = locacal.calibration_equivalence_test(s, d, margin=margin, measure=measure,
                                                      n_resamples=199, seed=1)
        rows[(name, measure)] = result.to_frame().iloc[0]
pd.DataFrame(rows).T[["estimate", "upper", "margin", "pvalue", "equivalent"]]

# %% [markdown]
# The calibrated model and the HMDA regression are within 0.05 of the diagonal in ICI at
# 95 % confidence (upper bounds about 0.03 and 0.04); the over-confident model is not (its
# estimate is already above the margin). The ECE, a binned and noisier measure, and the
# sup of local gaps over 10 % windows have wider bounds: at these sample sizes they cannot
# certify margins of 0.05 and 0.1 even for the true probabilities. The bound is
# conservative: it guards against the noise in every direction, so at n = 2,000 the ICI of
# perfectly calibrated scores has an upper bound near 0.03 and smaller margins cannot be
# met (benchmarks/size_equivalence.py has the size and power).
#
# The same bounds give the report's intervals of the ECE, LCS, WMSE, smooth ECE, CORP mcb and
# ICI: `[max(0, value - q), value + q]` on the norm scale, which holds 0 exactly when the
# calibration test does not reject. Bootstrap intervals of these errors did not: a
# resample adds noise once more, so the percentile interval sits above the value and misses
# a population value of 0. On the calibrated model the lower ends are 0:

# %%
(simulated[simulated["metric"].isin(["ece", "lcs", "wmse", "smece", "mcb", "ici"])]
 .set_index(["metric", "model"]).sort_index()[["value", "lower", "upper", "null_mean"]])

# %% [markdown]
# ## Comparing models: `compare_models`
#
# Is one model better calibrated than another *on the same applications*? Two separate
# reports with overlapping intervals cannot say: both models are judged on the same rows, so
# their errors are correlated, and the question is about the difference. `compare_models`
# computes each difference once and gives it a paired interval and a p-value: the AUC by
# DeLong's test (as R's `pROC::roc.test`), every other metric by a bootstrap interval that
# draws one set of rows per replicate and evaluates every model on it, and a paired
# permutation test (the last section says why the test is not the interval inverted).
#
# Here the HMDA logistic regression against two variants fitted on the same half: a
# strongly penalised one (ridge, `C = 0.005`: its risks shrink towards the mean, so it is
# under-confident) and one without the credit-history variables.

# %%
history = [c for c in features.columns if c.startswith(("chist", "mhist"))]
ridge = make_pipeline(StandardScaler(), LogisticRegression(C=0.005, max_iter=1000))
ridge.fit(x_fit, y_fit)
no_history = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
no_history.fit(x_fit.drop(columns=history), y_fit)
hmda_models = {
    "logistic": models["HMDA"][0],
    "ridge": ridge.predict_proba(x_held)[:, 1],
    "no credit history": no_history.predict_proba(x_held.drop(columns=history))[:, 1],
}
comparison = locacal.compare_models(hmda_models, y_held.to_numpy(), reference="logistic",
                                    n_boot=300, seed=0)
comparison.to_frame().set_index(["model_a", "metric"])[
    ["difference", "lower", "upper", "pvalue"]]

# %% [markdown]
# Each row reads "model_a minus the logistic model" (lower is better for every metric but the
# AUC). The curves of the three models on one Axes, and the differences of two metrics
# with their 95 % intervals:

# %%
fig, (left, right) = plt.subplots(1, 2, figsize=(12, 5), layout="constrained")
comparison.plot(ax=left)
comparison.plot_differences(ax=right, metrics=["brier", "ici"])
plt.show()

# %% [markdown]
# The penalised model is worse calibrated (its ICI, ECE and MCB are larger, with intervals
# above 0; the LCS's interval holds 0) at no cost in AUC: shrinkage changed the scale of the
# risks, not their order. Dropping the credit history costs discrimination (AUC) and Brier
# score; its calibration differences are small (its LCS difference, whose interval holds 0
# and whose permutation p-value does not, is read in the last section). Read the calibration
# differences knowing how their intervals are built (benchmarks/coverage_compare_models.py):
# a calibration error is biased upwards by its sampling noise, so a difference between a
# well calibrated and a badly calibrated model is biased towards 0. The ICI and ECE
# intervals are therefore *directional bounds*: each end holds whether or not some of the
# gaps behind the metric are 0, which makes them wider than a plain bootstrap interval
# (coverage 0.93-1.00 in the study, where the plain interval covered 0.70-0.89). The Brier
# score, log loss, LCS, MCB and AUC intervals are the usual paired bootstrap (DeLong for the
# AUC).

# %% [markdown]
# ## Comparing models: two tests of "no difference"
#
# The p-values above come from a paired permutation test: each permutation swaps the two
# models' scores within randomly chosen applications and recomputes the difference. It is
# exact when the two models are interchangeable, whatever the metric, which matters near
# calibration, where a calibration error's estimate is biased and the bootstrap misjudges
# the spread of a difference of two of them (benchmarks/coverage_compare_models.py: the
# bootstrap test's size was 0-0.03 for the LCS and MCB and up to 0.15 for the ECE; the
# permutation test's 0.013-0.070 around its exact 0.049). The price: its p-value is not the
# interval inverted. `test="bootstrap"` gives the p-value that inverts the basic bootstrap
# interval (for the ICI and ECE the plain basic interval, not the directional bounds shown),
# side by side here (same seed, so the same resamples and intervals):

# %%
by_bootstrap = locacal.compare_models(hmda_models, y_held.to_numpy(), reference="logistic",
                                      n_boot=300, seed=0, test="bootstrap").to_frame()
both = comparison.to_frame()[["model_a", "metric", "difference", "lower", "upper"]].assign(
    p_permutation=comparison.to_frame()["pvalue"], p_bootstrap=by_bootstrap["pvalue"])
both.set_index(["model_a", "metric"])

# %% [markdown]
# Where the two disagree it is about the LCS: the ridge model's and the model without credit
# history's LCS differences have intervals that hold 0 but permutation p-values below 0.05.
# Read both. The LCS's basic interval is too wide near 0 (its bootstrap test almost never
# rejects two equally calibrated models), and the permutation test says the two models are
# not interchangeable as the LCS sees them, which for models this different (compare their
# Brier scores) is no surprise; its hypothesis is stronger than "equal LCS", so it does not
# prove the LCS differ. The interval bounds the size of the difference: at most about 0.013
# for the ridge model, 0.003 without credit history, small against the ICI and ECE gaps.
