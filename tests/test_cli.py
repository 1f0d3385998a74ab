"""``locacal report``: the four files, their contents, bad input, atomic output."""

from __future__ import annotations

import base64
import html
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from locacal.cli import METRICS_CSV_COLUMNS, OUTPUT_FILES, main
from locacal.metrics.registry import METRICS
from locacal.report.table import REPORT_COLUMNS

ROOT = Path(__file__).resolve().parents[1]
#: The report's metrics on the command line (no true probabilities there: no true MSE).
CLI_METRICS = [m for m in REPORT_COLUMNS if m != "true_mse"]


@pytest.fixture
def data(tmp_path: Path) -> tuple[Path, pd.DataFrame]:
    rng = np.random.default_rng(11)
    n = 400
    p = rng.uniform(0.02, 0.98, n)
    y = rng.binomial(1, p)
    frame = pd.DataFrame({
        "good": p, "over": p**3, "y": y, "outcome": np.where(y == 1, "sick", "well"),
        "w": rng.uniform(0.5, 2.0, n),
    })
    path = tmp_path / "data.csv"
    frame.to_csv(path, index=False)
    return path, frame


def _run(*argv: str | Path) -> int:
    return main([str(a) for a in argv])


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_one_score_column_writes_the_four_files(data, tmp_path):
    path, frame = data
    out = tmp_path / "out"
    assert _run("report", path, "--score", "good", "--label", "y", "--n-boot", "20",
                "--seed", "0", "--quiet", "--out", out) == 0
    assert sorted(p.name for p in out.iterdir()) == sorted(OUTPUT_FILES)
    assert _leftovers(tmp_path) == []

    metrics = pd.read_csv(out / "metrics.csv")
    assert tuple(metrics.columns) == METRICS_CSV_COLUMNS
    assert set(metrics["model"]) == {"good"}
    assert list(metrics["metric"]) == CLI_METRICS
    by_metric = metrics.set_index("metric")
    # closed forms on the data themselves
    p, y = frame["good"].to_numpy(), frame["y"].to_numpy()
    assert by_metric.loc["n", "value"] == len(frame)
    assert by_metric.loc["brier", "value"] == pytest.approx(np.mean((p - y) ** 2), rel=1e-12)
    ci = by_metric.dropna(subset=["lower"])
    assert {"brier", "lcs", "ece", "auc"} <= set(ci.index)
    assert (ci["lower"] <= ci["upper"]).all()
    assert by_metric["null_mean"].notna().sum() >= 5  # the calibration metrics
    for name in CLI_METRICS:
        assert by_metric.loc[name, "meaning"] == METRICS[name].meaning
        assert by_metric.loc[name, "reference"] == METRICS[name].reference

    curve = pd.read_csv(out / "curve.csv")
    assert list(curve.columns[:3]) == ["model", "score", "estimate"]
    assert set(curve["model"]) == {"good"}
    assert curve["estimate"].between(0, 1).all()

    page = (out / "report.html").read_text(encoding="utf-8")
    for name in CLI_METRICS:
        assert html.escape(METRICS[name].meaning) in page
        assert html.escape(METRICS[name].reference) in page
    embedded = re.search(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    assert embedded is not None
    assert base64.b64decode(embedded.group(1)) == (out / "reliability.png").read_bytes()
    assert (out / "reliability.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = page.replace(embedded.group(1), "")  # base64 may hold "//" by chance
    assert re.search(r"https?:|//[a-z]|url\(|@import", text, re.IGNORECASE) is None
    assert re.search(r"\b(src|href)=\"(?!data:)", page) is None  # nothing loaded from outside


def test_the_same_seed_gives_the_same_tables(data, tmp_path):
    path, _ = data
    tables = []
    for out in (tmp_path / "a", tmp_path / "b"):
        assert _run("report", path, "--score", "good", "--label", "y", "--n-boot", "10",
                    "--seed", "3", "--quiet", "--out", out) == 0
        tables.append((out / "metrics.csv").read_text())
    assert tables[0] == tables[1]


def test_two_score_columns_give_two_models(data, tmp_path):
    path, _ = data
    out = tmp_path / "out"
    assert _run("report", path, "--score", "good", "--score", "over", "--label", "y",
                "--n-boot", "0", "--quiet", "--out", out) == 0
    metrics = pd.read_csv(out / "metrics.csv")
    assert list(dict.fromkeys(metrics["model"])) == ["good", "over"]
    assert len(metrics) == 2 * len(CLI_METRICS)
    assert metrics[["lower", "upper", "null_mean"]].isna().all().all()  # --n-boot 0
    lcs = metrics[metrics["metric"] == "lcs"].set_index("model")["value"]
    # p^3 is far below the diagonal's event rate: a much larger local calibration score
    assert lcs["over"] > 10 * lcs["good"]
    assert set(pd.read_csv(out / "curve.csv")["model"]) == {"good", "over"}
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "<th>good</th><th>over</th>" in page


def test_class_names_with_pos_label_and_weights(data, tmp_path):
    path, frame = data
    plain, named = tmp_path / "plain", tmp_path / "named"
    assert _run("report", path, "--score", "good", "--label", "y", "--weight", "w",
                "--n-boot", "0", "--quiet", "--out", plain) == 0
    assert _run("report", path, "--score", "good", "--label", "outcome", "--pos-label", "sick",
                "--weight", "w", "--n-boot", "0", "--quiet", "--out", named) == 0
    a = pd.read_csv(plain / "metrics.csv").set_index("metric")["value"]
    b = pd.read_csv(named / "metrics.csv").set_index("metric")["value"]
    pd.testing.assert_series_equal(a, b)
    p, y, w = (frame[c].to_numpy() for c in ("good", "y", "w"))
    assert a["brier"] == pytest.approx(np.sum(w * (p - y) ** 2) / np.sum(w), rel=1e-12)


def test_parquet_gives_the_csv_report(data, tmp_path):
    pytest.importorskip("pyarrow")
    path, frame = data
    parquet = tmp_path / "data.parquet"
    frame.to_parquet(parquet)
    for source, out in ((path, tmp_path / "csv"), (parquet, tmp_path / "pq")):
        assert _run("report", source, "--score", "good", "--label", "y", "--n-boot", "0",
                    "--quiet", "--out", out) == 0
    a = pd.read_csv(tmp_path / "csv" / "metrics.csv")
    b = pd.read_csv(tmp_path / "pq" / "metrics.csv")
    # CSV rounds the scores to 17 significant digits and back: the same doubles
    pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize(("column", "row"), [("good", 7), ("y", 12)])
def test_parquet_bad_values_name_column_and_row(data, tmp_path, capsys, column, row):
    pytest.importorskip("pyarrow")
    _, frame = data
    frame = frame.astype({"y": "float64"})
    frame.loc[row - 1, column] = np.nan  # an empty cell in Parquet: a null
    parquet = tmp_path / "bad.parquet"
    frame.to_parquet(parquet)
    out = tmp_path / "out"
    assert _run("report", parquet, "--score", "good", "--label", "y", "--n-boot", "0",
                "--out", out) == 2
    assert f"column {column!r}, row {row}: the value is empty" in capsys.readouterr().err
    assert not out.exists()


def test_a_file_that_is_not_parquet_exits_2(tmp_path, capsys):
    pytest.importorskip("pyarrow")
    path = tmp_path / "data.parquet"
    path.write_text("s,y\n0.5,1\n")
    assert _run("report", path, "--score", "s", "--label", "y", "--out", tmp_path / "o") == 2
    assert "not a readable Parquet file" in capsys.readouterr().err


CSV_HEAD = "s,y,w\n"
GOOD_ROWS = ["0.1,0,1", "0.4,1,1", "0.7,0,2", "0.9,1,1", "0.2,0,1", "0.6,1,1"]


def _with_row(row: int, line: str) -> str:
    """The good rows with data row ``row`` (counted from 1) replaced by ``line``."""
    rows = list(GOOD_ROWS)
    rows[row - 1] = line
    return CSV_HEAD + "\n".join(rows) + "\n"


@pytest.mark.parametrize(("text", "column", "row", "what"), [
    (_with_row(3, "1.5,0,1"), "s", 3, "outside [0, 1]"),
    (_with_row(2, "-0.1,1,1"), "s", 2, "outside [0, 1]"),
    (_with_row(4, "inf,1,1"), "s", 4, "outside [0, 1]"),
    (_with_row(2, ",1,1"), "s", 2, "empty"),
    (_with_row(5, "abc,0,1"), "s", 5, "'abc' is not a number"),
    (_with_row(3, "  ,0,1"), "s", 3, "empty"),  # blanks only: empty, not a number
    (_with_row(2, "NA,0,1"), "s", 2, "'NA' is not a number"),  # named as the text it is
    (_with_row(5, "0.5,NA,1"), "y", 5, "third distinct value 'NA'"),
    (_with_row(1, "0.5, ,1"), "y", 1, "empty"),
    (_with_row(4, "0.5,2,1"), "y", 4, "third distinct value"),
    (_with_row(6, "0.5,,1"), "y", 6, "empty"),
    (_with_row(3, "0.5,1,-1"), "w", 3, "non-negative"),
    (_with_row(1, "0.5,1,x"), "w", 1, "not a number"),
])
def test_bad_values_exit_2_naming_column_and_row(tmp_path, capsys, text, column, row, what):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    out = tmp_path / "out"
    code = _run("report", path, "--score", "s", "--label", "y", "--weight", "w",
                "--n-boot", "0", "--out", out)
    err = capsys.readouterr().err
    assert code == 2
    assert f"column {column!r}, row {row}:" in err
    assert what in err
    assert not out.exists()
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize(("row", "line", "shown"), [
    (2, "1.7,0,1", "score column 's', row 2: the value 1.7 is outside [0, 1]"),
    (2, "0.5,1,-2.5", "weight column 'w', row 2: the value -2.5 is not a finite non-negative"),
    (4, "0.5,7,1", "label column 'y', row 4: a third distinct value 7 (after 0 and 1)"),
])
def test_messages_show_plain_numbers_not_numpy_reprs(tmp_path, capsys, row, line, shown):
    """The messages printed "the value np.float64(1.7) is outside [0, 1]"."""
    path = tmp_path / "bad.csv"
    path.write_text(_with_row(row, line))
    assert _run("report", path, "--score", "s", "--label", "y", "--weight", "w",
                "--n-boot", "0", "--out", tmp_path / "out") == 2
    err = capsys.readouterr().err
    assert shown in err
    assert "np." not in err


def test_blank_lines_count_as_rows_except_at_the_end(tmp_path, capsys):
    path = tmp_path / "data.csv"
    path.write_text(CSV_HEAD + "\n".join(GOOD_ROWS) + "\n\n\n")  # blank lines at the end
    assert _run("report", path, "--score", "s", "--label", "y", "--n-boot", "0", "--quiet",
                "--out", tmp_path / "ok") == 0
    assert pd.read_csv(tmp_path / "ok" / "metrics.csv").set_index("metric").loc[
        "n", "value"] == len(GOOD_ROWS)
    capsys.readouterr()
    rows = list(GOOD_ROWS)
    rows.insert(2, "")  # a blank line as third data row: reported, and where it is
    path.write_text(CSV_HEAD + "\n".join(rows) + "\n")
    assert _run("report", path, "--score", "s", "--label", "y", "--n-boot", "0",
                "--out", tmp_path / "bad") == 2
    assert "score column 's', row 3: the value is empty" in capsys.readouterr().err


@pytest.mark.parametrize(("argv", "message"), [
    (["--score", "nope", "--label", "y"], "score column 'nope' is not in the data"),
    (["--score", "s", "--label", "nope"], "label column 'nope' is not in the data"),
    (["--score", "s", "--label", "y", "--pos-label", "7"], "--pos-label '7' is not a value"),
    (["--score", "s", "--label", "s"], "label column 's', row 3: a third distinct value"),
    (["--score", "s", "--score", "s", "--label", "y"], "names a column twice"),
    (["--score", "s", "--label", "y", "--level", "1.5"], "--level must lie in (0, 1)"),
])
def test_bad_columns_and_options_exit_2(tmp_path, capsys, argv, message):
    path = tmp_path / "data.csv"
    path.write_text(CSV_HEAD + "\n".join(GOOD_ROWS) + "\n")
    out = tmp_path / "out"
    assert _run("report", path, *argv, "--n-boot", "0", "--out", out) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_class_names_without_pos_label_ask_for_it(tmp_path, capsys):
    path = tmp_path / "data.csv"
    path.write_text("s,y\n0.2,no\n0.8,yes\n0.5,no\n")
    assert _run("report", path, "--score", "s", "--label", "y", "--out", tmp_path / "o") == 2
    assert "--pos-label" in capsys.readouterr().err


def test_missing_file_and_usage_errors_exit_2(tmp_path, capsys):
    assert _run("report", tmp_path / "absent.csv", "--score", "s", "--label", "y",
                "--out", tmp_path / "o") == 2
    assert "no such file" in capsys.readouterr().err
    assert _run("report", tmp_path / "absent.csv", "--label", "y", "--out", "o") == 2
    assert "--score" in capsys.readouterr().err


def test_a_previous_report_is_replaced_but_other_files_are_kept(data, tmp_path, capsys):
    path, _ = data
    out = tmp_path / "out"
    args = ["report", path, "--score", "good", "--label", "y", "--n-boot", "0", "--quiet",
            "--out", out]
    assert _run(*args) == 0
    (out / "metrics.csv").write_text("stale")
    assert _run(*args) == 0
    assert (out / "metrics.csv").read_text().startswith("model,metric,")
    assert _leftovers(tmp_path) == []

    precious = tmp_path / "mine"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep me")
    assert _run(*args[:-1], precious) == 2
    assert "notes.txt" in capsys.readouterr().err
    assert sorted(p.name for p in precious.iterdir()) == ["notes.txt"]


def test_a_failure_after_the_checks_leaves_no_folder(data, tmp_path, monkeypatch):
    path, _ = data
    import locacal.report.page

    def broken(**kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(locacal.report.page, "render_report", broken)
    out = tmp_path / "out"
    with pytest.raises(RuntimeError, match="disk on fire"):
        _run("report", path, "--score", "good", "--label", "y", "--n-boot", "0", "--quiet",
             "--out", out)
    assert not out.exists()
    assert _leftovers(tmp_path) == []


def test_progress_bar_on_stderr_unless_quiet(data, tmp_path, capsys):
    path, _ = data
    assert _run("report", path, "--score", "good", "--label", "y", "--n-boot", "0",
                "--out", tmp_path / "a") == 0
    assert "locacal report:" in capsys.readouterr().err
    assert _run("report", path, "--score", "good", "--label", "y", "--n-boot", "0",
                "--quiet", "--out", tmp_path / "b") == 0
    assert capsys.readouterr().err == ""


def test_the_bootstrap_shows_its_bar_on_stderr_unless_quiet(data, tmp_path, capsys,
                                                             monkeypatch):
    import locacal.report.table

    path, _ = data
    monkeypatch.setattr(locacal.report.table, "_PROGRESS_CELLS", 0)  # any size is long
    args = ["report", path, "--score", "good", "--label", "y", "--n-boot", "3", "--seed", "0"]
    assert _run(*args, "--out", tmp_path / "a") == 0
    captured = capsys.readouterr()
    assert "calibration_report resamples" in captured.err
    assert captured.out == ""
    assert _run(*args, "--quiet", "--out", tmp_path / "b") == 0
    assert capsys.readouterr().err == ""


def test_python_dash_m_locacal_report(data, tmp_path):
    path, _ = data
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("MPLBACKEND", None)  # the command line chooses Agg itself
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "locacal", "report", str(path), "--score", "good", "--label",
         "y", "--n-boot", "0", "--quiet", "--out", str(out)],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == sorted(OUTPUT_FILES)
    bad = subprocess.run(
        [sys.executable, "-m", "locacal", "report", str(path), "--score", "y", "--label",
         "good", "--out", str(tmp_path / "bad")],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert bad.returncode == 2
    assert "label column 'good', row 3: a third distinct value" in bad.stderr


def test_warnings_reach_stderr_and_the_page(tmp_path, capsys):
    path = tmp_path / "tiny.csv"
    path.write_text("s,y\n0.2,0\n0.8,1\n0.5,0\n0.3,1\n0.9,1\n")
    out = tmp_path / "out"
    assert _run("report", path, "--score", "s", "--label", "y", "--n-boot", "0", "--quiet",
                "--out", out) == 0
    err = capsys.readouterr().err
    # five rows: ten quantile bins cannot hold ten observations each
    assert "warning: CalibrationWarning: " in err
    assert "fewer than 10 observations" in err
    page = (out / "report.html").read_text(encoding="utf-8")
    assert '<h2 class="warn">Warnings</h2>' in page
    assert "fewer than 10 observations" in page


def test_the_locacal_script_entry_point_is_main():
    import tomllib

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"locacal": "locacal.cli:main"}
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    assert any(d.startswith("pyarrow") for d in extras["parquet"])
    assert any(d.startswith("pyarrow") for d in extras["test"])


def test_parquet_without_pyarrow_says_what_to_install(tmp_path, capsys, monkeypatch):
    path = tmp_path / "data.parquet"
    path.write_bytes(b"PAR1")  # never read: the import fails first
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # makes `import pyarrow` fail
    assert _run("report", path, "--score", "s", "--label", "y", "--out", tmp_path / "o") == 2
    assert "pip install 'locacal[parquet]'" in capsys.readouterr().err


def test_an_unwritable_output_folder_exits_2(data, tmp_path, capsys):
    path, _ = data
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert _run("report", path, "--score", "good", "--label", "y", "--n-boot", "0",
                "--quiet", "--out", blocker / "out") == 2
    assert "locacal report: error:" in capsys.readouterr().err


def test_help_is_plain_text(capsys):
    assert _run("report", "--help") == 0
    out = " ".join(capsys.readouterr().out.split())  # argparse wraps to the terminal
    assert "locacal report (also python -m locacal report) reads a CSV or Parquet" in out
    assert "`" not in out
    assert ":func:" not in out
