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
# # A medical risk score: diabetes in Pima women
#
# **Data.** `MASS::Pima.tr` and `MASS::Pima.te` (Smith et al. 1988; Ripley 1996): 532 women of
# Pima heritage, at least 21 years old, living near Phoenix, Arizona, tested for diabetes by
# the WHO criteria (`type`, 33 % positive), with seven predictors: number of pregnancies,
# plasma glucose two hours into an oral glucose tolerance test, diastolic blood pressure,
# triceps skin fold, body mass index, the diabetes pedigree function and age. A copy ships in
# `data/pima.csv` (source, licence and the R command: `data/README.md`), so no R is needed.
#
# **Question.** A risk score is used as an absolute risk ("your probability of diabetes is
# 30 %"), so it must be calibrated, not only discriminating. We fit two scores on a train
# split, check them with the clinical diagnostics (Steyerberg 2019, ch. 15; Van Calster et al.
# 2019) on a test split, and recalibrate on a calibration split.
#
# **Settings.** All 532 women, split 50 / 25 / 25 % (266 / 133 / 133): small splits, as
# medical validation sets often are, and the point of several cells below. Bootstrap
# intervals use 50 resamples here, to run in seconds (`n_boot=200` by default; use 1000 or
# more for a publication).

# %%
# %matplotlib inline
import warnings

import matplotlib.pyplot as plt
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import locacal

pd.set_option("display.precision", 4)

pima = pd.read_csv("data/pima.csv")
pima["diabetes"] = (pima["type"] == "Yes").astype(int)
PREDICTORS = ["npreg", "glu", "bp", "skin", "bmi", "ped", "age"]
print(f"{len(pima)} women, {pima['diabetes'].mean():.1%} with diabetes")
pima.head()

# %% [markdown]
# ## Train, calibration and test women, and two scores
#
# `locacal.split` draws the three splits at random, stratified on the outcome. On the train
# split we fit
#
# * a **logistic regression** on the seven predictors (unpenalised: the classical clinical
#   model), and
# * a **random forest** (500 trees, leaves of at least 5 women), whose averaged votes are
#   known to be pulled away from 0 and 1.

# %%
train, calibration, test = locacal.split(pima, (0.5, 0.25, 0.25), seed=1988,
                                         stratify="diabetes")
models = {
    "logistic": make_pipeline(StandardScaler(), LogisticRegression(C=float("inf"))),
    "forest": RandomForestClassifier(n_estimators=500, min_samples_leaf=5, random_state=1),
}
for name, model in models.items():
    model.fit(train[PREDICTORS], train["diabetes"])
    for frame in (train, calibration, test):
        frame[name] = model.predict_proba(frame[PREDICTORS])[:, 1]
print({name: len(f) for name, f in zip(("train", "calibration", "test"),
                                        (train, calibration, test), strict=True)})

# %% [markdown]
# ## The calibration curves on the test split
#
# With 133 women the 95 % bands are wide: a test split this small can only show gross
# miscalibration.

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 5), sharey=True)
for ax, name in zip(axes, models, strict=True):
    locacal.calibration_curve(test[name], test["diabetes"]).plot(
        ax=ax, label="local regression, 95 % band")
    locacal.calibration_curve(test[name], test["diabetes"], method="binning", bins=5).plot(
        ax=ax, band=False, label="5 quantile bins")
    ax.set_title(f"{name}: test split (n = {len(test)})")
fig.tight_layout()

# %% [markdown]
# ## Clinical diagnostics
#
# `calibration_report(..., clinical=True)` adds the three numbers a clinical validation
# reports first:
#
# * `cal_intercept`, calibration-in-the-large: the intercept a of logit P(D = 1) = a +
#   logit(s); 0 when the mean risk is right, > 0 when the score under-estimates risk;
# * `cal_slope`: b in logit P(D = 1) = a' + b logit(s); 1 when the spread is right, < 1 for
#   over-confident (too extreme) scores, > 1 for under-confident ones;
# * `ici`, the Integrated Calibration Index (Austin & Steyerberg 2019): the mean absolute
#   distance between the score and a lowess calibration curve, in probability units.

