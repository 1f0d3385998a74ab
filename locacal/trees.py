"""Kept for old code: the tree-based case studies moved to :mod:`locacal.studies`.

``locacal.trees.X`` and ``from locacal.trees import X`` keep working for every name below;
new code imports them from :mod:`locacal.studies` (or the module named next to each):

* data and trees: :mod:`locacal.studies.tree_models` (``tree_data``, ``rpart_tree``,
  ``cv_pruning_path``, ``cv_pruned_tree``, ``SPLITS``, ``FEATURES``);
* the case study: :mod:`locacal.studies.tree_case` (``tree_case_study``, ``TreeCaseStudy``);
* the grid studies: :mod:`locacal.studies.tree_grid` (``tree_grid_study``,
  ``forest_grid_study``, ``GridStudy``, ``DEFAULT_CPS``, ``HIST_EDGES``; ``METRICS`` here is
  ``GRID_METRICS`` there);
* the figures: :mod:`locacal.studies.tree_figures` (``plot_score_distributions``,
  ``plot_metrics_vs_leaves``).
"""

from locacal.studies.tree_case import TreeCaseStudy, tree_case_study
from locacal.studies.tree_figures import plot_metrics_vs_leaves, plot_score_distributions
from locacal.studies.tree_grid import (
    DEFAULT_CPS,
    GRID_METRICS,
    GridStudy,
    forest_grid_study,
    tree_grid_study,
)
from locacal.studies.tree_grid import HIST_EDGES as HIST_EDGES
from locacal.studies.tree_models import FEATURES as FEATURES
from locacal.studies.tree_models import (
    SPLITS,
    cv_pruned_tree,
    rpart_tree,
    tree_data,
)
from locacal.studies.tree_models import _n_leaves as _n_leaves  # the pruning tests use these
from locacal.studies.tree_models import _pruned_leaves as _pruned_leaves
from locacal.studies.tree_models import _pruned_predict as _pruned_predict
from locacal.studies.tree_models import _tree as _tree
from locacal.studies.tree_models import cv_pruning_path as cv_pruning_path

#: Old name of :data:`locacal.studies.tree_grid.GRID_METRICS`.
METRICS = GRID_METRICS

__all__ = [
    "DEFAULT_CPS",
    "METRICS",
    "SPLITS",
    "GridStudy",
    "TreeCaseStudy",
    "cv_pruned_tree",
    "forest_grid_study",
    "plot_metrics_vs_leaves",
    "plot_score_distributions",
    "rpart_tree",
    "tree_case_study",
    "tree_data",
    "tree_grid_study",
]
