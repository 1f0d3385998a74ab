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