# %%
clinical = locacal.calibration_report(test[list(models)], test["diabetes"], clinical=True)
clinical.set_index("model")[["cal_intercept", "cal_slope", "ici", "lcs", "ece", "brier",
                             "spiegelhalter_z", "auc"]]

# %% [markdown]
# The intercept and slope with their Wald intervals and p-values (tests of a = 0 and b = 1),
# and the distribution of the absolute calibration errors (`calibration_errors`: ICI, median
# E50, 90th percentile E90 and maximum Emax, as R's `rms::val.prob` computes them):

# %%
pd.concat({name: locacal.calibration_intercept_slope(test[name], test["diabetes"])
           for name in models})

# %%
pd.DataFrame({name: locacal.calibration_errors(test[name], test["diabetes"])
              for name in models}).transpose()

# %% [markdown]
# Both scores discriminate alike (AUC about 0.83). The logistic model's slope is below 1 (its
# risks a little too extreme), the forest's above 1 (too close to the middle, the classic
# behaviour of averaged votes), but both intervals contain 1 and both intercepts contain 0:
# 133 women cannot tell these scores from calibrated ones. The Hosmer-Lemeshow test on
# deciles of risk, the traditional summary, agrees (`pvalue_external` is the right p-value
# here, on G degrees of freedom, since the scores were not fitted on the test women):

# %%
pd.concat([locacal.hosmer_lemeshow(test[name], test["diabetes"]).to_frame()
           .rename(index={"hosmer_lemeshow": name}) for name in models])

# %% [markdown]
# ## How sure are we? Bootstrap intervals and the calibrated-model baseline
#
# With 133 women every metric is noisy. `ci=True` adds percentile bootstrap intervals and
# `null_mean`, the value a perfectly calibrated model with the same scores would show on
# average: an LCS or ICI near its `null_mean` is what calibration predicts.

# %%
with_ci = locacal.calibration_report(test["forest"], test["diabetes"], clinical=True,
                                     ci=True, n_boot=50, seed=0)
with_ci.loc[["lcs", "ece", "ici", "cal_intercept", "cal_slope", "brier", "auc"]]

# %% [markdown]
# The forest's LCS, ECE and ICI lie *below* their `null_mean`: smaller than what a calibrated
# model with these scores typically shows on 133 women, so nothing here suggests
# miscalibration. (A percentile interval need not contain the value: the calibration error of
# a bootstrap resample is biased upwards, its duplicated rows looking noisier.)
#
# ## Recalibrate the forest anyway?
#
# `recalibrate` fits Platt scaling, isotonic regression, beta calibration and local regression
# on the 133 calibration women and judges them on the 133 test women. Isotonic regression and
# the local fit give step-like maps whose tied scores merge the 10 quantile bins of the
# table's ECE and QMSE; locacal warns about it (`CalibrationWarning`) each time, which is
# expected of step functions and silenced for this call.

# %%
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="tied scores leave|.* hold fewer than",
                            category=locacal.CalibrationWarning)
    result = locacal.recalibrate(train, calibration, test, score_column="forest",
                                 label_column="diabetes")
result.summary("test")[["brier", "ece", "lcs", "auc", "sensitivity", "specificity"]]

# %%
axes = result.plot(split="test")

# %% [markdown]
# Every map makes the test metrics *worse*. The calibration women are why: on them the
# forest's scores look too low (mean score against event rate, and a calibration intercept
# above 0), while on the test women they are right. Both are within sampling noise (the
# intercept's interval on the calibration split contains 0), but the maps learn that noise:

# %%
print(f"calibration split: mean score {calibration['forest'].mean():.3f}, "
      f"event rate {calibration['diabetes'].mean():.3f}; test split: mean score "
      f"{test['forest'].mean():.3f}, event rate {test['diabetes'].mean():.3f}")
locacal.calibration_intercept_slope(calibration["forest"], calibration["diabetes"])

# %% [markdown]
# The clinical diagnostics of the two smooth maps on the test women confirm it: both shift the
# risks up (intercept below 0) and over-stretch them (slope below 1). Isotonic regression
# tells a patient her risk is exactly 0 or 1, which no clinician should report:

# %%
test_scores = result.scores["test"]
after = locacal.calibration_report(test_scores[["uncalibrated", "platt", "beta"]],
                                   test_scores["label"], clinical=True)
