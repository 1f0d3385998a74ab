"""The source studies, each rerun with one call: tidy tables out, and their figures.

* :mod:`~locacal.studies.simulation`: the 2024 slides' §3 simulation (distortions α and γ).
* :mod:`~locacal.studies.thesis`: the thesis's §4.3 experiments (bin size, sample size).
* :mod:`~locacal.studies.real_data`: four models on real data (statsmodels' ``fair``),
  their calibration and its repair.

The tree-based case studies of the slides' §5 are in :mod:`locacal.trees`.
"""

from locacal.studies.real_data import (
    RealDataStudy,
    load_fair,
    plot_real_data_curves,
    real_data_study,
)
from locacal.studies.simulation import (
    SimulationResult,
    plot_simulation_curves,
    plot_simulation_metrics,
    plot_simulation_standard_metrics,
    run_simulation,
)
from locacal.studies.thesis import (
    bin_size_study,
    plot_bin_size_study,
    plot_sample_size_study,
    sample_size_study,
)

__all__ = [
    "RealDataStudy",
    "SimulationResult",
    "bin_size_study",
    "load_fair",
    "plot_bin_size_study",
    "plot_real_data_curves",
    "plot_sample_size_study",
    "plot_simulation_curves",
    "plot_simulation_metrics",
    "plot_simulation_standard_metrics",
    "real_data_study",
    "run_simulation",
    "sample_size_study",
]
