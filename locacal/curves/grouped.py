"""Calibration curves by subgroup: what ``calibration_curve(..., by=groups)`` returns.

Each group's curve is :func:`~locacal.calibration_curve` on that group's rows, with the same
arguments (the same ``seed`` too, so a bootstrap band of a group equals the band of the call on
its subset). Grouped data show where a model fails: a score calibrated on the whole sample can
be off in one region or for one sex while the others compensate.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from locacal._repr import figure_html, frame_html, result_html
from locacal.curves.curve import CalibrationCurve

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["CurvesByGroup"]


class CurvesByGroup(Mapping[Any, CalibrationCurve]):
    """One :class:`~locacal.CalibrationCurve` per group, in the groups' order.

    A read-only mapping ``group -> curve``; ``sizes`` maps each group to its number of rows
    and ``name`` is what the groups are called (the grouping Series' name, or ``"group"``).
    """

    def __init__(self, curves: Mapping[Any, CalibrationCurve], sizes: Mapping[Any, int],
                 name: str = "group") -> None:
        if set(curves) != set(sizes):
            raise ValueError("curves and sizes must name the same groups")
        self._curves = dict(curves)
        self.sizes = {g: int(sizes[g]) for g in self._curves}
        self.name = name

    def __getitem__(self, group: Any) -> CalibrationCurve:
        return self._curves[group]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._curves)

    def __len__(self) -> int:
        return len(self._curves)

    def to_frame(self) -> pd.DataFrame:
        """Every group's curve in one tidy table: the group column (named :attr:`name`) then
        the columns of :meth:`CalibrationCurve.to_frame`."""
        frames = [curve.to_frame().assign(**{self.name: group})
                  for group, curve in self._curves.items()]
        table = pd.concat(frames, ignore_index=True)
        return table[[self.name, *table.columns[:-1]]]

    def summary(self) -> pd.DataFrame:
        """One row per group: ``n`` (rows), ``max_gap`` (largest ``|ĝ(p) - p|`` on the grid
        inside the group's score range, a reading of the picture, not a test: see
        :func:`~locacal.calibration_test` with ``by=``) and whether the band leaves the
        diagonal somewhere (``band_excludes_diagonal``, NaN without a band)."""
        rows = {}
        for group, curve in self._curves.items():
            inside = curve.in_range
            gap = np.abs(curve.estimate - curve.grid)[inside]
            has_band = bool(np.isfinite(curve.lower).any())
            off = ((curve.lower > curve.grid) | (curve.upper < curve.grid))[inside]
            rows[group] = {"n": self.sizes[group],
                           "max_gap": float(gap.max()) if gap.size else np.nan,
                           "band_excludes_diagonal": bool(off.any()) if has_band else np.nan}
        return pd.DataFrame.from_dict(rows, orient="index").rename_axis(self.name)

    def plot(self, *, band: bool = True, columns: int = 4) -> np.ndarray:
        """Small multiples, one panel per group (:func:`locacal.plotting.plot_curve_facets`);
        groups whose band leaves the diagonal are framed in red. Returns the Axes."""
        from locacal.plotting import plot_curve_facets

        table = self.summary()
        flagged = table.index[table["band_excludes_diagonal"].eq(True)]
        return plot_curve_facets({g: {"curve": c} for g, c in self._curves.items()},
                                 band=band, columns=columns, highlight=list(flagged))

    def _repr_html_(self) -> str:
        def draw(ax: Axes) -> None:
            from locacal.plotting import plot_curves

            plot_curves({str(g): c for g, c in self._curves.items()}, ax=ax)

        return result_html(f"Calibration curves by {self.name} &mdash; {len(self)} groups",
                           frame_html(self.summary()),
                           figure=figure_html(draw, alt="calibration curves by group"))

    def __repr__(self) -> str:
        return f"CurvesByGroup({self.name}: {list(self._curves)})"
