"""The ``locacal`` command line: ``locacal report DATA --score COL --label COL --out DIR``.

``locacal report`` (also ``python -m locacal report``) reads a CSV or Parquet table, computes
the calibration report of one or several score columns (:func:`locacal.calibration_report`
with bootstrap intervals and null expectations) and their calibration curves
(:func:`locacal.calibration_curve`), and writes four files into DIR:

* ``report.html``: one self-contained page (figure embedded, no network), every metric with
  its meaning and reference;
* ``metrics.csv``: one row per score column and metric, columns ``model, metric, value,
  lower, upper, null_mean, meaning, reference``;
* ``curve.csv``: the calibration curves, one block of rows per score column (``model``
  first, then the columns of :meth:`locacal.CalibrationCurve.to_frame`);
* ``reliability.png``: the curves over the diagonal, and the score histogram by class of
  each score column.

With ``--by COL`` (a column of group labels: sex, region, channel...), two more files:
``groups.csv`` (the report of every group and score column, ``COL`` first, then the columns of
metrics.csv) and ``groups.png`` (the curves by group), and the page gains a section with each
group's calibration test, adjusted for the number of groups, flagging the worst groups.

Data larger than memory: ``--dask`` (automatic for Parquet files over 2 GiB) reads the
columns with Dask and computes from cell statistics partition by partition
(:mod:`locacal.cli.dask_input`): the metrics the cells determine, no intervals, the curve by
``binning`` or ``local``.

Bad input (a missing column, a score outside [0, 1], an empty or non-numeric cell, labels
with more than two values, ...) stops with exit code 2 and a message naming the column and
the first bad row (rows counted from 1 at the first data row; only an empty cell is
missing, a text such as "NA" is named as it is; a blank line is a row of empty cells,
except at the end of the file). The files are written into a temporary folder next to DIR
and moved into place at the end, so DIR never holds a partial report.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import secrets
import shutil
import sys
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from locacal.cli.input import (
    InputError,
    counts_column,
    groups_column,
    labels_column,
    read_table,
    scores_column,
    weights_column,
)

__all__ = ["GROUP_FILES", "OUTPUT_FILES", "main"]

#: The files ``locacal report`` writes into DIR.
OUTPUT_FILES = ("report.html", "metrics.csv", "curve.csv", "reliability.png")
#: The files ``--by`` adds.
GROUP_FILES = ("groups.csv", "groups.png")
#: Columns of metrics.csv.
METRICS_CSV_COLUMNS = ("model", "metric", "value", "lower", "upper", "null_mean", "meaning",
                       "reference")
#: Default bootstrap resamples of the command line, for a first look at the intervals: the
#: Monte Carlo standard error of an interval end from 100 resamples is about 7 % of the
#: interval's width (normal replicates: sqrt(0.025 * 0.975 / 100) / phi(1.96) = 0.27 sd,
#: against a width of 3.92 sd). One model on 1e5 rows took 63 s on a busy 2-core machine.
DEFAULT_N_BOOT = 100


def _methods() -> tuple[str, ...]:
    from locacal.curves.family import METHODS

    return tuple(METHODS)


def _plain(text: str) -> str:
    """Docstring text without reStructuredText markup, for ``--help``."""
    text = re.sub(r":\w+:`~?([^`]+)`", r"\1", text)
    return text.replace("``", "")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``locacal`` and its ``report`` subcommand."""
    parser = argparse.ArgumentParser(prog="locacal",
                                     description="Calibration analysis of binary classifiers.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    report = commands.add_parser(
        "report", help="calibration report of score columns of a CSV or Parquet file",
        description=_plain(__doc__.split("\n\n")[1]),
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    report.add_argument("data", type=Path, metavar="DATA",
                        help="CSV file, or Parquet (.parquet/.pq, needs pyarrow)")
    report.add_argument("--score", action="append", required=True, metavar="COL",
                        help="score column (probabilities in [0, 1]); repeat to compare "
                             "several models")
    report.add_argument("--label", required=True, metavar="COL",
                        help="label column: 0/1, true/false, or two classes with --pos-label")
    report.add_argument("--weight", metavar="COL", help="column of non-negative case weights")
    report.add_argument("--by", metavar="COL",
                        help="column of groups: report, curves and calibration test of each "
                             "group, adjusted for the number of groups")
    report.add_argument("--count", metavar="COL",
                        help="column of frequency weights: counts of identical observations "
                             "(grouped data); every number is that of the expanded rows")
    report.add_argument("--pos-label", metavar="V", help="the positive class of the labels")
    report.add_argument("--method", default="local", choices=_methods(),
                        help="calibration curve estimator")
    report.add_argument("--n-boot", type=int, default=DEFAULT_N_BOOT, metavar="N",
                        help="bootstrap resamples of the metric intervals (0: no intervals)")
    report.add_argument("--level", type=float, default=0.95,
                        help="level of the intervals and of the curve band")
    report.add_argument("--seed", type=int, default=None,
                        help="seed of the resampling (the same seed gives the same files)")
    report.add_argument("--clinical", action="store_true",
                        help="add the ICI and the calibration intercept and slope (slower)")
    report.add_argument("--out", type=Path, required=True, metavar="DIR",
                        help="output folder (created; a previous report in it is replaced)")
    report.add_argument("--quiet", action="store_true", help="no progress bar")
    report.add_argument("--dask", action="store_true",
                        help="read with Dask and reduce partition by partition (data larger "
                             "than memory; automatic for Parquet files over 2 GiB): cell "
                             "metrics only, no intervals, --method binning or local")
    return parser


def _check_options(args: argparse.Namespace) -> None:
    if len(set(args.score)) != len(args.score):
        raise InputError(f"--score names a column twice: {args.score}")
    if args.n_boot < 0:
        raise InputError(f"--n-boot must be >= 0, got {args.n_boot}")
    if args.seed is not None and args.seed < 0:
        raise InputError(f"--seed must be >= 0, got {args.seed}")
    if not 0.0 < args.level < 1.0:
        raise InputError(f"--level must lie in (0, 1), got {args.level}")
    out = args.out
    if out.exists():
        if not out.is_dir():
            raise InputError(f"--out {out} exists and is not a folder")
        others = sorted(p.name for p in out.iterdir()
                        if p.name not in OUTPUT_FILES + GROUP_FILES)
        if others:
            raise InputError(f"--out {out} holds files other than a locacal report "
                             f"({', '.join(others[:5])}); give a new or empty folder")


class _Progress:
    """The steps of the report on stderr (a tqdm bar), silent with ``--quiet``."""

    def __init__(self, total: int, quiet: bool) -> None:
        from tqdm import tqdm

        self._bar = tqdm(total=total, disable=quiet, file=sys.stderr, unit="step",
                         desc="locacal report")
        self._running = False

    def doing(self, what: str) -> None:
        """Count the step that was running as done and show ``what`` as running."""
        if self._running:
            self._bar.update(1)
        self._running = True
        self._bar.set_postfix_str(what)

    def finish(self) -> None:
        """Count the last step as done."""
        self.doing("done")

    def close(self) -> None:
        self._bar.close()


@contextlib.contextmanager
def _stderr_silenced(quiet: bool) -> Iterator[None]:
    """With ``quiet``, swallow what the library writes to stderr (its own progress bars)."""
    if not quiet:
        yield
        return
    with contextlib.redirect_stderr(io.StringIO()):
        yield


def _metrics_table(models: dict[str, np.ndarray], y: np.ndarray, w: np.ndarray | None,
                   args: argparse.Namespace, by: pd.Series | None = None) -> pd.DataFrame:
    """The tidy table of metrics.csv (with ``by``: of groups.csv, the group column first)."""
    from locacal.metrics.registry import METRICS
    from locacal.report.table import calibration_report

    keys = ["model"] if by is None else [by.name, "model"]
    if args.n_boot > 0:
        long = calibration_report(models, y, weights=w, clinical=args.clinical, ci=True,
                                  n_boot=args.n_boot, level=args.level, seed=args.seed, by=by,
                                  frequency_weights=_counts(args))
    else:
        wide = calibration_report(models, y, weights=w, clinical=args.clinical, by=by,
                                  frequency_weights=_counts(args))
        long = wide.melt(id_vars=keys, var_name="metric", value_name="value")
        long = long.sort_values(keys, kind="stable")
        long[["lower", "upper", "null_mean"]] = np.nan
    # no column of true probabilities on the command line: the true MSE is never defined
    long = long[long["metric"] != "true_mse"].reset_index(drop=True)
    long["meaning"] = [METRICS[m].meaning for m in long["metric"]]
    long["reference"] = [METRICS[m].reference for m in long["metric"]]
    return long[[*keys[:-1], *METRICS_CSV_COLUMNS]]


def _curves(models: dict[str, np.ndarray], y: np.ndarray, w: np.ndarray | None,
            args: argparse.Namespace, progress: _Progress) -> dict[str, Any]:
    from locacal.curves.family import calibration_curve

    curves = {}
    for name, s in models.items():
        progress.doing(f"curve of {name}")
        curves[name] = calibration_curve(s, y, method=args.method, weights=w,
                                         level=args.level, seed=args.seed,
                                         frequency_weights=_counts(args))
    return curves


def _counts(args: argparse.Namespace) -> np.ndarray | None:
    """The --count column's values (read by :func:`_report`), None without --count."""
    return getattr(args, "counts", None)


def _figure_png(curves: dict[str, Any], models: dict[str, np.ndarray], y: np.ndarray,
                method: str, counts: np.ndarray | None = None) -> bytes:
    """The reliability diagram: all curves on one panel, one score histogram per model."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from locacal.plotting import plot_curve, plot_score_histogram

    k = len(models)
    fig, axes = plt.subplots(1 + k, 1, figsize=(6, 4.5 + 1.6 * k), sharex=True,
                             height_ratios=[3] + [1] * k, squeeze=False)
    top = axes[0, 0]
    for name, curve in curves.items():
        plot_curve(curve, ax=top, band=k == 1, label=name)
    top.set_title(f"Calibration curves ({method})")
    top.set_ylabel("observed event rate")
    top.set_xlabel("")
    for ax, (name, s) in zip(axes[1:, 0], models.items(), strict=True):
        plot_score_histogram(s, y, ax=ax, frequency_weights=counts)
        ax.set_title(name, fontsize="small")
        ax.set_xlabel("")
    axes[-1, 0].set_xlabel("score")
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    return buffer.getvalue()


def _by_group(models: dict[str, np.ndarray], y: np.ndarray, w: np.ndarray | None,
              by: pd.Series, args: argparse.Namespace
              ) -> tuple[pd.DataFrame, dict[str, pd.DataFrame], bytes]:
    """groups.csv, the groups' calibration tests per model, and the curves by group."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from locacal.display import ReliabilityDisplay
    from locacal.metrics.calibration_testing import calibration_test

    table = _metrics_table(models, y, w, args, by=by)
    tests = {name: calibration_test(s, y, weights=w, by=by, seed=args.seed,
                                    frequency_weights=_counts(args)).to_frame()
             for name, s in models.items()}
    display = ReliabilityDisplay.from_predictions(models, y, method=args.method, weights=w,
                                                  frequency_weights=_counts(args), by=by,
                                                  plot=False, level=args.level)
    panels = display.plot(band=len(models) == 1)
    buffer = io.BytesIO()
    panels[0].figure.savefig(buffer, format="png", dpi=90)
    plt.close(panels[0].figure)
    return table, tests, buffer.getvalue()


def _unique_messages(caught: list[warnings.WarningMessage]) -> list[str]:
    return list(dict.fromkeys(f"{w.category.__name__}: {w.message}" for w in caught))


def _settings(args: argparse.Namespace, n_rows: int) -> dict[str, str]:
    return {
        "data": str(args.data), "rows": str(n_rows), "score columns": ", ".join(args.score),
        "label column": args.label,
        "positive class": args.pos_label if args.pos_label is not None else "1",
        "weight column": args.weight or "(none)",
        **({"count column": args.count} if args.count else {}),
        "group column": args.by or "(none)", "curve method": args.method,
        "bootstrap resamples": str(args.n_boot), "level": f"{args.level:g}",
        "seed": "(none)" if args.seed is None else str(args.seed),
    }


def _write_atomically(out: Path, files: dict[str, bytes]) -> None:
    """Write ``files`` into a temporary folder next to ``out``, then move it to ``out``.

    A previous report in ``out`` (only :data:`OUTPUT_FILES`, checked before) is moved aside
    first and deleted once the new folder is in place; on any error the temporary folders
    are removed and the previous report is put back.
    """
    out = out.absolute()
    out.parent.mkdir(parents=True, exist_ok=True)
    tag = f".{out.name}.{os.getpid()}.{secrets.token_hex(4)}"
    staging = out.parent / f"{tag}.partial"
    staging.mkdir()  # not tempfile.mkdtemp: the report folder keeps the umask's permissions
    old = None
    try:
        for name, content in files.items():
            (staging / name).write_bytes(content)
        if out.exists():
            old = out.parent / f"{tag}.old"
            out.rename(old)
        staging.rename(out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        if old is not None and not out.exists():
            old.rename(out)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _analyse(models: dict[str, Any], y: Any, w: Any, args: argparse.Namespace,
             progress: _Progress, histogram_data: Callable[[pd.DataFrame], tuple[Any, Any]]
             ) -> tuple[pd.DataFrame, dict[str, Any], bytes, list[str]]:
    """Metrics, curves and figure, with the warnings they raise collected (not printed);
    ``histogram_data(metrics)`` gives the scores (one column per model) and labels the
    figure's histograms count."""
    with warnings.catch_warnings(record=True) as caught, _stderr_silenced(args.quiet):
        warnings.simplefilter("always")
        progress.doing("metrics")
        metrics = _metrics_table(models, y, w, args)
        curves = _curves(models, y, w, args, progress)
        progress.doing("figure")
        png = _figure_png(curves, *histogram_data(metrics), args.method, _counts(args))
    return metrics, curves, png, _unique_messages(caught)


def _row_count(metrics: pd.DataFrame) -> int:
    """The number of rows, read off the metrics table (Dask input is never counted twice)."""
    return int(metrics.loc[metrics["metric"] == "n", "value"].iloc[0])


def _report_dask(args: argparse.Namespace, progress: _Progress
                 ) -> tuple[pd.DataFrame, dict[str, Any], bytes, list[str], int]:
    """Metrics, curves, figure, warnings and row count of data read with Dask
    (:mod:`locacal.cli.dask_input`)."""
    from locacal.cli.dask_input import read_dask

    if args.method not in ("binning", "local"):
        raise InputError(f"--method {args.method} is not available with --dask; use binning "
                         "or local")
    if args.by is not None:
        raise InputError("--by is not available with --dask (rows are not kept)")
    table = read_dask(args)
    models = {name: table.frame[name] for name in args.score}
    y = table.labels(args.label, args.pos_label)
    w = None if args.weight is None else table.frame[args.weight]

    def histogram_data(metrics: pd.DataFrame) -> tuple[dict[str, Any], Any]:
        sample = table.histogram_sample(_row_count(metrics), [*args.score, args.label])
        return ({name: scores_column(sample, name) for name in args.score},
                labels_column(sample, args.label, args.pos_label))

    no_boot = argparse.Namespace(**{**vars(args), "n_boot": 0})
    metrics, curves, png, messages = _analyse(models, y, w, no_boot, progress, histogram_data)
    n_rows = _row_count(metrics)
    if args.n_boot > 0:
        messages.append("no bootstrap intervals with --dask (rows are not kept): --n-boot "
                        "is ignored; metrics the cells do not determine are NaN")
    return metrics, curves, png, messages, n_rows


def _report(args: argparse.Namespace) -> None:
    from locacal._version import __version__
    from locacal.cli.dask_input import use_dask
    from locacal.report.page import render_report

    _check_options(args)
    progress = _Progress(total=5 + len(args.score) + (args.by is not None), quiet=args.quiet)
    try:
        progress.doing("reading the data")
        by = None
        if use_dask(args):
            if args.count is not None:
                raise InputError("--count is not available with Dask input (--dask or a "
                                 "Parquet file over 2 GiB): give the rows themselves")
            metrics, curves, png, messages, n_rows = _report_dask(args, progress)
        else:
            table = read_table(args.data)
            n_rows = len(table)
            models = {name: scores_column(table, name) for name in args.score}
            y = labels_column(table, args.label, args.pos_label)
            w = None if args.weight is None else weights_column(table, args.weight)
            by = None if args.by is None else groups_column(table, args.by)
            args.counts = None if args.count is None else counts_column(table, args.count)
            metrics, curves, png, messages = _analyse(models, y, w, args, progress,
                                                      lambda _: (models, y))
            if by is not None:
                progress.doing("groups")
                with warnings.catch_warnings(record=True) as caught, \
                        _stderr_silenced(args.quiet):
                    warnings.simplefilter("always")
                    group_table, group_tests, groups_png = _by_group(models, y, w, by, args)
                messages += [m for m in _unique_messages(caught) if m not in messages]
        progress.doing("HTML page")
        curve_csv = pd.concat(
            [c.to_frame().assign(model=name) for name, c in curves.items()], ignore_index=True)
        curve_csv = curve_csv[["model", *(c for c in curve_csv.columns if c != "model")]]
        grouped = by is not None
        page = render_report(metrics=metrics, png=png, settings=_settings(args, n_rows),
                             warnings=messages, n_boot=args.n_boot, level=args.level,
                             version=__version__,
                             groups=group_tests if grouped else None,
                             groups_png=groups_png if grouped else b"")
        progress.doing("writing the files")
        files = {
            "report.html": page.encode("utf-8"),
            "metrics.csv": metrics.to_csv(index=False).encode("utf-8"),
            "curve.csv": curve_csv.to_csv(index=False).encode("utf-8"),
            "reliability.png": png,
        }
        if grouped:
            files["groups.csv"] = group_table.to_csv(index=False).encode("utf-8")
            files["groups.png"] = groups_png
        _write_atomically(args.out, files)
        progress.finish()
    finally:
        progress.close()
    for message in messages:
        print(f"warning: {message}", file=sys.stderr)
    if not args.quiet:
        print(f"report written to {args.out}/ ({', '.join(OUTPUT_FILES)})", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Run the command line on ``argv`` (default ``sys.argv[1:]``); return the exit code.

    0 on success; 2 on bad input or options (argparse's own usage errors too) or an output
    folder that cannot be written, with the message on stderr.
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # --help (0) and usage errors (2)
        return int(exit_.code or 0)
    try:
        _report(args)
    except (InputError, ValueError, OSError) as err:
        # InputError: our checks, with column and row; ValueError: the library's own
        # validation of the (already checked) data; OSError: DIR cannot be written
        print(f"locacal report: error: {err}", file=sys.stderr)
        return 2
    return 0

