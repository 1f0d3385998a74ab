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
# # Recalibrating an insurance claim score, with exposure
#
# **Data.** `MASS::Insurance` (Baxter, Coutts & Ross 1980; Venables & Ripley 2002): 64 rating
# cells of a car insurer (district of residence, car group, age group of the driver), each with
# the number of policyholders exposed to risk (`Holders`) and the number of claims they made
# in the third quarter of 1973 (`Claims`). A copy ships in `data/insurance.csv` (source,
# licence and the R command that exported it: `data/README.md`), so no R is needed.
#
# **Question.** An insurer scores each policyholder with the probability of a claim in the
# quarter. Is the score a probability, and which recalibration repairs it? We follow the 2024
# slides' methodology (§4): a model is fitted on a *train* split of the policyholders, the
# recalibration maps on a *calibration* split, and everything is judged on a *test* split.
#
# **Settings.** The whole data set (23,359 policyholders) is used, as its 64 grouped cells:
# the policyholders are never listed one per row, except once, to check that the grouped
# computation gives their numbers. A later section reruns two of the slides' simulation
# studies with 20 and 10 samples instead of 200; the call with the full setting is written
# next to each. The appendix compares four models on a second real
# data set in one call.

# %%
# %matplotlib inline
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, OneHotEncoder

import locacal
from locacal.plotting import plot_score_histogram
from locacal.studies import (
    calibrated_scores_study,
    plot_real_data_curves,
    real_data_study,
    slides_recalibration_study,
    study_summary,
)

pd.set_option("display.precision", 4)

cells = pd.read_csv("data/insurance.csv", dtype={"District": str})
FACTORS = ["District", "Group", "Age"]
print(f"{len(cells)} cells, {cells['Holders'].sum()} policyholders, "
      f"{cells['Claims'].sum()} claims ({cells['Claims'].sum() / cells['Holders'].sum():.1%})")
cells.head()

# %% [markdown]
# ## Grouped data: two rows per cell, with counts
#
# A binary outcome per policyholder needs one assumption: a claim is one policyholder with a
# claim (the data count claims, and at a claim rate of 13.5 % per quarter few holders claim
# twice). Each cell then gives two *grouped* rows, "claim" with count `Claims` and "no claim"
# with count `Holders - Claims`: 128 rows that stand for the 23,359 policyholders. locacal
# reads such counts as **frequency weights** (`frequency_weights=`, or `count_column=` in
# `recalibrate`): a row stands for that many identical observations, and every number,
# interval and resample equals that of one row per policyholder, which is never built.

# %%
grouped = pd.concat([cells[FACTORS].assign(claim=1, count=cells["Claims"]),
                     cells[FACTORS].assign(claim=0, count=cells["Holders"] - cells["Claims"])],
                    ignore_index=True)
print(f"grouped: {len(grouped)} rows, {grouped['count'].sum()} policyholders")

# %% [markdown]
# ## Train, calibration and test policyholders
#
# The policyholders are drawn at random into 60 / 20 / 20 %, stratified on the claim (so
# each split has the claim rate of the whole), without listing them: among the policyholders
# of one class, those of each grouped row that land in a split follow the multivariate
# hypergeometric law, which NumPy draws from the counts. Each split is a grouped frame with
# the same 128 rows and its own counts.

# %%
rng = np.random.default_rng(1973)


def split_counts(frame: pd.DataFrame, shares=(0.6, 0.2, 0.2)) -> list[pd.DataFrame]:
    """Train, calibration and test counts of a random split of the observations behind
    ``frame["count"]``, stratified on the claim (calibration and test: round(share x n))."""
    parts = [frame.assign(count=0) for _ in shares]
    for _, rows in frame.groupby("claim"):
        left = rows["count"].to_numpy()
        sizes = [int(np.floor(p * left.sum() + 0.5)) for p in shares[1:]]
        for part, size in zip(parts[:0:-1], sizes[::-1], strict=True):  # test, calibration
            drawn = rng.multivariate_hypergeometric(left, size)
            part.loc[rows.index, "count"] = drawn
            left = left - drawn
        parts[0].loc[rows.index, "count"] = left  # train: the rest
    return parts


g_train, g_calibration, g_test = split_counts(grouped)
pd.DataFrame({"policyholders": [g["count"].sum() for g in (g_train, g_calibration, g_test)],
              "claim rate": [np.average(g["claim"], weights=g["count"])
                             for g in (g_train, g_calibration, g_test)]},
             index=["train", "calibration", "test"])