print(f"isotonic risks of exactly 0 or 1: {test_scores['isotonic'].isin([0, 1]).sum()} "
      f"of {len(test_scores)} test women")
after.set_index("model")[["cal_intercept", "cal_slope", "ici", "brier", "auc"]]

# %% [markdown]
# The lesson for a medical risk score: validate first (curve, intercept and slope with their
# intervals, ICI against its calibrated-model baseline), and recalibrate only what the
# validation shows to be miscalibrated, with a two-parameter map (Platt, beta) unless the
# calibration set holds thousands of patients.

# %% [markdown]
# ## Calibrated for younger and older women? `by=`
#
# Risk scores are often well calibrated on average and off in an age band. On the 266 women
# held out from training (calibration and test splits), the two scores by age band, with the
# family-wise test that corrects for looking at several groups:

# %%
held_out = pd.concat([calibration, test], ignore_index=True)
age_band = pd.cut(held_out["age"], [0, 29, 120], labels=["21-29", "30+"]).astype(str)
by_age = locacal.ReliabilityDisplay.from_predictions(
    held_out[list(models)], held_out["diabetes"], by=age_band.rename("age band"))

# %%
{name: locacal.calibration_test(held_out[name], held_out["diabetes"], by=age_band,
                                seed=2).to_frame()
 for name in models}

# %% [markdown]
# ## Decision curves: net benefit, and what miscalibration costs
#
# A clinical validation reports net benefit beside calibration (TRIPOD+AI; Vickers & Elkin
# 2006). If a clinician refers a woman for a glucose tolerance work-up when her risk reaches
# t, the threshold says that one unnecessary referral costs t / (1 - t) of the benefit of a
# necessary one, and the net benefit NB(t) = TP/n - FP/n · t/(1 - t) counts the necessary
# referrals per woman net of that cost, against referring every woman (`treat_all`) or none
# (0). `decision_curve` equals the `dcurves` package (Python; R's `dcurves`/`rmda` compute the
# same curve). With `decompose=True` it adds, per threshold, the net benefit of the score after
# CORP's isotonic recalibration (the best any cutoff on that score reaches at t) and the
# difference, `miscalibration_loss` >= 0: the net benefit lost at t because the risks are not
# calibrated. The thresholds 5 % to 60 % cover the usual referral range for a 33 % prevalence.

# %%
thresholds = [k / 20 for k in range(1, 13)]  # 0.05, 0.10, ..., 0.60
dc = locacal.decision_curve(test[["logistic", "forest"]], test["diabetes"],
                            thresholds=thresholds, decompose=True)
ax = dc.plot()
ax.set_title("Test women (n = 133)")
dc.table.pivot(index="threshold", columns="model",
               values=["net_benefit", "miscalibration_loss"]).loc[[0.1, 0.2, 0.3, 0.4, 0.5]]

# %% [markdown]
# Both scores beat referring every woman and referring none over the whole range, and they
# are close to each other. The shaded losses reach 0.035 for the logistic score at t = 0.4,
# but on 133 women they are mostly optimism: the isotonic fit is judged on the women it was
# fitted on, so `miscalibration_loss` is the *in-sample* gain of recalibrating, biased upwards
# at this size (in the accuracy study of `benchmarks/accuracy_decision.py`, a perfectly
# calibrated score shows a loss of 0.010 at t = 0.3 with n = 500 women, 0.004 with 2,000).
# What recalibration actually gains is read on held-out women: the forest's maps fitted on
# the calibration split above, evaluated on the test split.

# %%
held_out = locacal.decision_curve(test_scores[["uncalibrated", "platt", "beta"]],
                                  test_scores["label"], thresholds=thresholds)
ax = held_out.plot()
ax.set_title("Forest, recalibrated on the calibration split, on the test women")
held_out.table.pivot(index="threshold", columns="model",
                     values="net_benefit").loc[[0.1, 0.2, 0.3, 0.4, 0.5]]

