"""Decision curves and Murphy diagrams (issue 19, part 1).

* parity with the Python package ``dcurves`` (1.1.7): a stored reference (its inputs as exact
  decimals and dcurves' output; ``python -m tests.test_decision`` rewrites it) and a live run
  when dcurves is installed (it is in the test extra);
* the net benefit and the elementary score against their definitions, summed row by row;
* the decomposition: >= 0, 0 for isotonic scores, the recalibrated net benefit is the best
  cutoff rule's, and twice the integral of ``elementary_mcb`` is CORP's MCB (exactly, by the
  midpoint rule on the pieces where the diagram is linear);
* weights (only w / sum w matters), frequency weights (= the expanded call), several models;
* a seeded small version of benchmarks/accuracy_decision.py (estimates against the population
  values of a known data-generating process);
* bad input.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from locacal import CalibrationWarning, corp_decomposition, decision_curve, murphy_diagram
from locacal.metrics.decision import DecisionCurve, MurphyDiagram

REFERENCE = Path(__file__).resolve().parent / "reference" / "dcurves_decision.json"
TH = np.arange(1, 100) / 100.0


def _sample(seed: int, n: int = 300, *, digits: int | None = 2):
    """Scores with ties (rounded to ``digits``), some exactly 0 and 1 and some equal to a
    threshold, and labels from a miscalibrated truth."""
    rng = np.random.default_rng(seed)
    s = rng.beta(2.0, 4.0, n)
    if digits is not None:
        s = np.round(s, digits)
    s[:4] = [0.0, 1.0, 0.25, 0.5]
    y = (rng.uniform(size=n) < np.sqrt(s)).astype(float)
    return s, y


def _brute_force(s, y, w, t):
    """TP, FP, FN (weighted) of "treat if s >= t", summed row by row."""
    treat = s >= t
    return (np.sum(w * y * treat), np.sum(w * (1 - y) * treat), np.sum(w * y * ~treat))


# --- dcurves --------------------------------------------------------------------------------


def _dcurves(models: dict[str, np.ndarray], y: np.ndarray, thresholds: np.ndarray) -> dict:
    """dcurves' net benefit of each model, of 'all' and 'none', per threshold."""
    from dcurves import dca

    data = pd.DataFrame({"outcome": y.astype(int), **models})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = dca(data=data, outcome="outcome", modelnames=list(models),
                  thresholds=list(thresholds))
    return {m: out.loc[out["model"] == m, "net_benefit"].to_numpy(dtype=float).tolist()
            for m in [*models, "all", "none"]}


def _reference_cases() -> dict[str, dict]:
    """The inputs of the stored reference: rounded scores (ties, 0, 1, scores on a
    threshold) for two models, and unrounded scores with a rare event."""
    s, y = _sample(19)
    rng = np.random.default_rng(190)
    other = np.clip(np.round(s + rng.normal(0, 0.1, s.size), 2), 0, 1)
    rare_s = np.random.default_rng(191).uniform(size=200)
    rare_y = (np.random.default_rng(192).uniform(size=200) < 0.2 * rare_s).astype(float)
    return {
        "ties_two_models": {"models": {"a": s, "b": other}, "labels": y, "thresholds": TH},
        "rare_event": {"models": {"a": rare_s}, "labels": rare_y,
                       "thresholds": np.arange(1, 40) / 40.0},
    }


def write_reference() -> None:
    """Run dcurves on the reference cases and store inputs and output (exact decimals)."""
    import dcurves

    cases = {}
    for name, case in _reference_cases().items():
        cases[name] = {
            "models": {m: v.tolist() for m, v in case["models"].items()},
            "labels": case["labels"].tolist(),
            "thresholds": case["thresholds"].tolist(),
            "net_benefit": _dcurves(case["models"], case["labels"], case["thresholds"]),
        }
    # one line per array: short diffs, shortest round-trip decimals (exact float64)
    lines = [f'{{"dcurves": {json.dumps(dcurves.__version__)}, "cases": {{']
    for k, (name, case) in enumerate(cases.items()):
        fields = [f'  {json.dumps(key)}: {json.dumps(value)}' for key, value in case.items()]
        lines.append(f"{json.dumps(name)}: {{\n" + ",\n".join(fields) + "\n}"
                     + ("," if k < len(cases) - 1 else ""))
    REFERENCE.write_text("\n".join(lines) + "\n}}\n")


