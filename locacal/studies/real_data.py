"""A case study on real data: are a GLM, a tree, a random forest and gradient boosting
calibrated, and what does recalibration change?

The data are statsmodels' ``fair`` data set (Fair 1978; 6,366 women surveyed by *Redbook*
in 1974), which ships with statsmodels, a dependency of locacal: the event is having had an
extramarital affair (``affairs > 0``, 32 % of the rows), predicted from the rating of the
marriage, age, years married, children, religiousness, education and the two occupations.
Its probabilities are spread over (0, 1), unlike those of easy benchmark data whose scores
pile at 0 and 1, so calibration is visible.

Following the slides' methodology (§4): models are fitted on *train* (60 %), recalibrated
on *calibration* (20 %), judged on *test* (20 %).

References
----------
Fair, R. C. (1978). A theory of extramarital affairs. *Journal of Political Economy* 86:
45–61. Machado, Charpentier, Flachaire, Gallic & Hu (2024), slides §4.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from locacal._validation import check_choice, check_seed
from locacal.studies._parallel import child_seeds

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["RealDataStudy", "load_fair", "plot_real_data_curves", "real_data_study"]

SPLITS = ("train", "calibration", "test")
#: Predictors of the ``fair`` data; occupations are categorical (1–6).
FAIR_FEATURES = ("rate_marriage", "age", "yrs_married", "children", "religious", "educ",
                 "occupation", "occupation_husb")
#: The GLM of the case study: a logistic regression with the occupations as factors.
GLM_FORMULA = ("label ~ rate_marriage + age + yrs_married + children + religious + educ"
               " + C(occupation) + C(occupation_husb)")
MODELS = ("GLM (logit)", "tree (CV-pruned)", "random forest", "gradient boosting")


def load_fair() -> pd.DataFrame:
    """statsmodels' ``fair`` data with the event ``label = 1`` when ``affairs > 0``.

    Returns
    -------
    DataFrame
        The eight predictors of :data:`FAIR_FEATURES`, ``affairs`` and ``label`` (0/1).
    """
    from statsmodels.datasets import fair

    frame = fair.load_pandas().data.copy()
    frame["label"] = (frame["affairs"] > 0).astype(np.int64)
    return frame


@dataclass(frozen=True, eq=False)
class RealDataStudy:
    """What :func:`real_data_study` returns.

    Attributes
    ----------
    table : DataFrame
        One row per (model, method, split): ``model``, then the columns of
        :attr:`RecalibrationResult.metrics <locacal.recalibration.workflow.RecalibrationResult>`
        (``method`` "uncalibrated" or a recalibration method, ``split``, ``n``, ``brier``,
        ``ece``, ``qmse``, ``lcs``, ``accuracy``, ``sensitivity``, ``specificity``, ``auc``).
    recalibrations : Mapping
        The :func:`~locacal.recalibration.recalibrate` result of each model.
    models : Mapping
        The fitted models.
    data : Mapping
        The train, calibration and test frames.
    params : Mapping
    """

    table: pd.DataFrame
    recalibrations: Mapping[str, Any]
    models: Mapping[str, Any]
    data: Mapping[str, pd.DataFrame]
    params: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("recalibrations", "models", "data", "params"):
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))

    def summary(self, split: str = "test",
                columns: Sequence[str] = ("brier", "lcs", "ece", "accuracy", "auc")
                ) -> pd.DataFrame:
        """Metrics of one split by (model, method): the table a report would show."""
        check_choice(split, SPLITS, "split")
        table = self.table[self.table["split"] == split]
        return table.set_index(["model", "method"])[list(columns)]

    def to_frame(self) -> pd.DataFrame:
        """The tidy metrics table (a copy of :attr:`table`)."""
        return self.table.copy()

    def plot(self, ax: Axes | None = None, *, metric: str = "lcs",
             split: str = "test") -> Axes:
        """``metric`` on ``split`` as grouped bars: one group per model, one bar per method
        (uncalibrated and each recalibration). Returns the Axes;
        :func:`plot_real_data_curves` draws the curves."""
        from locacal.plotting import plot_metric_bars

        return plot_metric_bars(self.summary(split, columns=(metric,)), metric, ax=ax)

    def _repr_html_(self) -> str:
        from locacal._repr import figure_html, frame_html, result_html

        figure = figure_html(lambda ax: self.plot(ax=ax), alt="LCS by model and method",
                             figsize=(4.4, 3.4))
        return result_html("RealDataStudy &mdash; test split", frame_html(self.summary(),
                           max_rows=40), figure=figure)


def _fit_models(train: pd.DataFrame, seed: np.random.SeedSequence) -> dict[str, Any]:
    """Fit the four models; each returns P(label = 1 | x) through ``score(frame)``."""
    import statsmodels.formula.api as smf
    from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier

    from locacal.studies.tree_models import cv_pruned_tree

    x = train[list(FAIR_FEATURES)].to_numpy()
    y = train["label"].to_numpy()
    forest_seed, boost_seed, tree_seed = (int(s.generate_state(1)[0]) for s in seed.spawn(3))
    return {
        "GLM (logit)": smf.logit(GLM_FORMULA, data=train).fit(disp=False),
        # rpart's default minimum leaf (minbucket = round(20 / 3) = 7), pruning by 10-fold CV
        "tree (CV-pruned)": cv_pruned_tree(x, y, min_leaf=7, cv=10, seed=tree_seed),
        "random forest": RandomForestClassifier(n_estimators=500, min_samples_leaf=5,
                                                random_state=forest_seed).fit(x, y),
        "gradient boosting": HistGradientBoostingClassifier(random_state=boost_seed).fit(x, y),
    }


def _scores(name: str, model: Any, frame: pd.DataFrame) -> np.ndarray:
    if name == "GLM (logit)":
        return np.asarray(model.predict(frame), dtype=np.float64)
    x = frame[list(FAIR_FEATURES)].to_numpy()
    if hasattr(model, "predict_proba"):
        return model.predict_proba(x)[:, 1]
    return np.clip(model.predict(x), 0.0, 1.0)


def real_data_study(
    *,
    proportions: Sequence[float] = (0.6, 0.2, 0.2),
    methods: Sequence[str] | Mapping[str, Any] = ("platt", "isotonic", "beta", "local"),
    seed: int = 1978,
) -> RealDataStudy:
    """Score the ``fair`` data (:func:`load_fair`) with four models, then measure and fix
    their calibration, in one call.

    Models, fitted on *train*:

    * a logistic GLM (statsmodels, unpenalised; :data:`GLM_FORMULA`, occupations as
      factors): calibrated in the large by construction (its score equations make the mean
      score equal the event rate on train);
    * a regression tree pruned by 10-fold cross-validation
      (:func:`locacal.studies.cv_pruned_tree`, leaves of at least 7 rows): few distinct scores;
    * a random forest of 500 classification trees (leaves of at least 5 rows), whose
      averaged votes are pulled away from 0 and 1;
    * gradient boosting (scikit-learn's histogram-based boosting, default settings).

    Each model's scores are recalibrated on *calibration* by
    :func:`locacal.recalibration.recalibrate` and every metric is read on each split.

    Parameters
    ----------
    proportions : three floats, default (0.6, 0.2, 0.2)
        Train, calibration and test shares (stratified on the label).
    methods : names or {name: estimator}
        Recalibration methods, as :func:`~locacal.recalibration.recalibrate` takes them.
    seed : int, default 1978
        Split and models.

    Returns
    -------
    RealDataStudy
    """
    from locacal.recalibration import recalibrate, split
    from locacal.recalibration.workflow import check_methods

    seed = check_seed(seed, kind="int")
    check_methods(methods)  # before the models are fitted
    split_seed, model_seed = child_seeds(seed, 2)
    frame = load_fair()
    parts = split(frame, proportions, seed=np.random.default_rng(split_seed), stratify="label")
    data = dict(zip(SPLITS, (p.reset_index(drop=True) for p in parts), strict=True))
    models = _fit_models(data["train"], model_seed)
    tables, recalibrations = [], {}
    for name, model in models.items():
        pairs = [(_scores(name, model, data[s]), data[s]["label"].to_numpy()) for s in SPLITS]
        result = recalibrate(*pairs, methods=methods)
        recalibrations[name] = result
        tables.append(result.metrics.assign(model=name))
    table = pd.concat(tables, ignore_index=True)
    table = table[["model", *(c for c in table.columns if c != "model")]]
    params = {"proportions": tuple(proportions), "seed": seed, "n": len(frame)}
    return RealDataStudy(table=table, recalibrations=recalibrations, models=models, data=data,
                         params=params)


def plot_real_data_curves(study: RealDataStudy, *, split: str = "test",
                          methods: Sequence[str] | None = None,
                          fig: Figure | None = None) -> np.ndarray:
    """One panel per model: the slides' local-regression calibration curves (degree 0,
    rectangular kernel, 15 % nearest neighbours) of the uncalibrated scores, with their 95 %
    band, and of each recalibration, on ``split``. Returns the figure's Axes, an array (the
    Figure is ``axes[0].figure``; returned itself, a notebook would draw it twice)."""
    import matplotlib.pyplot as plt

    from locacal.curves import calibration_curve
    from locacal.curves.local import SLIDES_LOCAL

    check_choice(split, SPLITS, "split")
    names = list(study.recalibrations)
    if fig is None:
        fig = plt.figure(figsize=(3.6 * len(names), 3.8), layout="constrained")
    axes = np.atleast_1d(fig.subplots(1, len(names), sharey=True))
    for ax, name in zip(axes, names, strict=True):
        frame = study.recalibrations[name].scores[split]
        chosen = [c for c in frame.columns if c not in ("label", "true_p")]
        if methods is not None:
            chosen = ["uncalibrated", *(m for m in methods if m != "uncalibrated")]
        for i, method in enumerate(chosen):
            check_choice(method, tuple(frame.columns), "methods")
            curve = calibration_curve(frame[method], frame["label"], method="local",
                                      **SLIDES_LOCAL)
            curve.plot(ax=ax, band=method == "uncalibrated", diagonal=i == 0, label=method)
        ax.set(title=name, xlabel="score", xlim=(0, 1), ylim=(0, 1))
    axes[0].set_ylabel("E[D | score]")
    axes[-1].legend(fontsize="small")
    return np.asarray(fig.axes)
