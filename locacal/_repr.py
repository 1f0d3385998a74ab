"""How result objects show themselves in Jupyter: an HTML table and a small inline figure.

Every result's ``_repr_html_`` is built here, so they look alike: a bold title, a compact
table (pandas' ``to_html``) and, where a picture says more than the numbers, a PNG embedded
as a data URI.

The inline figure is drawn on a :class:`matplotlib.figure.Figure` created directly, not
through pyplot: pyplot never hears of it, so displaying a result neither opens a figure
(``plt.get_fignums()`` is unchanged) nor leaves one for the inline backend to draw a second
time at the end of the cell. A ``plot(ax=None)`` method, by contrast, draws on a pyplot
figure (the user asked for a picture) and returns the Axes, which Jupyter shows as text: the
figure itself is shown once, by the inline backend.
"""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pandas as pd

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["figure_html", "frame_html", "result_html"]

#: Size (inches) and resolution of the inline figures: about 270 x 270 pixels, 15-30 kB.
INLINE_SIZE = (3.4, 3.4)
INLINE_DPI = 80


def figure_html(draw: Callable[[Axes], Any], *, alt: str,
                figsize: tuple[float, float] = INLINE_SIZE) -> str:
    """``<img>`` of what ``draw(ax)`` draws on a fresh, pyplot-free Figure (PNG, base64)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, layout="constrained")
    draw(fig.add_subplot())
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=INLINE_DPI)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'


def frame_html(frame: pd.DataFrame | pd.Series, *, index: bool = True,
               max_rows: int = 12) -> str:
    """A compact HTML table: four significant digits, at most ``max_rows`` rows shown."""
    if isinstance(frame, pd.Series):
        frame = frame.to_frame()
    return frame.to_html(index=index, max_rows=max_rows, float_format="{:.4g}".format,
                         na_rep="\u2013")


def result_html(title: str, *tables: str, figure: str = "") -> str:
    """The title, then the figure (if any) beside the tables."""
    body = "".join(tables)
    if figure:
        body = (f'<div style="display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start">'
                f"<div>{figure}</div><div>{body}</div></div>")
    return f"<div><p><b>{title}</b></p>{body}</div>"