def _check_against(case: dict, out: dict) -> None:
    models = {m: np.asarray(v, dtype=float) for m, v in case["models"].items()}
    table = decision_curve(models, case["labels"], thresholds=case["thresholds"]).table
    for m in models:
        rows = table[table["model"] == m]
        np.testing.assert_array_equal(rows["threshold"], case["thresholds"])
        np.testing.assert_allclose(rows["net_benefit"], out[m], rtol=0, atol=1e-12)
        np.testing.assert_allclose(rows["treat_all"], out["all"], rtol=0, atol=1e-12)
        np.testing.assert_allclose(rows["treat_none"], out["none"], rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", ["ties_two_models", "rare_event"])
def test_equals_the_stored_dcurves_reference(name):
    stored = json.loads(REFERENCE.read_text())
    case = stored["cases"][name]
    _check_against(case, case["net_benefit"])


def test_the_stored_inputs_are_the_generated_ones():
    stored = json.loads(REFERENCE.read_text())["cases"]
    for name, case in _reference_cases().items():
        for m, v in case["models"].items():
            np.testing.assert_array_equal(stored[name]["models"][m], v)
        np.testing.assert_array_equal(stored[name]["labels"], case["labels"])


@pytest.mark.parametrize("name", ["ties_two_models", "rare_event"])
def test_equals_dcurves_run_now(name):
    pytest.importorskip("dcurves")
    case = _reference_cases()[name]
    _check_against({"models": case["models"], "labels": case["labels"],
                    "thresholds": case["thresholds"]},
                   _dcurves(case["models"], case["labels"], case["thresholds"]))


def test_equals_dcurves_on_its_own_example_data():
    dcurves = pytest.importorskip("dcurves")
    data = pd.read_csv(Path(dcurves.data) / "df_binary.csv")
    y = data["cancer"].astype(float).to_numpy()
    models = {"cancerpredmarker": data["cancerpredmarker"].to_numpy(),
              "famhistory": data["famhistory"].astype(float).to_numpy()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # famhistory is 0/1: a class-prediction warning
        _check_against({"models": models, "labels": y, "thresholds": TH},
                       _dcurves(models, y, TH))


# --- definitions ----------------------------------------------------------------------------


def test_net_benefit_and_elementary_score_follow_their_definitions():
    s, y = _sample(1, 120)
    w = np.random.default_rng(2).uniform(0.2, 3.0, s.size)
    t = np.array([0.05, 0.25, 0.33, 0.5, 0.77, 0.95])
    nb = decision_curve(s, y, thresholds=t, weights=w).table
    md = murphy_diagram(s, y, thresholds=t, weights=w).table
    total, rate = w.sum(), np.sum(w * y) / w.sum()
    for k, tk in enumerate(t):
        tp, fp, _ = _brute_force(s, y, w, tk)
        assert nb["net_benefit"][k] == pytest.approx(tp / total - fp / total * tk / (1 - tk),
                                                     abs=1e-14)
        assert nb["treat_all"][k] == pytest.approx(rate - (1 - rate) * tk / (1 - tk),
                                                   abs=1e-14)
        # Ehm et al.'s S_t(x, y) = (1{y < t} - 1{x < t}) (t - y), averaged
        elementary = np.sum(w * ((y < tk).astype(float) - (s < tk)) * (tk - y)) / total
        assert md["elementary_score"][k] == pytest.approx(elementary, abs=1e-14)
        assert md["elementary_score"][k] == pytest.approx(
            (1 - tk) * (rate - nb["net_benefit"][k]), abs=1e-14)
    assert (nb["treat_none"] == 0).all()


def test_a_score_equal_to_the_threshold_is_treated():
    # one event at 0.3: treated at t = 0.3 (NB = 1/2), not at the next float above
    s, y = [0.3, 0.1], [1, 0]
    t = [0.3, np.nextafter(0.3, 1.0)]
    nb = decision_curve(s, y, thresholds=t).table["net_benefit"]
    assert nb.tolist() == [0.5, 0.0]


def test_thresholds_are_sorted_and_deduplicated():
    s, y = _sample(3, 50)
    a = decision_curve(s, y, thresholds=[0.5, 0.2, 0.5]).table
    b = decision_curve(s, y, thresholds=[0.2, 0.5]).table
    pd.testing.assert_frame_equal(a, b)
    assert decision_curve(s, y, thresholds=0.3).table.shape[0] == 1
    assert decision_curve(s, y).table["threshold"].tolist() == TH.tolist()


# --- the decomposition ----------------------------------------------------------------------


def _breakpoints(s, y, w=None):
    """Where a Murphy diagram or its decomposition can jump: the scores, their PAV
    recalibration and the event rate; in between every term is linear in t."""
    from locacal import IsotonicCalibrator

    fitted = IsotonicCalibrator().fit(s, y, sample_weight=w).predict(s)
    rate = np.average(y, weights=w)
    b = np.unique(np.concatenate([[0.0, 1.0, rate], s, fitted]))
    return b[(b >= 0) & (b <= 1)]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("weighted", [False, True])
def test_twice_the_integral_of_each_term_is_corps(seed, weighted):
    s, y = _sample(seed, 400, digits=2 if seed else None)
    w = np.random.default_rng(seed + 10).uniform(0.1, 2.0, s.size) if weighted else None
    b = _breakpoints(s, y, w)
    mid, width = (b[1:] + b[:-1]) / 2, np.diff(b)
    md = murphy_diagram(s, y, thresholds=mid, weights=w, decompose=True).table
    dc = decision_curve(s, y, thresholds=mid, weights=w, decompose=True).table
    corp = corp_decomposition(s, y, weights=w)
    # midpoint rule on linear pieces: exact up to rounding (measured 6e-17 at worst)
    assert 2 * np.sum(dc["elementary_mcb"] * width) == pytest.approx(corp["mcb"], abs=1e-12)
    assert 2 * np.sum(md["mcb"] * width) == pytest.approx(corp["mcb"], abs=1e-12)
    assert 2 * np.sum(md["dsc"] * width) == pytest.approx(corp["dsc"], abs=1e-12)
    assert 2 * np.sum(md["unc"] * width) == pytest.approx(corp["unc"], abs=1e-12)
    assert 2 * np.sum(md["elementary_score"] * width) == pytest.approx(corp["score"],
                                                                        abs=1e-12)
    # and in net-benefit units with the factor (1 - t)
    loss = dc["miscalibration_loss"] * (1 - mid)
    assert 2 * np.sum(loss * width) == pytest.approx(corp["mcb"], abs=1e-12)
    np.testing.assert_allclose(md["elementary_score"], md["mcb"] - md["dsc"] + md["unc"],
                               rtol=0, atol=1e-15)


def test_a_fine_grid_approximates_the_identity():
    s, y = _sample(4, 2000, digits=None)
    t = (np.arange(20000) + 0.5) / 20000
    dc = decision_curve(s, y, thresholds=t, decompose=True).table
    # the midpoint rule across the jumps of the diagram: measured error 4.6e-7 here
    assert 2 * dc["elementary_mcb"].mean() == pytest.approx(
        corp_decomposition(s, y)["mcb"], abs=2e-5)


@pytest.mark.parametrize("seed", range(6))
def test_the_loss_is_nonnegative_and_the_recalibrated_rule_is_the_best_cutoff(seed):
    s, y = _sample(seed, 150, digits=2 if seed % 2 else None)
    dc = decision_curve(s, y, decompose=True).table
    assert (dc["miscalibration_loss"] >= 0).all()
    assert (dc["elementary_mcb"] >= 0).all()
    np.testing.assert_allclose(dc["net_benefit_recalibrated"] - dc["net_benefit"],
                               dc["miscalibration_loss"], rtol=0, atol=1e-13)
    np.testing.assert_allclose(dc["elementary_mcb"],
                               dc["miscalibration_loss"] * (1 - dc["threshold"]),
                               rtol=0, atol=1e-15)
    # the best rule "treat if s >= c" over every cutoff c (the distinct scores and "never")
    cutoffs = np.append(np.unique(s), 2.0)
    ones = np.ones(s.size)
    for k, t in enumerate(TH):
        best = max(tp - fp * t / (1 - t)
                   for tp, fp, _ in (_brute_force(s, y, ones, c) for c in cutoffs)) / s.size
        assert dc["net_benefit_recalibrated"][k] == pytest.approx(best, abs=1e-13)


_ROWS = st.lists(st.tuples(st.sampled_from([0.0, 0.05, 0.2, 0.35, 0.5, 0.5 + 1e-12, 0.8, 1.0]),
                           st.integers(0, 1), st.integers(1, 3)), min_size=2, max_size=25)


@settings(max_examples=60, deadline=None)
@given(_ROWS, st.randoms(use_true_random=False))
def test_invariants_on_small_samples(rows, random):
    """Row order does not matter, the loss is >= 0 and the recalibrated net benefit is the
    best cutoff rule's, with weights, on scores with ties and at 0, 1 and a threshold."""
    s, y, w = (np.array(c, dtype=float) for c in zip(*rows, strict=True))
    t = np.array([0.05, 0.2, 0.3, 0.5, 0.9])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # one class, one distinct score, class predictions
        a = decision_curve(s, y, thresholds=t, weights=w, decompose=True).table
        perm = np.array(random.sample(range(s.size), s.size))
        b = decision_curve(s[perm], y[perm], thresholds=t, weights=w[perm],
                           decompose=True).table
    pd.testing.assert_frame_equal(a, b, rtol=0, atol=1e-13)
    assert (a["miscalibration_loss"] >= 0).all()
    cutoffs = np.append(np.unique(s), 2.0)
    for k, tk in enumerate(t):
        best = max(tp - fp * tk / (1 - tk)
                   for tp, fp, _ in (_brute_force(s, y, w, c) for c in cutoffs)) / w.sum()
        assert a["net_benefit_recalibrated"][k] == pytest.approx(best, abs=1e-13)


def test_isotonic_scores_lose_nothing():
    from locacal import IsotonicCalibrator

    s, y = _sample(5, 500, digits=None)
    fitted = IsotonicCalibrator().fit(s, y).predict(s)  # in-sample PAV fit: isotonic
    dc = decision_curve(fitted, y, decompose=True).table
    assert (dc["miscalibration_loss"] == 0).all()
    assert corp_decomposition(fitted, y)["mcb"] == pytest.approx(0, abs=1e-15)
    np.testing.assert_allclose(dc["net_benefit_recalibrated"], dc["net_benefit"],
                               rtol=0, atol=1e-15)


def test_a_miscalibrated_score_loses_where_its_threshold_is_wrong():
    # scores twice the truth (over-predicting): at t near the high scores the treated
    # non-events outweigh the events; the recalibrated rule treats fewer
    rng = np.random.default_rng(6)
    p = rng.uniform(0, 0.5, 4000)
    y = (rng.uniform(size=p.size) < p).astype(float)
    dc = decision_curve(2 * p, y, thresholds=[0.3, 0.6], decompose=True).table
    assert (dc["miscalibration_loss"] > 0.005).all()


# --- weights and several models -------------------------------------------------------------


def test_weights_are_relative_and_integer_weights_duplicate_rows():
    s, y = _sample(7, 80)
    w = np.random.default_rng(8).integers(1, 4, s.size).astype(float)
    a = decision_curve(s, y, weights=w, decompose=True).table
    b = decision_curve(s, y, weights=7.5 * w, decompose=True).table
    c = decision_curve(np.repeat(s, w.astype(int)), np.repeat(y, w.astype(int)),
                       decompose=True).table
    pd.testing.assert_frame_equal(a, b, rtol=0, atol=1e-14)
    pd.testing.assert_frame_equal(a, c, rtol=0, atol=1e-14)


def test_frequency_weights_equal_the_expanded_call():
    s, y = _sample(9, 80)
    f = np.random.default_rng(10).integers(0, 5, s.size)
    w = np.random.default_rng(11).uniform(0.5, 2.0, s.size)
    expanded = {"scores": np.repeat(s, f), "labels": np.repeat(y, f)}
    for func in (decision_curve, murphy_diagram):
        a = func(s, y, frequency_weights=f, decompose=True).table
        b = func(**expanded, decompose=True).table
        pd.testing.assert_frame_equal(a, b, rtol=0, atol=1e-14)
        a = func(s, y, weights=w, frequency_weights=f, decompose=True).table
        b = func(**expanded, weights=np.repeat(w, f), decompose=True).table
        pd.testing.assert_frame_equal(a, b, rtol=0, atol=1e-14)


def test_several_models_equal_separate_calls():
    s, y = _sample(12, 100)
    other = np.clip(s * 0.5 + 0.1, 0, 1)
    by_dict = decision_curve({"first": s, "second": other}, y, decompose=True)
    by_frame = decision_curve(pd.DataFrame({"first": s, "second": other}), y,
                              decompose=True)
    pd.testing.assert_frame_equal(by_dict.table, by_frame.table)
    assert by_dict.models == ["first", "second"]
    one = decision_curve(pd.Series(other, name="second"), y, decompose=True).table
    rows = by_dict.table[by_dict.table["model"] == "second"].reset_index(drop=True)
    pd.testing.assert_frame_equal(rows, one)
    assert decision_curve(s, y).models == ["model"]
    md = murphy_diagram({"first": s, "second": other}, y)
    assert md.models == ["first", "second"]


def test_results_show_themselves():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    s, y = _sample(13, 100)
    dc = decision_curve({"a": s, "b": np.sqrt(s)}, y, decompose=True)
    assert isinstance(dc, DecisionCurve)
    ax = dc.plot()
    labels = [line.get_label() for line in ax.get_lines()]
    assert labels == ["treat all", "treat none", "a", "a, recalibrated (PAV)", "b",
                      "b, recalibrated (PAV)"]
    plt.close(ax.figure)
    ax = decision_curve(s, y).plot()
    assert [line.get_label() for line in ax.get_lines()] == ["treat all", "treat none",
                                                             "model"]
    plt.close(ax.figure)
    html = dc._repr_html_()
    assert "Decision curve" in html and "<img" in html and "miscalibration_loss" in html
    md = murphy_diagram({"a": s, "b": np.sqrt(s)}, y, decompose=True)
    assert isinstance(md, MurphyDiagram)
    ax = md.plot()
    assert len(ax.get_lines()) == 4
    plt.close(ax.figure)
    assert "Murphy diagram" in md._repr_html_()
    assert dc.to_frame() is not dc.table


# --- accuracy (small version of benchmarks/accuracy_decision.py) ----------------------------


def test_estimates_approach_the_population_values():
    from benchmarks.accuracy_decision import DGPS, estimate_errors

    # 40 replicates of n = 2000 per DGP, measured: mean absolute error of the net benefit
    # 0.0072-0.0082, of the loss 0.0028-0.0045; the in-sample MCB is biased upwards by
    # 0.0028-0.0032 (the PAV fit is judged on its own data), the population MCB being 0,
    # 0.0068 and 0.020
    for dgp in DGPS:
        err = estimate_errors(dgp, n=2000, reps=40, seed=19)
        assert err["nb_mae"] < 0.012, dgp
        assert err["loss_mae"] < 0.008, dgp
        assert 0 < err["mcb_bias"] < 0.005, dgp


# --- bad input ------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [0.0, 1.0, -0.1, 1.5, np.nan, [0.2, 1.0], [0.2, np.inf]])
def test_thresholds_outside_the_open_unit_interval_are_refused(bad):
    s, y = _sample(14, 30)
    for func in (decision_curve, murphy_diagram):
        with pytest.raises(ValueError, match="thresholds"):
            func(s, y, thresholds=bad)


@pytest.mark.parametrize("bad, error", [([], ValueError), ("0.5", TypeError),
                                        ([["a"]], TypeError), (np.ones((2, 2)) / 3,
                                                               ValueError)])
def test_malformed_thresholds_are_refused(bad, error):
    s, y = _sample(15, 30)
    with pytest.raises(error, match="thresholds"):
        decision_curve(s, y, thresholds=bad)


def test_bad_models_and_counts_are_refused():
    s, y = _sample(16, 30)
    with pytest.raises(ValueError, match="at least one model"):
        decision_curve({}, y)
    with pytest.raises(ValueError, match=r"scores\['b'\]"):
        decision_curve({"a": s, "b": s + 2}, y)
    with pytest.raises(ValueError, match=r"scores\['b'\] has length|length"):
        decision_curve({"a": s, "b": s[:-1]}, y)
    with pytest.raises(ValueError, match="frequency_weights"):
        decision_curve(s, y, frequency_weights=np.full(s.size, 1.5))
    with pytest.raises(ValueError, match="frequency_weights"):
        murphy_diagram(s, y, frequency_weights=-np.ones(s.size))
    with pytest.raises(ValueError, match="zero on every row"), \
            pytest.warns(CalibrationWarning, match="single class"):
        decision_curve(s, y, weights=np.r_[1.0, np.zeros(s.size - 1)],
                       frequency_weights=np.r_[0.0, np.ones(s.size - 1)])
    with pytest.raises(TypeError, match="decompose"):
        decision_curve(s, y, decompose="yes")


if __name__ == "__main__":
    write_reference()
    print(f"wrote {REFERENCE}")