# %% [markdown]
# ## Two scores fitted on the train split
#
# * **GLM**: an unpenalised logistic regression on the three rating factors (main effects),
#   fitted on the grouped train rows with the counts as `sample_weight` (scikit-learn's
#   likelihood weights, the same maximum as one row per policyholder).
# * **balanced**: the same model with `class_weight="balanced"`, a common default for rare
#   events in machine-learning pipelines. It weighs the claims up to half the total weight,
#   which moves the intercept and nothing else: the scores keep their order, but they are no
#   longer probabilities.

# %%
def logistic(**kwargs):
    return make_pipeline(OneHotEncoder(drop="first"),
                         LogisticRegression(C=np.inf, max_iter=1000, **kwargs))


glm = logistic().fit(g_train[FACTORS], g_train["claim"],
                     logisticregression__sample_weight=g_train["count"])
balanced = logistic(class_weight="balanced").fit(
    g_train[FACTORS], g_train["claim"], logisticregression__sample_weight=g_train["count"])
for frame in (g_train, g_calibration, g_test):
    frame["glm"] = glm.predict_proba(frame[FACTORS])[:, 1]
    frame["balanced"] = balanced.predict_proba(frame[FACTORS])[:, 1]

# %% [markdown]
# ## See and measure on the test policyholders
#
# Every function takes the counts as `frequency_weights=`: the curve below is the local
# regression of the test policyholders (its nearest-neighbour span counts policyholders, not
# rows), and the report their metrics.

# %%
fig, (top, bottom) = plt.subplots(2, 1, figsize=(5.5, 7), height_ratios=[3, 1], sharex=True)
for name in ("glm", "balanced"):
    locacal.calibration_curve(g_test[name], g_test["claim"],
                              frequency_weights=g_test["count"]).plot(ax=top, label=name)
top.set_title("Test split: claim scores")
top.set_xlabel("")
plot_score_histogram(g_test["balanced"], g_test["claim"], ax=bottom,
                     frequency_weights=g_test["count"])
bottom.set_title("balanced scores by outcome", fontsize="small")
fig.tight_layout()

# %%
# the GLM has one score per cell (64 distinct values): quantile bins tie, and locacal says so
# each time (CalibrationWarning); the bins it keeps are documented in the report
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="tied scores leave", category=UserWarning)
    report = locacal.calibration_report(g_test[["glm", "balanced"]], g_test["claim"],
                                        frequency_weights=g_test["count"], clinical=True)
report.set_index("model")[["brier", "log_loss", "lcs", "ece", "ici", "cal_intercept",
                           "cal_slope", "spiegelhalter_z", "auc"]]

# %% [markdown]
# (The ICI is Austin & Steyerberg's, on R's lowess of the 4,672 policyholders: the lowess
# counts observations, not the grouped rows.)
#
# * Both scores rank the policyholders alike (AUC 0.56: three rating factors separate claims
#   from no claims only a little, as is usual for claim data), but the balanced score is
#   about four times the claim rate. Its calibration intercept, about -1.86 on the logit
#   scale, is the log-odds of the claim rate (log(0.135 / 0.865)): exactly what the class
#   weights added.
# * The GLM is calibrated in the large by construction (its score equations make the mean
#   score equal the claim rate on train: intercept near 0). Its curve follows the diagonal
#   where most policyholders are; the few cells scored highest claim less often than
#   scored, which the calibration slope below 1 (0.86) says too: a mildly over-confident
#   score.
# * Spiegelhalter's z does not see the balanced score's error: it weighs each residual by
#   1 - 2s, which is close to 0 for scores near 0.5, where the balanced scores sit, and changes
#   sign there, so the large residuals cancel. The LCS and ECE see it.
#
# ## Fix: recalibrate on the calibration policyholders
#
# `recalibrate` fits Platt scaling, isotonic regression, beta calibration and local regression
# on the calibration split and tabulates the metrics on every split; `count_column` names the
# counts of the grouped splits. Isotonic regression maps the 64 distinct scores to a few
# steps, whose ties merge the 10 quantile bins of the table's ECE and QMSE; locacal warns each
# time (`CalibrationWarning`), expected for a step function, so those two messages are
# silenced for these calls.

