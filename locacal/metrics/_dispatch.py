"""Dask input to a metric: reduce it to cell sums, then call the metric's cell version.

A public metric ``f(scores, labels, *, weights=None, **options)`` decorated with
:func:`dask_input` runs as written on in-memory data. When ``scores``, ``labels`` or
``weights`` is a Dask collection (:func:`locacal._validation.has_dask`), its options are
checked first (``check``, before the pass over the data), the data are reduced partition by
partition to :class:`locacal.data.cells.ScoreStatistics`
(:func:`locacal.data.dask.statistics`: the column is never gathered) and the metric's cell
version ``cells_version(cells, **options)`` gives the value, within the bound its docstring
states.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from locacal._validation import has_dask
from locacal.data.dask import statistics

__all__ = ["dask_input"]


def dask_input(cells_version: Callable[..., float], *,
               check: Callable[..., dict[str, Any]] | None = None
               ) -> Callable[[Callable[..., float]], Callable[..., float]]:
    """Decorate a metric so that Dask input goes to ``cells_version`` (see the module
    docstring); ``check(**options)`` validates the options and returns them."""

    def decorate(metric: Callable[..., float]) -> Callable[..., float]:
        signature = inspect.signature(metric)

        @functools.wraps(metric)
        def wrapper(*args: Any, **kwargs: Any) -> float:
            if not has_dask(*args, *kwargs.values()):
                return metric(*args, **kwargs)
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            options = dict(bound.arguments)
            scores, labels = options.pop("scores"), options.pop("labels")
            weights = options.pop("weights")
            counts = options.pop("frequency_weights", None)
            if check is not None:
                options = check(**options)
            # counts multiply into every cell sum: the expanded rows' statistics
            return cells_version(statistics(scores, labels, weights,
                                            frequency_weights=counts), **options)

        return wrapper

    return decorate
