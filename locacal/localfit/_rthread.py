"""The one thread that runs R: every call into R, from any user thread, is run there.

R is single-threaded, and its C code (locfit's recursive tree growth above all) uses the C
stack of whichever thread calls it. Called from a thread with a small stack (e.g. after
``threading.stack_size(512 << 10)``, or a worker pool's thread) locfit overflows it and the
whole process dies with SIGSEGV; rpy2 also disables R's own stack check
(``R_CStackLimit = -1``), so nothing in R stops it first. rpy2 keeps its conversion rules in a
``contextvars.ContextVar`` set in the thread that imported it, so a second thread fails with
``NotImplementedError``. Hence one long-lived daemon thread, created with a large stack
(:data:`STACK_BYTES`), lazily on first use; rpy2 is imported and R initialised on it (by the
callable the caller hands over), and every later call queues there. Callers block until their
job is done; jobs run one at a time, in order of arrival. Ctrl-C interrupts the caller's
wait, not R: the job still runs to its end on the R thread.

Why a thread and not a subprocess: a worker process would need its own protocol (the n
scores in, the m queries in and out, R errors back), its own lifecycle (start, death, restart,
shutdown) and would keep fits in another process's memory. The thread needs none of that,
and the two ways R kills its host are both prevented before R is entered: the stack overflow
by the big stack plus locacal's replay of locfit's tree (:mod:`._tree`, told this
thread's stack size), rpy2's thread confusion by never entering R elsewhere. The price: a
crash inside R that locacal does not foresee still takes the Python process with it.

Rules for the callables: they must not return or leak R objects (rpy2 ``Sexp``) to the
caller, since releasing an R object from another thread races with R's memory manager;
return NumPy arrays and plain Python values. The frames of an exception's traceback are
cleared on this thread before the exception is handed to the caller, for the same reason.
A process forked after R started (``multiprocessing``'s "fork" start method) refuses R with a
clear error: the R state it inherits belongs to a thread that does not exist in the child,
and using it there was measured to hang. The "spawn" and "forkserver" start methods and
joblib's default (loky) workers start their own R and give the same numbers.
"""

from __future__ import annotations

import os
import queue
import threading
import traceback
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

__all__ = ["STACK_BYTES", "post", "run"]

T = TypeVar("T")

#: C stack of the R thread. locfit's ``atree_grow`` takes ~130 KB per level (see
#: :data:`locacal.localfit._tree.ATREE_FRAME_BYTES`) and its depth is bounded by the
#: vertex budget, at most 504 vertices at ``maxk = 200`` and ``nn >= 0.05``: 67 MB. 256 MiB
#: leaves room for ``nn`` down to 0.013 (or a larger ``maxk``) before the crash predictor
#: has to refuse; it is address space only, pages are committed as the stack grows.
STACK_BYTES = 256 * 1024 * 1024


class _RThread:
    """A daemon thread with a big stack, serving a queue of jobs."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        previous = threading.stack_size(STACK_BYTES)
        try:
            self.thread = threading.Thread(target=self._serve, name="locacal-R", daemon=True)
            self.thread.start()
        finally:
            threading.stack_size(previous)

    def _serve(self) -> None:
        while True:
            fn, args, future = self._jobs.get()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(fn(*args))
            except BaseException as exc:  # handed to the caller, raised in its thread
                _clear_frames(exc)
                future.set_exception(exc)
            del fn, args, future  # nothing of a finished job stays alive while idle

    def submit(self, fn: Callable[..., Any], args: tuple) -> Future:
        future: Future = Future()
        self._jobs.put((fn, args, future))
        return future


def _clear_frames(exc: BaseException | None) -> None:
    """Drop the local variables (R objects among them) held by an exception's traceback and
    by the exceptions it chains to."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        traceback.clear_frames(exc.__traceback__)
        exc = exc.__cause__ or exc.__context__


_lock = threading.Lock()
_server: _RThread | None = None


#: Set in a child forked after R started in its parent: R is unusable there.
_forked_after_r = False


def _get_server() -> _RThread:
    global _server
    if _forked_after_r:
        raise RuntimeError(
            "R was started in the parent process before this process was forked; R cannot "
            "run in a forked copy (its state belongs to a thread that no longer exists). Use "
            "the 'spawn' or 'forkserver' start method, or joblib's default (loky) workers.")
    with _lock:
        if _server is None:
            _server = _RThread()
        return _server


def _forget_server_after_fork() -> None:
    global _forked_after_r, _lock, _server
    _forked_after_r = _forked_after_r or _server is not None
    _lock = threading.Lock()
    _server = None


os.register_at_fork(after_in_child=_forget_server_after_fork)


def run(fn: Callable[..., T], *args: Any) -> T:
    """Run ``fn(*args)`` on the R thread and return its result (or raise its exception) here.

    Called from the R thread itself (a job calling another), ``fn`` runs at once.
    """
    server = _get_server()
    if threading.current_thread() is server.thread:
        return fn(*args)
    return server.submit(fn, args).result()


def post(fn: Callable[..., Any], *args: Any) -> None:
    """Queue ``fn(*args)`` on the R thread without waiting for it (used to free R objects from
    finalizers, which may run in any thread); its exceptions are dropped."""
    server = _server
    if server is not None:
        server.submit(fn, args)
