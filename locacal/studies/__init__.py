"""The source studies, each rerun with one call: tidy tables out, and their figures.

* :mod:`~locacal.studies.simulation`: the 2024 slides' §3 simulation (distortions α and γ).
* :mod:`~locacal.studies.thesis`: the thesis's §4.3 experiments (bin size, sample size).

The tree-based case studies of the slides' §5 are in :mod:`locacal.trees`.
"""

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
    "SimulationResult",
    "bin_size_study",
    "plot_bin_size_study",
    "plot_sample_size_study",
    "plot_simulation_curves",
    "plot_simulation_metrics",
    "plot_simulation_standard_metrics",
    "run_simulation",
    "sample_size_study",
]
