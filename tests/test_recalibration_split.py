"""split(): train / calibration / test partitions."""

import inspect

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from locacal import studies
from locacal.recalibration import split
from locacal.recalibration.split import SLIDES_PROPORTIONS, TREE_PROPORTIONS


def test_study_sizes_and_partition():
    df = pd.DataFrame({"score": np.linspace(0, 1, 2000), "label": np.arange(2000) % 2})
    train, cal, test = split(df, seed=1)
    assert (len(train), len(cal), len(test)) == (1200, 400, 400)  # the 2024 study's split
    idx = np.concatenate([train.index, cal.index, test.index])
    np.testing.assert_array_equal(np.sort(idx), np.arange(2000))
    for part in (train, cal, test):  # rows keep their order
        assert part.index.is_monotonic_increasing
        pd.testing.assert_frame_equal(part, df.loc[part.index])


def test_seed_reproduces_and_changes_the_split():
    x = np.arange(100)
    a = split(x, seed=3)
    b = split(x, seed=3)
    c = split(x, seed=4)
    for u, v in zip(a, b, strict=True):
        np.testing.assert_array_equal(u, v)
    assert not np.array_equal(a[1], c[1])
    np.testing.assert_array_equal(split(x, seed=np.random.default_rng(3))[1], a[1])


def test_tuple_of_arrays_split_alike():
    s = np.linspace(0, 1, 50)
    y = (np.arange(50) % 3 == 0).astype(int)
    train, cal, test = split((s, pd.Series(y), list(range(50))), proportions=(0.5, 0.3, 0.2),
                             seed=0)
    assert [len(p[0]) for p in (train, cal, test)] == [25, 15, 10]
    for s_part, y_part, i_part in (train, cal, test):
        np.testing.assert_array_equal(s_part, s[i_part])
        np.testing.assert_array_equal(y_part.to_numpy(), y[i_part])


def test_stratify_keeps_the_event_rate():
    y = np.r_[np.ones(100), np.zeros(900)].astype(int)
    train, cal, test = split((np.arange(1000), y), seed=0, stratify=y)
    assert [p[1].sum() for p in (train, cal, test)] == [60, 20, 20]
    df = pd.DataFrame({"label": np.where(y == 1, "yes", "no")})
    train, cal, test = split(df, seed=0, stratify="label")
    assert [(p.label == "yes").sum() for p in (train, cal, test)] == [60, 20, 20]


@pytest.mark.parametrize(
    ("data", "kwargs", "error", "match"),
    [
        (np.arange(10), {"proportions": (0.6, 0.3, 0.2)}, ValueError, "sum to 1"),
        (np.arange(10), {"proportions": (0.8, 0.2)}, ValueError, "three numbers"),
        (np.arange(10), {"proportions": (1.2, -0.1, -0.1)}, ValueError, "positive"),
        (np.arange(2), {}, ValueError, "split is empty"),
        ((np.arange(5), np.arange(6)), {}, ValueError, "different lengths"),
        ("abc", {}, TypeError, "data_or_arrays must be"),
        (np.arange(10), {"stratify": np.arange(9)}, ValueError, "stratify has length 9"),
        (np.arange(10), {"stratify": "label"}, TypeError, "only when data_or_arrays"),
        (pd.DataFrame({"a": range(10)}), {"stratify": "label"}, ValueError, "names no column"),
        (np.arange(3), {"stratify": [1.0, np.nan, 1.0]}, ValueError, "missing value"),
    ],
)
def test_bad_input(data, kwargs, error, match):
    with pytest.raises(error, match=match):
        split(data, seed=0, **kwargs)


def test_seed_is_required():
    with pytest.raises(TypeError):
        split(np.arange(10))  # type: ignore[call-arg]


@settings(max_examples=50, deadline=None)
@given(st.integers(10, 500), st.integers(0, 2**32 - 1),
       st.tuples(st.integers(1, 10), st.integers(1, 10), st.integers(1, 10)))
def test_partition_property(n, seed, weights):
    p = np.array(weights) / sum(weights)
    try:
        parts = split(np.arange(n), proportions=tuple(p), seed=seed)
    except ValueError as exc:  # too few rows for a share: only then
        assert "empty" in str(exc)
        assert min(np.floor(p[1:] * n + 0.5)) == 0 or n - np.floor(p[1:] * n + 0.5).sum() <= 0
        return
    np.testing.assert_array_equal(np.sort(np.concatenate(parts)), np.arange(n))
    assert len(parts[1]) == np.floor(p[1] * n + 0.5)
    assert len(parts[2]) == np.floor(p[2] * n + 0.5)


def test_split_fractions_are_defined_once():
    assert sum(SLIDES_PROPORTIONS) == 1 and sum(TREE_PROPORTIONS) == 1
    assert inspect.signature(split).parameters["proportions"].default is SLIDES_PROPORTIONS
    for func in (studies.tree_data, studies.tree_case_study):
        assert inspect.signature(func).parameters["proportions"].default is TREE_PROPORTIONS
    slides = studies.slides_recalibration_study
    assert inspect.signature(slides).parameters["proportions"].default is SLIDES_PROPORTIONS