# %%
def recalibrate(score: str) -> locacal.RecalibrationResult:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="tied scores leave|.* hold fewer than",
                                category=locacal.CalibrationWarning)
        return locacal.recalibrate(g_train, g_calibration, g_test, score_column=score,
                                   label_column="claim", count_column="count")


fixed = recalibrate("balanced")
fixed.summary("test")[["brier", "ece", "qmse", "lcs", "auc"]]

# %%
axes = fixed.plot(split="test")

# %% [markdown]
# All four maps bring the balanced score back to the claim rate: the Brier score falls to
# that of the GLM, and the LCS by one to three orders of magnitude. The parametric maps
# (Platt, beta) keep the ranking, hence the AUC; isotonic regression and the local fit merge
# or swap a few cells and lose a little AUC.
#
# Recalibrating the GLM, which is nearly calibrated already:

# %%
recalibrate("glm").summary("test")[["brier", "ece", "lcs", "auc"]]

# %% [markdown]
# The Brier score, a proper score, does not move at the fourth decimal: there is little to
# gain. Platt and isotonic raise the LCS (estimation noise of the map); the local map lowers
# it most, but the LCS is itself a local regression of the same kind (degree 0, 15 % nearest
# neighbours), so it favours that map: judge a recalibration by more than one metric.

# %% [markdown]
# ## Frequency weights give the numbers of one row per policyholder
#
# To check the claim above, and only for that, the test split is expanded here to one row per
# policyholder (4,672 rows). Every calibrator fitted on the 128 grouped calibration rows with
# `frequency_weights=` gives the map fitted on the expanded rows, the local regression with a
# nearest-neighbour span `nn` included (its window counts policyholders); so do the metrics,
# the intervals and the tests.

# %%
def expand(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.loc[frame.index.repeat(frame["count"])].reset_index(drop=True)


calibration, test = expand(g_calibration), expand(g_test)
makers = {
    "platt": locacal.PlattCalibrator,
    "beta": locacal.BetaCalibrator,
    "isotonic": locacal.IsotonicCalibrator,
    "binning": locacal.BinningCalibrator,
    "local, h = 0.05": lambda: locacal.LocalRegressionCalibrator(nn=None, h=0.05),
    "local, nn = 0.15": lambda: locacal.LocalRegressionCalibrator(nn=0.15),
}
rows = {}
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="tied scores leave|.* hold fewer than",
                            category=locacal.CalibrationWarning)
    for name, make in makers.items():
        grouped_fit = make().fit(g_calibration["balanced"], g_calibration["claim"],
                                 frequency_weights=g_calibration["count"])
        expanded_fit = make().fit(calibration["balanced"], calibration["claim"])
        rows[name] = np.abs(grouped_fit.predict(test["balanced"])
                            - expanded_fit.predict(test["balanced"])).max()
pd.Series(rows, name="max |grouped - expanded| on test").to_frame()

# %% [markdown]
# Intervals too: the calibration intercept and slope with their confidence intervals,
# Hosmer-Lemeshow, Spiegelhalter, and the CalibMSE's interval, on the grouped test rows with
# counts and on the expanded rows (largest absolute difference over each table):

# %%
s, d, n = g_test["glm"], g_test["claim"], g_test["count"]
# 64 distinct scores: Hosmer-Lemeshow finds 9 of its 10 groups (in both calls), and says so
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="the scores allow only", category=UserWarning)
    checks = {
        "intercept / slope": (locacal.calibration_intercept_slope(s, d, frequency_weights=n),
                              locacal.calibration_intercept_slope(test["glm"], test["claim"])),
        "Hosmer-Lemeshow": (locacal.hosmer_lemeshow(s, d, frequency_weights=n).to_frame(),
                            locacal.hosmer_lemeshow(test["glm"], test["claim"]).to_frame()),
        "Spiegelhalter": (locacal.spiegelhalter_z(s, d, frequency_weights=n).to_frame(),
                          locacal.spiegelhalter_z(test["glm"], test["claim"]).to_frame()),
        "calib_mse_interval": (locacal.calib_mse_interval(s, d, frequency_weights=n).to_frame(),
                               locacal.calib_mse_interval(test["glm"], test["claim"]).to_frame()),
    }
pd.Series({name: float(np.nanmax(np.abs(a.select_dtypes("number").to_numpy()
                                         - b.select_dtypes("number").to_numpy())))
           for name, (a, b) in checks.items()}, name="max |grouped - expanded|").to_frame()