# %% [markdown]
# The held-out curves cross: Platt scaling gains about 0.01 at thresholds 0.4 to 0.5 and
# loses as much at 0.2, beta calibration likewise, all within the sampling noise of 133 women
# (the standard error of a net benefit is about 0.04 here). Recalibrating the forest on 133
# calibration women does not buy net benefit reliably, as the calibration diagnostics above
# said. What a decision curve adds is *where* a map would pay: the thresholds at which the
# loss is large, and larger than its in-sample bias, are those at which a clinician should
# insist on a recalibrated model.

# %% [markdown]
# ## Local likelihood: a risk curve that stays a probability
#
# With 133 test women the local least-squares curve (the default family) is a weighted mean
# of a few dozen 0/1 labels per window: at the ends of the scores its local line can leave
# [0, 1] (it is then clipped), and its band is a binomial interval around it. The local
# *likelihood* (`family="binomial"`, R's `locfit(..., family = "binomial")`) fits a logistic
# regression in each window: the curve stays inside (0, 1), the band is a score (Wilson)
# interval around it, which is asymmetric near 0 and 1 where a risk score's errors
# matter most. The span is chosen by the likelihood GCV over locfit's grid:

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 5))
for ax, name in zip(axes, models, strict=True):
    ls = locacal.LocalRegressionCalibrator().fit(test[name], test["diabetes"])
    lik = locacal.LocalRegressionCalibrator(nn="gcv", family="binomial").fit(
        test[name], test["diabetes"])
    ls.curve().plot(ax=ax, label="least squares (nn = 0.15)", scale="logit")
    lik.curve().plot(ax=ax, label=f"binomial (GCV: nn = {lik.nn_:.2f})", scale="logit")
    ax.set_title(f"{name}: test split, logit axes")
    print(f"{name}: least squares range [{ls.predict(test[name]).min():.4f}, "
          f"{ls.predict(test[name]).max():.3f}]; binomial range "
          f"[{lik.predict(test[name]).min():.4f}, {lik.predict(test[name]).max():.3f}]")
fig.tight_layout()

# %% [markdown]
# For the forest, GCV picks the widest span for 133 women and the local likelihood's curve is
# a smooth logistic one, where least squares wiggles and drops to exactly 0 at the lowest
# scores (a window of 19 women without a diabetic one: a local fit to zeros). For the
# logistic score, no diabetic woman lies among the lowest scores either: the local likelihood
# then goes to 0 too (the logit heads to minus infinity), and its band, wide there, shows how
# little a handful of women can tell. On the logit axes both tails are visible, which they are not
# on [0, 1]. The same estimator recalibrates, fitted on the calibration women and judged on
# the test women as above:

# %%
lik_map = locacal.LocalRegressionCalibrator(nn="gcv", family="binomial").fit(
    calibration["forest"], calibration["diabetes"])
locacal.calibration_report(
    pd.DataFrame({"uncalibrated": test["forest"],
                  "local likelihood": lik_map.predict(test["forest"])}),
    test["diabetes"], clinical=True).set_index("model")[
        ["cal_intercept", "cal_slope", "ici", "brier", "auc"]]

# %% [markdown]
# ## Internal validation: all 532 women, no split
#
# Splitting 532 women into 266 / 133 / 133 spends data: the model is fitted on half of them
# and judged on a quarter, and the judgement is noisy. The alternative of clinical prediction
# modelling (Harrell 2015, §5.3; Steyerberg 2019, ch. 17) fits the model on **all** women and
# estimates how optimistic its apparent performance is by refitting it on bootstrap samples:
# the optimism of each metric is the mean, over the bootstrap fits, of (its value on the
# bootstrap sample - its value on the original women), and the corrected value is the
# apparent one minus that optimism (`rms::validate` in R). `internal_validation` does this for
# any scikit-learn pipeline, for the AUC, the Brier score, calibration-in-the-large, the
# calibration slope, the ICI and the LCS, with the optimism-corrected calibration curve
# (`rms::calibrate`).

# %%
logistic_all = make_pipeline(StandardScaler(), LogisticRegression(C=float("inf")))
validation = locacal.internal_validation(logistic_all, pima[PREDICTORS], pima["diabetes"],
                                         n_boot=200, seed=532, progress=False)
validation.table

# %%
ax = validation.plot()
_ = ax.set_title("Logistic model on all 532 women")

