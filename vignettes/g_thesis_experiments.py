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
# # (g) The MSE calibration score against bin size and sample size (thesis §4.3)
#
# Nguyen (2015) measures calibration with the binned *MSE calibration score* (CalibMSE):
# sort the scores, cut them into bins of b consecutive points, and average the squared gap
# between each bin's mean score q_b and mean label p̂_b, weighted by the bin's size.
# This notebook reruns the thesis's two experiments on synthetic pairs:
#
# * predictions drawn from a Beta(0.5, 0.5) law;
# * labels drawn from a Bernoulli of the prediction (*calibrated* pairs, k = 0) or of the
#   distortion t_k (k = 0.1; the thesis's `min(0, p + k)` read as `min(1, p + k)`, see
#   `locacal.simulate.distort`).
#
# Both experiments run here at the thesis's own settings (10^5 pairs; sizes 10^4 ... 5 x 10^4),
# which take a few seconds; only the number of repeated samples per size is small (3 here;
# `n_repeats=20` gives smoother curves in about ten times the time).

# %%
import matplotlib.pyplot as plt
import pandas as pd

import locacal
from locacal import simulate
from locacal.studies import (
    bin_size_study,
    plot_bin_size_study,
    plot_sample_size_study,
    sample_size_study,
)

pd.set_option("display.width", 120)

# %% [markdown]
# ## Bin size: 2^1 ... 2^16 points per bin on 10^5 pairs (Figure 4.7)
#
# One sample per condition; the score is recomputed for every bin size, so the curve shows
# the effect of the bin size alone. Doubling the bin size merges neighbouring bins, and by
# Jensen's inequality the score can only go down: small bins measure mostly the binomial
# noise of each bin's mean label (about p(1 - p)/b), large bins average the
# miscalibration away.

# %%
powers = bin_size_study(n_obs=100_000)
powers.pivot(index="bin_size", columns="condition", values="calib_mse")

# %% [markdown]
# With non-nested steps (10^3 ... 5 x 10^4 by 10^3, Figures 4.8 and 4.9) the bins of two
# consecutive sizes are not unions of each other, and the score need not decrease
# monotonically.

# %%
steps = bin_size_study(n_obs=100_000, bin_sizes=range(1_000, 50_001, 1_000))

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")
plot_bin_size_study(powers, ax=ax1)
plot_bin_size_study(steps, ax=ax2, log=False)
ax1.set_title("bins of 2^j points (nested)")
ax2.set_title("bins of 1000 j points (not nested)")
plt.show()

# %% [markdown]
# ## Sample size: 10^4 ... 5 x 10^4 pairs, bins of sqrt(n) points (Figures 4.10, 4.11)
#
# With bins of √n points each bin's gap is noise of variance about p(1 − p)/√n, so the
# calibrated pairs' score goes to zero as n grows (Foster 1998), while the distorted pairs'
# levels off at their miscalibration.

# %%
sizes = sample_size_study(n_repeats=3)
sizes.groupby(["condition", "n_obs"])["calib_mse"].mean().unstack(0).iloc[::10]

# %%
fig, ax = plt.subplots(figsize=(6, 4), layout="constrained")
plot_sample_size_study(sizes, ax=ax)
plt.show()

# %% [markdown]
# ## Is the score of the calibrated pairs really zero? The interval
#
# The plug-in score of calibrated pairs is never 0: it is biased upwards by about
# p̄(1 − p̄) B / n ≈ 0.25/√n with √n bins. `calib_mse_interval` removes this bias with each
# bin's unbiased binomial variance (Ferro & Fricker 2012) and gives a normal interval, so a
# calibrated sample's interval contains 0, and a distorted one's does not.

# %%
rows = {}
for k in (0.0, 0.1):
    pairs = simulate.synthetic_pairs(20_000, k=k, seed=7)
    interval = locacal.calib_mse_interval(pairs["score"], pairs["label"])
    rows[f"k = {k}"] = {
        "plug-in CalibMSE": locacal.calib_mse(pairs["score"], pairs["label"]),
        "debiased": interval.mean,
        "lower": interval.lower,
        "upper": interval.upper,
    }
pd.DataFrame(rows).T