# %% [markdown]
# The same counts given as `weights=` would be read as *relative* weights (survey or
# importance weights: only w / sum(w) matters). The point estimates agree, but the intervals
# are then sized by Kish's effective sample size (sum w)^2 / sum w^2, that of ~128 unequal
# rows, not the 4,672 policyholders behind them:

# %%
pd.concat({
    "frequency_weights": locacal.calibration_intercept_slope(s, d, frequency_weights=n),
    "weights (relative)": locacal.calibration_intercept_slope(s, d, weights=n),
}).loc[(slice(None), ["intercept", "slope"]), :]

# %% [markdown]
# The fitted score and its recalibration close into one scikit-learn `Pipeline` whose last
# step receives the counts as `frequency_weights`:

# %%
scorer = FunctionTransformer(lambda X: balanced.predict_proba(X)[:, 1:])  # P(claim), 1 column
pipeline = make_pipeline(scorer, locacal.BetaCalibrator())
pipeline.fit(g_calibration[FACTORS], g_calibration["claim"],
             betacalibrator__frequency_weights=g_calibration["count"])
repaired = pipeline.predict(g_test[FACTORS])
lcs = {name: locacal.lcs(score, d, frequency_weights=n)
       for name, score in [("balanced", g_test["balanced"]), ("balanced + beta", repaired),
                           ("GLM", s)]}
print("test LCS: " + ", ".join(f"{name} {value:.5f}" for name, value in lcs.items()))

# %% [markdown]
# ## Which map? What the slides' simulations say
#
# The slides' recalibration study (§4): 2000 rows of the logistic process with
# over-confident scores (gamma = 3), split 60 / 20 / 20 %, every map fitted on 400
# calibration rows; medians over samples on the test split (`*_above_uncalibrated` counts the
# samples where a map does worse than the raw scores). 20 samples here; the slides' 200:
# `slides_recalibration_study(200, seed=2024, gamma=3.0)`.

# %%
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="tied scores leave|.* hold fewer than",
                            category=locacal.CalibrationWarning)
    slides = slides_recalibration_study(20, seed=2024, gamma=3.0)
study_summary(slides, metrics=("lcs", "ece", "true_mse", "auc"))

# %% [markdown]
# Platt scaling's caveat: the identity is not a logistic function of s, so Platt scaling
# *decalibrates* scores that are calibrated already, while beta calibration's family holds the
# identity (a = b = 1, c = 0). Calibrated scores spread over [0, 1] (Beta(0.5, 0.5)), 5,000
# calibration and 5,000 test rows, 10 samples (the full setting,
# `calibrated_scores_study(200, seed=2017, n_calibration=20_000, n_test=20_000)`, shows the
# same more sharply):

# %%
large = calibrated_scores_study(10, seed=2017, n_calibration=5_000, n_test=5_000)
study_summary(large, metrics=("lcs", "ece", "true_mse"))

# %% [markdown]
# Every fitted map adds estimation noise, so even beta calibration ends above the raw scores'
# true MSE in every sample; but Platt scaling's error, a bias that more data do not remove,
# is about 40 times larger.
#
# For the insurer: the class-weighted score needed a shift of its intercept, which every map
# provides; with a calibration split of a few thousand policyholders the two-parameter maps
# (Platt, beta) are the safe repair, and a GLM fitted by maximum likelihood on enough data is
# best left as it is.

# %% [markdown]
# ## Appendix: four models in one call
#
# Would a machine-learning model have done better than the GLM? `real_data_study` runs the
# whole workflow for four models on a data set that ships with statsmodels, the `fair` data
# (Fair 1978: 6,366 women, the event is having had an affair, 32 %): a logistic GLM, a
# regression tree pruned by cross-validation, a random forest and gradient boosting, fitted on
# 60 %, recalibrated on 20 % and judged on the last 20 % (the full study, no smaller setting).
# The tree's few distinct scores, like isotonic regression's, merge quantile bins; those
# warnings are silenced as above.

# %%
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="tied scores leave|.* hold fewer than",
                            category=locacal.CalibrationWarning)
    study = real_data_study(seed=1978)
study.summary("test")

# %%
axes = plot_real_data_curves(study, methods=["beta"])

