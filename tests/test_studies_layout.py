"""The studies live in locacal.studies; their former homes still serve old code."""

import inspect

import locacal
import locacal.trees
from locacal import studies
from locacal.recalibration import split
from locacal.recalibration.split import SLIDES_PROPORTIONS, TREE_PROPORTIONS


def test_old_import_paths_give_the_same_objects():
    import locacal.recalibration.study as old_study
    import locacal.trees as old_trees

    for name in set(old_trees.__all__) - {"METRICS", "SPLITS"}:
        assert getattr(old_trees, name) is getattr(studies, name), name
    assert old_trees.METRICS is studies.tree_grid.GRID_METRICS
    assert old_trees.HIST_EDGES is studies.tree_grid.HIST_EDGES
    for name in ("SPLITS", "FEATURES", "_n_leaves", "_pruned_leaves", "_pruned_predict", "_tree",
                 "cv_pruning_path"):
        assert getattr(old_trees, name) is getattr(studies.tree_models, name), name
    for name in old_study.__all__:
        assert getattr(old_study, name) is getattr(studies.recalibration, name)
    for name in ("tree_case_study", "tree_grid_study", "forest_grid_study", "run_simulation",
                 "real_data_study"):
        assert getattr(locacal, name) is getattr(studies, name)
    assert locacal.trees.tree_case_study is studies.tree_case_study


def test_split_fractions_are_defined_once():
    assert sum(SLIDES_PROPORTIONS) == 1 and sum(TREE_PROPORTIONS) == 1
    assert inspect.signature(split).parameters["proportions"].default is SLIDES_PROPORTIONS
    for func in (studies.tree_data, studies.tree_case_study):
        assert inspect.signature(func).parameters["proportions"].default is TREE_PROPORTIONS
    slides = studies.slides_recalibration_study
    assert inspect.signature(slides).parameters["proportions"].default is SLIDES_PROPORTIONS