# %% [markdown]
# The apparent slope of a maximum-likelihood logistic model is 1 and its apparent intercept 0
# by construction (up to the solver's tolerance); the bootstrap says that on new women of the
# same population the slope is expected to be about 0.94: the model is mildly over-fitted (its
# risks are a little too extreme), which a uniform shrinkage of the linear predictor by the
# corrected slope would repair (Harrell 2015, §5.5). The corrected AUC (0.851 against 0.860
# apparent) and Brier score are what the model should achieve on new women. The .632 bootstrap
# and 10-fold cross-validation agree on the AUC and the Brier score. They do not on the ICI
# and the LCS, and cross-validation not on the slope: there each fit is judged on the rows it
# left out (about 53 women per fold, about 196 out of the bootstrap sample), and on so few
# rows the slope is noisy and the ICI and LCS, which are positive even for a calibrated model,
# are inflated by noise. The Efron-Gong bootstrap judges every refit on all 532 women, which is
# why Harrell and Steyerberg recommend it.
#
# %%
pd.DataFrame({method: locacal.internal_validation(
    logistic_all, pima[PREDICTORS], pima["diabetes"], method=method, n_boot=200, seed=532,
    progress=False).table["corrected"] for method in ("bootstrap", ".632", "cv")})

# %% [markdown]
# ## Simultaneous bands and the sup test
#
# The pointwise band of the curves above is read one risk at a time. To say "the score is
# compatible with calibration over the range of risks we report", the band must hold the
# whole curve at once: `band="simultaneous"` widens it to a sup-t band that holds g
# jointly at every grid point between the 5 % and 95 % risk quantiles (about 0.95 of
# samples in the coverage study), and `calibration_test(statistic="sup")` rejects exactly
# when the diagonal leaves it. For a two-parameter clinical recalibration the matching band
# is Scheffé's (`method="platt", logit=True`): it holds the fitted logistic map at every
# risk simultaneously.

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 5), sharey=True)
for ax, name in zip(axes, models, strict=True):
    local = locacal.calibration_curve(test[name], test["diabetes"], band="simultaneous")
    inside = local.lower == local.lower  # the band is drawn on the 5-95 % risk quantiles
    ax.fill_between(local.grid[inside], local.lower[inside], local.upper[inside], alpha=0.25,
                    label="local, simultaneous 95 %")
    ax.plot(local.grid, local.estimate, lw=2)
    platt = locacal.calibration_curve(test[name], test["diabetes"], method="platt",
                                      logit=True, band="simultaneous")
    ax.plot(platt.grid, platt.lower, "k--", lw=1, label="Platt (logit), Scheffé 95 %")
    ax.plot(platt.grid, platt.upper, "k--", lw=1)
    ax.plot([0, 1], [0, 1], color="0.5", lw=1)
    p = locacal.calibration_test(test[name], test["diabetes"], statistic="sup").pvalue
    ax.set_title(f"{name}: sup test p = {p:.2f}")
    ax.set_xlabel("predicted risk")
    ax.legend(loc="upper left")
axes[0].set_ylabel("observed frequency")
fig.tight_layout()

# %% [markdown]
# With 133 test women neither model is shown to be miscalibrated over its range of risks
# (sup test p of about 0.5 and 0.8); the simultaneous bands say how far from the diagonal
# the true curve could still be, and the local band spans most of [0, 1] where risks are
# high and women few. The two bands answer different questions: the local band makes no
# assumption on the shape of g, Scheffé's assumes a logistic map in logit(s), and is far
# narrower for it (at most about 0.35 wide here).

# %% [markdown]
# ## Is the logistic score calibrated *enough*? An equivalence test
#
# A guideline may ask for a validated risk score whose ICI is below, say, 0.05.
# `calibration_equivalence_test` tests H0 "ICI >= 0.05": it rejects, and the score is
# declared calibrated within the margin, when the 95 % upper confidence bound of the ICI lies
# below 0.05. On the 133 test women the bounds (about 0.1 for both scores) are far above
# it: not rejecting calibration is not evidence of good calibration, and a test split this
# small cannot certify an ICI below 0.05. The noise part of the bound shrinks about like
# 1/sqrt(n): a few thousand validation patients would be needed.

