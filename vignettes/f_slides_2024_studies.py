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
# # (f) The 2024 slides' studies: miscalibration in simulation, trees, and KL divergence
#
# Machado, Charpentier, Flachaire, Gallic & Hu (2024) ask two questions, and this notebook
# reruns both:
#
# 1. **What does miscalibration do to the metrics?** (slides §3) Distort the true
#    probabilities of a logistic process and see which metrics notice.
# 2. **Are trees calibrated?** (slides §5) Fit regression trees and forests to the labels of
#    a known process, measure their calibration, and compare the distribution of their scores
#    with that of the true probabilities by a Kullback–Leibler divergence.
#
# **Settings.** Every study runs here on smaller settings so that the notebook takes well
# under a minute on two cores; the published ones are one argument away, and are given
# beside each call. The studies run in one process here (`n_jobs=1`): at these sizes,
# starting worker processes costs more than it saves. For the full settings leave the
# default `n_jobs=-1` (all cores); results for a seed do not depend on the number of
# workers.

# %%
import warnings

import matplotlib.pyplot as plt
import pandas as pd

import locacal
from locacal import simulate, studies

pd.set_option("display.width", 120)
pd.set_option("display.precision", 4)

# %% [markdown]
# ## 1. The simulation study (slides §3)
#
# The true probability p = logistic(η) of a logistic process is distorted either on the
# probability scale, p^u = p^α (eq. 6), or on the linear predictor, η^u = γ η (eq. 7), with
# α and γ in {1/3, 1, 3}; α = γ = 1 is the calibrated model. Labels are always drawn from
# the true p. The slides use 200 samples of 2,000 observations per scenario
# (`run_simulation(n_samples=200)`, about 3 minutes on two cores); 10 samples show the same
# picture here.

# %%
result = studies.run_simulation(n_samples=10, n_obs=2000, seed=2024, n_jobs=1,
                                progress=False)
result.summary("median")[["true_mse", "lcs", "brier", "ece", "qmse", "wmse"]]

# %% [markdown]
# The LCS is smallest for the calibrated process and grows as either distortion moves away
# from 1, in both directions, as the true MSE does. The standard metrics tell another
# story:

# %%
result.summary("median")[["accuracy", "sensitivity", "specificity", "auc"]]

# %% [markdown]
# The AUC does not move with α or γ (a monotone map keeps the order of the scores), and
# accuracy at τ = 0.5 moves only when the distortion carries scores across 0.5: standard
# metrics do not see miscalibration; calibration metrics do. Figures 4, 5 and 6 of the
# slides:

# %%
studies.plot_simulation_metrics(result)
plt.show()

# %%
studies.plot_simulation_curves(result)
plt.show()

# %%
studies.plot_simulation_standard_metrics(result)
plt.show()

# %% [markdown]
# ### How far is the distribution of the scores from that of the probabilities?
#
# `kl_divergence(scores, true_p)` is D(P ‖ Q), P the distribution of the scores and Q that
# of the true probabilities, estimated on 20 equal bins of [0, 1] (`method="hist"`, the
# slides' choice) or from reflected kernel densities (`method="kde"`). It is 0 only when the
# two distributions agree, whatever the labels: it measures how the scores *spread*, not
# whether they rank well. On one sample of each scenario:

# %%
kl = {}
for name, kwargs in {"alpha = 1/3": {"alpha": 1 / 3}, "alpha = 3": {"alpha": 3.0},
                     "gamma = 1/3": {"gamma": 1 / 3}, "gamma = 3": {"gamma": 3.0},
                     "calibrated": {}}.items():
    sample = simulate.logistic_dgp(2000, seed=1, **kwargs)
    kl[name] = {"KL (20 bins)": locacal.kl_divergence(sample["score"], sample["true_p"]),
                "KL (kde)": locacal.kl_divergence(sample["score"], sample["true_p"],
                                                  method="kde")}
pd.DataFrame(kl).T

