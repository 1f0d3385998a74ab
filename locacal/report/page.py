"""The HTML page of ``locacal report``: one self-contained file.

Plain string templates (no template engine); the figure is a base64 PNG inside the page and
the style is inline, so the page loads nothing from the network. Every metric shown carries
its one-line meaning and its reference from :data:`locacal.metrics.registry.METRICS`.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

__all__ = ["render_report"]

_STYLE = """
body { font-family: sans-serif; max-width: 70em; margin: 2em auto; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; vertical-align: top; }
th { background: #f3f3f3; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.meaning { font-size: 0.9em; }
td.ref { font-size: 0.8em; color: #555; }
.warn { color: #8a4b00; }
tr.flagged td { background: #fbd9c4; }
"""

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<style>{style}</style>
</head>
<body>
<h1>{title}</h1>
{settings}
{warnings}
<h2>Reliability diagram</h2>
<p><img alt="calibration curves and score histograms" src="data:image/png;base64,{png}"></p>
<h2>Metrics</h2>
<p>{interval_note}</p>
{metrics}
{groups}
<p>Made by locacal {version}.</p>
</body>
</html>
"""


def _number(value: float) -> str:
    if not np.isfinite(value):
        return "&ndash;"
    if float(value).is_integer() and abs(value) >= 1:
        return f"{value:.0f}"
    return f"{value:.4g}"


def _cell(row: pd.Series, with_ci: bool) -> str:
    text = _number(row["value"])
    # n has the interval [n, n]; a calibration error may have [0, 0] (shown: it says "0")
    if with_ci and np.isfinite(row["lower"]) and row["metric"] != "n":
        text += f"<br><small>[{_number(row['lower'])}, {_number(row['upper'])}]</small>"
    if with_ci and np.isfinite(row["null_mean"]):
        text += f"<br><small>null {_number(row['null_mean'])}</small>"
    return f'<td class="num">{text}</td>'


def _metrics_table(metrics: pd.DataFrame, with_ci: bool) -> str:
    models = list(dict.fromkeys(metrics["model"]))
    head = "".join(f"<th>{html.escape(m)}</th>" for m in models)
    rows = []
    for name, group in metrics.groupby("metric", sort=False):
        by_model = group.set_index("model")
        cells = "".join(_cell(by_model.loc[m], with_ci) for m in models)
        first = group.iloc[0]
        rows.append(f"<tr><th>{html.escape(str(name))}</th>{cells}"
                    f'<td class="meaning">{html.escape(first["meaning"])}</td>'
                    f'<td class="ref">{html.escape(first["reference"])}</td></tr>')
    return (f"<table><tr><th>metric</th>{head}<th>meaning</th><th>reference</th></tr>\n"
            + "\n".join(rows) + "\n</table>")


def _settings(settings: Mapping[str, str]) -> str:
    rows = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>"
                   for k, v in settings.items())
    return f"<table>{rows}</table>"


def _warnings(messages: Sequence[str]) -> str:
    if not messages:
        return ""
    items = "".join(f"<li>{html.escape(m)}</li>" for m in messages)
    return f'<h2 class="warn">Warnings</h2><ul class="warn">{items}</ul>'


def render_report(*, metrics: pd.DataFrame, png: bytes, settings: Mapping[str, str],
                  warnings: Sequence[str], n_boot: int, level: float, version: str,
                  groups: Mapping[str, pd.DataFrame] | None = None,
                  groups_png: bytes = b"") -> str:
    """The report page.

    Parameters
    ----------
    metrics : DataFrame
        The tidy table of metrics.csv: ``model, metric, value, lower, upper, null_mean,
        meaning, reference``.
    png : bytes
        The reliability diagram, embedded as a data URI.
    settings : mapping of str to str
        The input and options, shown as a table at the top.
    warnings : sequence of str
        CalibrationWarnings raised while computing, shown above the figure.
    n_boot : int
        Bootstrap resamples behind the intervals (0: no intervals).
    level : float
        Level of the intervals.
    version : str
        locacal's version.
    groups : mapping of str to DataFrame, optional
        With ``--by``: per model, the table of
        :meth:`GroupedTestResult.to_frame <locacal.metrics.grouped_test.GroupedTestResult.to_frame>`
        (worst group first); flagged groups are highlighted.
    groups_png : bytes
        With ``--by``: the curves by group (small multiples).
    """
    with_ci = n_boot > 0
    if with_ci:
        interval_note = (
            f"Each value is followed by its {100 * level:g} % bootstrap interval for the "
            f"population value ({n_boot} resamples of the rows): for the calibration errors "
            "the basic interval clipped at 0 (Davison &amp; Hinkley 1997, &sect;5.2), which "
            "corrects their upward bias and so may lie below the value; for the other "
            "metrics the percentile interval (Efron &amp; Tibshirani 1993, &sect;13.3); and, "
            "for the calibration metrics, by its null mean: the average value a calibrated "
            "model with these same scores would show, over labels drawn as Bernoulli(score) "
            "(consistency resampling, Br&ouml;cker &amp; Smith 2007). A value near its null "
            "mean is what calibration predicts.")
    else:
        interval_note = "Point values only (run with --n-boot &gt; 0 for intervals)."
    return _PAGE.format(
        title="Calibration report", style=_STYLE, settings=_settings(settings),
        warnings=_warnings(warnings), png=base64.b64encode(png).decode("ascii"),
        interval_note=interval_note, metrics=_metrics_table(metrics, with_ci),
        groups=_groups_section(groups, groups_png), version=html.escape(version))


def _groups_section(groups: Mapping[str, pd.DataFrame] | None, png: bytes) -> str:
    """The "by group" section: the faceted curves, then per model the groups' calibration
    tests, worst first, flagged rows highlighted."""
    if not groups:
        return ""
    parts = ["<h2>By group</h2>",
             "<p>Each group's LCS calibration test, with p-values adjusted for the number of "
             "groups (single-step min-P, Westfall &amp; Young 1993); highlighted: adjusted "
             "p-value below 0.05.</p>"]
    if png:
        parts.append('<p><img alt="calibration curves by group" '
                     f'src="data:image/png;base64,{base64.b64encode(png).decode("ascii")}"></p>')
    for model, table in groups.items():
        head = "".join(f"<th>{html.escape(str(c))}</th>"
                       for c in [table.index.name, *table.columns])
        rows = []
        for group, row in table.iterrows():
            cells = [html.escape(str(group))] + [
                _number(float(v)) if isinstance(v, (int, float, np.number)) and
                not isinstance(v, (bool, np.bool_)) else html.escape(str(v))
                for v in row]
            flag = ' class="flagged"' if row["flagged"] else ""
            rows.append(f"<tr{flag}>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
        parts.append(f"<h3>{html.escape(str(model))}</h3><table><tr>{head}</tr>"
                     + "".join(rows) + "</table>")
    return "\n".join(parts)