# %% [markdown]
# The models rank alike (AUC 0.73 to 0.76). The GLM and the random forest are close to
# calibrated and recalibration changes little for them; gradient boosting is the least
# calibrated, and a two-parameter map (Platt, beta) removes most of its excess LCS. The local
# map always has the lowest LCS, for the reason given above (the LCS is a local regression of
# the same kind); the Brier score, which is proper, ranks the maps more soberly.

# %% [markdown]
# ## Decision curves: what miscalibration costs at each threshold
#
# A score is used to act: here, say, to send a claim-prevention letter (or to load the premium)
# when the probability of a claim reaches a threshold t. Choosing t says how much one useless
# action costs against one useful one: acting on a policyholder who will not claim costs
# t / (1 - t) of the benefit of acting on one who will. The **net benefit** (Vickers & Elkin
# 2006) counts the useful actions per policyholder net of that cost,
# NB(t) = TP/n - FP/n · t/(1 - t); acting on everyone (`treat_all`) and on no one (0) are the
# references. `decision_curve` computes it for several scores at once, and with
# `frequency_weights=` it reads the grouped test rows (one row per cell and outcome, weighted by
# the number of policyholders) exactly as the 4,672 test policyholders one by one.
#
# `decompose=True` adds what miscalibration costs: `net_benefit_recalibrated` is the net
# benefit of the same score after CORP's isotonic recalibration, which is also the best net
# benefit any cutoff on that score can reach at t; `miscalibration_loss` is the difference
# (>= 0, in net-benefit units). It is computed on the data it is judged on, so it is the
# in-sample gain of recalibrating; the Platt map fitted on the *calibration* split shows what
# is actually recovered on the test split.

# %%
platt = locacal.PlattCalibrator().fit(calibration["balanced"], calibration["claim"])
g_test["balanced, Platt"] = platt.predict(g_test["balanced"])
thresholds = np.arange(1, 41) / 100  # 0.01 to 0.40: the useful range for a 13.5 % claim rate
dc = locacal.decision_curve(g_test[["glm", "balanced", "balanced, Platt"]], g_test["claim"],
                            thresholds=thresholds, frequency_weights=g_test["count"],
                            decompose=True)
per_holder = locacal.decision_curve(test[["glm", "balanced"]], test["claim"],
                                    thresholds=thresholds, decompose=True)
grouped_rows = dc.table[dc.table["model"] != "balanced, Platt"].reset_index(drop=True)
gap = (grouped_rows.drop(columns="model") - per_holder.table.drop(columns="model")).abs()
print("grouped rows with frequency_weights vs one row per policyholder: max |difference| "
      f"{gap.max().max():.1e}")
ax = dc.plot()
ax.set_title("Test policyholders")
dc.table.pivot(index="threshold", columns="model",
               values="miscalibration_loss").loc[[0.05, 0.1, 0.15, 0.2, 0.3]]

# %% [markdown]
# * The balanced score acts on every policyholder at every threshold up to 0.4 (its scores
#   sit near 0.5), so its decision curve is the treat-all line, harmful (below 0) as soon as
#   t exceeds the claim rate of 13.5 %. The shaded area up to its dashed recalibrated curve is
#   what its miscalibration costs: nothing below t = 0.1, where acting on everyone is right
#   anyway, then a loss that grows with t (0.08 at t = 0.2, 0.24 at t = 0.3, in claimants
#   reached per policyholder net of the useless actions), because every useless action costs
#   more.
# * The GLM loses less than 0.001 at the thresholds of the table: for these decisions it is
#   as good as any cutoff on its score. With three rating factors (AUC 0.57) no cutoff
#   helps much above t = 0.2: every curve is close to treat-none there.
# * The Platt map fitted on the *calibration* policyholders brings the balanced score onto
#   the GLM's curve on the test policyholders: the in-sample loss was real, and a
#   two-parameter map recovers it out of sample.
#
# The same picture in the units of the Brier score: the **Murphy diagram** (Ehm et al. 2016)
# plots the mean elementary score S̄(t) = (t · FP + (1 - t) · FN) / n, the cost of the
# decisions at threshold t, which is (1 - t)(claim rate - NB(t)); twice its area is the Brier
# score, and twice the area under the dotted miscalibration term is CORP's MCB.

# %%
md = locacal.murphy_diagram(g_test[["glm", "balanced"]], g_test["claim"],
                            frequency_weights=g_test["count"], decompose=True)