# %% [markdown]
# ## 2. Are trees calibrated? (slides §5.1)
#
# The eq. 10 process, p = logistic(4 x1 + 3 x2 − 3.5), split 50 / 25 / 25 into train,
# calibration and test. The slides' tree is what R's rpart keeps with its default
# cp = 0.01; beside it, the tree whose pruning is chosen by 5-fold cross-validation. Each
# tree's scores are then recalibrated on the calibration split (Platt, isotonic, beta,
# local regression) and everything is measured on the test split, with the KL divergence of
# the scores from the true probabilities. The slides draw 200,000 cases
# (`tree_case_study()`); 40,000 here.
#
# A tree has as many distinct scores as leaves, so the binned ECE and QMSE (10 quantile
# bins) cannot have 10 bins for the rpart tree: locacal warns about each such metric. The
# warnings are expected here; they are collected and counted rather than printed.

# %%
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always", locacal.CalibrationWarning)
    case = studies.tree_case_study(n_obs=40_000, seed=2024)
print(f"{len(caught)} CalibrationWarnings, all of them about tied scores: "
      f"{all('tied scores' in str(w.message) for w in caught)}")
print({name: int(case.table.loc[case.table["model"] == name, "n_leaves"].iloc[0])
       for name in case.models})
case.summary("test", columns=("true_mse", "accuracy", "auc", "brier", "lcs", "kl"))

# %% [markdown]
# The rpart tree has a small LCS but is coarse: its MSE against the true probabilities is
# more than three times that of the CV-pruned tree, which keeps more leaves, ranks the
# cases better (higher AUC) and is no worse calibrated. Calibration is not the tree's
# problem, resolution is: recalibration changes little (local regression on six distinct
# scores even loses a little), as the slides found. The last column, the KL divergence of
# each set of scores from the true probabilities, says the same in distribution: the
# CV-pruned tree's scores spread much more like the truth than the six values of the rpart
# tree. Figure 13: maps and curves before and after recalibration.

# %%
for name, recalibration in case.recalibrations.items():
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.5), layout="constrained")
    recalibration.plot(axes, split="test")
    fig.suptitle(name)
    plt.show()

# %% [markdown]
# ## From two leaves to overfitting: which tree spreads its scores like the truth? (§5.2)
#
# A grid over the minimum leaf size and the pruning strength cp (the slides' grid has 22
# values of cp and leaves of at least 10, 100 and 1,000 cases: `tree_grid_study()`; here
# every other cp and two leaf sizes). For each tree, the metrics and the KL divergence of
# its scores from the true probabilities; the KL-best tree is chosen on the calibration
# split and reported on all three.

# %%
grid = studies.tree_grid_study(data=case.data, min_leaves=(10, 100),
                               cps=studies.tree_grid.DEFAULT_CPS[::2], n_jobs=1,
                               progress=False)
grid.best()[["model", "n_leaves", "split", "true_mse", "auc", "brier", "lcs", "kl"]]

# %% [markdown]
# Figure 17: the distribution of the true probabilities (top), then of the scores of the
# smallest tree, of the KL-best tree and of the largest tree among those with leaves of at
# least 100 cases. Two leaves lump every score into two values; the KL-best tree spreads
# its scores over the range of the truth. (With leaves of 100 cases even the unpruned tree
# has only about as many leaves as the KL-best one.) The metrics against the number of
# leaves show the other end: with leaves of 10 cases, the large trees over-fit, and their
# MSE, Brier score, LCS and KL divergence all rise again while their AUC falls.

# %%
studies.plot_score_distributions(grid, min_leaf=100)
plt.show()

# %%
studies.plot_metrics_vs_leaves(grid)
plt.show()

# %% [markdown]
# ## Random forests
#
# The same measurements for random forests, growing 10 then 50 trees (the slides' plan to
# study ensembles; `forest_grid_study()` grows up to 100 trees over three leaf sizes and
# two `max_features`).

# %%
forests = studies.forest_grid_study(data=case.data, n_estimators=(10, 50), min_leaves=(100,),
                                    n_jobs=1, progress=False)
(forests.metrics[forests.metrics["split"] == "test"]
 .sort_values("kl")[["model", "n_leaves", "true_mse", "auc", "brier", "lcs", "kl"]])

# %%
studies.plot_metrics_vs_leaves(forests, by="n_estimators")
plt.show()
