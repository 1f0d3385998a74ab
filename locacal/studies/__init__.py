"""The source studies, each rerun with one call: tidy tables out, and their figures.

* :mod:`~locacal.studies.miscalibration`: the 2024 slides' §3 simulation (distortions α and γ).
* :mod:`~locacal.studies.thesis`: the thesis's §4.3 experiments (bin size, sample size).
* :mod:`~locacal.studies.real_data`: four models on real data (statsmodels' ``fair``),
  their calibration and its repair.
* :mod:`~locacal.studies.recalibration`: the slides' §3-4 recalibration study (Figure 7) and
  the calibrated-scores setting where Platt scaling's caveat bites.
* the slides' §5 tree studies: :mod:`~locacal.studies.tree_models` (data, rpart's tree, CV
  pruning), :mod:`~locacal.studies.tree_case` (the case study), :mod:`~locacal.studies.tree_grid`
  (tree and forest grids) and :mod:`~locacal.studies.tree_figures`.
* :mod:`~locacal.studies.optimism`: optimism-corrected internal validation of any
  scikit-learn classifier (``rms::validate`` and ``rms::calibrate``).

Every name is importable from here.
"""

from locacal.studies.miscalibration import (
    SimulationResult,
    plot_simulation_curves,
    plot_simulation_metrics,
    plot_simulation_standard_metrics,
    run_simulation,
)
from locacal.studies.optimism import InternalValidation, internal_validation
from locacal.studies.real_data import (
    RealDataStudy,
    load_fair,
    plot_real_data_curves,
    real_data_study,
)
from locacal.studies.recalibration import (
    calibrated_scores_study,
    slides_recalibration_study,
    study_summary,
)
from locacal.studies.thesis import (
    bin_size_study,
    plot_bin_size_study,
    plot_sample_size_study,
    sample_size_study,
)
from locacal.studies.tree_case import TreeCaseStudy, tree_case_study
from locacal.studies.tree_figures import plot_metrics_vs_leaves, plot_score_distributions
from locacal.studies.tree_grid import DEFAULT_CPS, GridStudy, forest_grid_study, tree_grid_study
from locacal.studies.tree_models import cv_pruned_tree, cv_pruning_path, rpart_tree, tree_data

__all__ = [
    "DEFAULT_CPS",
    "GridStudy",
    "InternalValidation",
    "RealDataStudy",
    "SimulationResult",
    "TreeCaseStudy",
    "bin_size_study",
    "calibrated_scores_study",
    "cv_pruned_tree",
    "cv_pruning_path",
    "forest_grid_study",
    "internal_validation",
    "load_fair",
    "plot_bin_size_study",
    "plot_metrics_vs_leaves",
    "plot_real_data_curves",
    "plot_sample_size_study",
    "plot_score_distributions",
    "plot_simulation_curves",
    "plot_simulation_metrics",
    "plot_simulation_standard_metrics",
    "real_data_study",
    "rpart_tree",
    "run_simulation",
    "sample_size_study",
    "slides_recalibration_study",
    "study_summary",
    "tree_case_study",
    "tree_data",
    "tree_grid_study",
]
