"""Run independent replications on all cores, in order, with a progress bar.

Each replication gets its own child of one :class:`numpy.random.SeedSequence`, drawn by its
index, so what replication i computes never depends on the number of workers or on which
worker runs it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np
from joblib import Parallel, delayed
from tqdm.auto import tqdm

from locacal._validation import check_bool, check_int, check_seed, spawn_seeds

__all__ = ["child_seeds", "parallel_map"]

T = TypeVar("T")


def child_seeds(seed: Any, n: int) -> list[np.random.SeedSequence]:
    """``n`` independent seed sequences spawned from ``seed`` (int or SeedSequence).

    Child i is the same whatever ``n`` is, so a run of 20 replications reproduces the first 20
    of a run of 200.
    """
    return spawn_seeds(check_seed(seed, kind="spawn"), n)


def parallel_map(func: Callable[..., T], tasks: Sequence[Any], *, n_jobs: int | None = -1,
                 progress: bool = True, desc: str | None = None) -> list[T]:
    """``[func(*task) for task in tasks]`` on ``n_jobs`` workers (joblib; -1: all cores),
    results in task order, with a tqdm progress bar unless ``progress=False``."""
    check_bool(progress, "progress")
    if n_jobs is not None:
        n_jobs = check_int(n_jobs, "n_jobs")
        if n_jobs == 0:
            raise ValueError("n_jobs must be a positive number of workers, or negative "
                             "(-1: all cores), got 0")
    runner = Parallel(n_jobs=n_jobs, return_as="generator")
    results = runner(delayed(func)(*task) for task in tasks)
    return list(tqdm(results, total=len(tasks), desc=desc, disable=not progress))