ax = md.plot()
corp = locacal.corp_decomposition(test["balanced"], test["claim"])
# the default thresholds are the midpoints of 200 steps: twice a mean is the midpoint rule
mcb_area = 2 * md.table.loc[md.table["model"] == "balanced", "mcb"].mean()
print(f"balanced: CORP MCB {corp['mcb']:.5f}; twice the area under the diagram's MCB "
      f"(midpoint rule, 200 steps) {mcb_area:.5f}")

# %% [markdown]
# The midpoint rule on the 200 default thresholds recovers CORP's MCB to 1e-4. The balanced
# score's miscalibration is concentrated between thresholds 0.15 and 0.6, where its scores
# sit and act wrongly; the GLM's dotted line stays on the axis: its Brier score is almost all
# uncertainty minus discrimination.

# %% [markdown]
# ## Local likelihood: the claim curve with `family="binomial"`
#
# The curves above are local least squares (locfit's default family, the 2024 slides'
# choice): a weighted mean of 0/1 labels, which can leave [0, 1] where claims are rare and is
# then clipped. The local *likelihood* fits a logistic regression in each window instead
# (`family="binomial"`, R's `locfit(..., family = "binomial")`): its curve stays in (0, 1),
# its band is a score (Wilson) interval, asymmetric near 0, and its span can be chosen by the
# likelihood's GCV (deviance plus an effective number of parameters). The test split's
# policyholders, one row each, with the claim probability of the GLM:

# %%
local_ls = locacal.calibration_curve(test["glm"], test["claim"])
local_lik = locacal.calibration_curve(test["glm"], test["claim"], family="binomial")
ax = local_ls.plot(label="least squares", scale="logit")
local_lik.plot(ax=ax, label="binomial (local likelihood)", scale="logit")
ax.set_title("GLM on the test split, logit axes")
at = np.quantile(test["glm"], [0.05, 0.25, 0.5, 0.75, 0.95])
pd.DataFrame({"score": at, "least squares": local_ls(at), "binomial": local_lik(at)})

# %% [markdown]
# The two fits agree where the policyholders are many; the logit axes show the low-risk
# cells, where a gap of one percentage point is a relative error of a tenth. The span chosen
# by the likelihood GCV (one-standard-error rule) over locfit's grid, and the recalibration
# map it gives for the class-weighted score:

# %%
chosen = locacal.LocalRegressionCalibrator(nn="gcv", family="binomial").fit(
    calibration["balanced"], calibration["claim"])
print(f"span chosen by the likelihood GCV: nn = {chosen.nn_:.3f}")
chosen.smoothing_table_.table.round(4)

# %%
repaired_lik = chosen.predict(test["balanced"])
pd.DataFrame({
    "brier": [locacal.brier_score(s, test["claim"])
              for s in (test["balanced"], repaired_lik, test["glm"])],
    "lcs": [locacal.lcs(s, test["claim"]) for s in (test["balanced"], repaired_lik, test["glm"])],
}, index=["balanced", "balanced + local likelihood (GCV span)", "GLM"])

# %% [markdown]
# ## Internal validation of the GLM on all policyholders
#
# The split above holds out 40 % of the policyholders to calibrate and to test. How much
# would the GLM's apparent performance flatter it if it were fitted on all 23,359 and judged
# on the same policyholders? `internal_validation` refits the pipeline on bootstrap samples
# and subtracts the mean optimism (the value on the bootstrap sample minus the value on all
# policyholders) from each apparent metric (Efron-Gong; `rms::validate` in R). 20 bootstrap
# samples keep the cell short (the default is 200; the optimism's Monte Carlo error is then
# larger, as the table's small differences show). Refitting a scikit-learn pipeline on
# bootstrap samples needs the rows themselves, so the 128 grouped rows are expanded here to one
# row per policyholder.

# %%
holders = expand(grouped)
validation = locacal.internal_validation(logistic(), holders[FACTORS], holders["claim"],
                                         n_boot=20, seed=1980, progress=False)
validation.table

# %%
ax = validation.plot()
_ = ax.set_title("GLM on all policyholders: optimism-corrected calibration")

# %% [markdown]
# With 23,359 policyholders, 3,151 claims and 10 parameters, the optimism is negligible: the
# corrected calibration slope stays close to 1 (about 0.99) and the corrected AUC within two
# thousandths of the apparent one. Over-fitting is not what calls for recalibration here: the
# balanced score's miscalibration is systematic (its intercept), which no resampling of the
# GLM shows.