# %%
pd.concat([locacal.calibration_equivalence_test(
    test[name], test["diabetes"], margin=0.05, measure="ici", n_resamples=199, seed=1,
).to_frame().rename(index={"ici": name}) for name in models])

# %% [markdown]
# The report's intervals of the forest's ICI (with `clinical=True`), ECE, LCS and mcb use the same
# bound, so their lower ends are 0 whenever the calibration test does not reject:

# %%
with_ci.loc[["ece", "lcs", "mcb", "ici"], ["value", "lower", "upper", "null_mean"]]

# %% [markdown]
# ## Comparing the models on the same women: `compare_models`
#
# The logistic regression, the forest and the forest after Platt scaling, judged on the
# same 133 test women: `compare_models` gives each difference a paired interval (DeLong's
# for the AUC, a bootstrap sharing its resampled women across the models for the others)
# and a p-value, every model against the logistic regression.

# %%
assert (test_scores["label"].to_numpy() == test["diabetes"].to_numpy()).all()
clinic = locacal.compare_models(
    {"logistic": test["logistic"].to_numpy(), "forest": test_scores["uncalibrated"].to_numpy(),
     "forest + Platt": test_scores["platt"].to_numpy()},
    test["diabetes"].to_numpy(), reference="logistic", metrics=["brier", "log_loss", "ici",
                                                                "ece", "auc"],
    n_boot=300, seed=0)
clinic.to_frame().set_index(["model_a", "metric"])[["difference", "lower", "upper", "pvalue"]]

# %%
ax = clinic.plot()

# %% [markdown]
# On 133 women no difference is clearly away from 0: the models cannot be told apart on
# this test split, neither in discrimination (DeLong's interval for the AUC difference
# runs from about -0.03 to +0.03) nor in calibration. A choice between them needs more patients, or
# the internal validation of the whole development sample.

# %% [markdown]
# ## An honest band for a monotone risk curve: the isotonic simultaneous band
#
# The sup-t band above is asymptotic, and 133 women are few for asymptotics. If all we are
# willing to assume is that the true risk rises with the score (g non-decreasing), the
# isotonic curve's honest band, `band="simultaneous", simultaneous="honest"` (Dimitriadis,
# Dümbgen, Henzi, Puke & Ziegel 2023), holds g at every risk at once with probability at least
# 0.95 *for this sample size*: each
# run of consecutive scores gives exact Clopper-Pearson bounds for its mean risk, a union
# bound makes them hold together, and monotonicity carries each bound to the risks beyond
# its run. It is drawn on the 5-95 % risk quantiles, as the other simultaneous bands.

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 5), sharey=True)
for ax, name in zip(axes, models, strict=True):
    iso = locacal.calibration_curve(test[name], test["diabetes"], method="isotonic",
                                    band="simultaneous", simultaneous="honest")
    inside = iso.lower == iso.lower
    ax.fill_between(iso.grid[inside], iso.lower[inside], iso.upper[inside], step="post",
                    alpha=0.25, label="isotonic, honest 95 %")
    ax.step(iso.grid, iso.estimate, where="post", lw=2, label="isotonic fit")
    ax.plot([0, 1], [0, 1], color="0.5", lw=1)
    outside = inside & ((iso.grid < iso.lower) | (iso.grid > iso.upper))
    ax.set_title(f"{name}: diagonal outside at {int(outside.sum())} grid points")
    ax.set_xlabel("predicted risk")
    ax.legend(loc="upper left")
axes[0].set_ylabel("observed frequency")
fig.tight_layout()

# %% [markdown]
# The price of a guarantee that needs no smoothing choice and no asymptotics is width: with
# 133 test women the honest band is about 0.4 to 0.8 wide (0.7 on average), and the diagonal
# stays inside it for both scores. It says what 133 women can establish without assuming a
# shape for the risk curve, which is little; the coverage study
# (`benchmarks/coverage_simultaneous.py`) shows it narrowing to about 0.3 at n = 2000 and
# 0.15-0.18 at n = 20000, covering the true curve in every simulated sample. The default
# `band="simultaneous"` of the isotonic curve keeps the same windows but calibrates their
# level by a parametric bootstrap, so that it covers about 95 % of the time rather than
# always (0.93-0.98 in the same study); it is about a quarter narrower, and asymptotic.
