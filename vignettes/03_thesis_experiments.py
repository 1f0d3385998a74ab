# %% [markdown]
# # The MSE calibration score against bin size and sample size (thesis §4.3)
#
# A runnable vignette (`python vignettes/03_thesis_experiments.py`; figures in
# `vignettes/output/`).
#
# Predictions are drawn from a beta law; labels from a Bernoulli of the prediction
# (calibrated) or of the distortion t_k (k = 0.1; the thesis's `min(0, p + k)` read as
# `min(1, p + k)`, see `locacal.simulate.distort`).

# %%
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from locacal.studies import (
    bin_size_study,
    plot_bin_size_study,
    plot_sample_size_study,
    sample_size_study,
)

OUT = Path(__file__).resolve().parent / "output"
OUT.mkdir(exist_ok=True)

# %% [markdown]
# ## Bin size: 2^1 ... 2^16 points per bin on 10^5 pairs
#
# Doubling the bin size merges neighbouring bins, and by Jensen's inequality the score can
# only go down; with non-nested steps (10^3 ... 5 x 10^4 by 10^3) it need not.

# %%
powers = bin_size_study(n_obs=100_000)
print(powers.pivot(index="bin_size", columns="condition", values="calib_mse"))
steps = bin_size_study(n_obs=100_000, bin_sizes=range(1_000, 50_001, 1_000))

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")
plot_bin_size_study(powers, ax=ax1)
plot_bin_size_study(steps, ax=ax2, log=False)
fig.savefig(OUT / "thesis_bin_size.png", dpi=110)

# %% [markdown]
# ## Sample size: 10^4 ... 5 x 10^4 pairs, bins of sqrt(n) points
#
# The calibrated pairs' score goes to zero; the distorted pairs' levels off at their
# miscalibration.

# %%
sizes = sample_size_study(n_repeats=5)
print(sizes.groupby(["condition", "n_obs"])["calib_mse"].mean().unstack(0).iloc[::10])
fig, ax = plt.subplots(figsize=(6, 4), layout="constrained")
plot_sample_size_study(sizes, ax=ax)
fig.savefig(OUT / "thesis_sample_size.png", dpi=110)
