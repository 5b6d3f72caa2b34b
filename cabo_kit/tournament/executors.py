"""Where matches run: a local process pool, or a Dask distributed cluster.

Both take plain-data tasks (one per match: a deal and all its rotations, the bots' file
contents shipped inside) and hand back each match's results as soon as it finishes, in any
order; the runner stores them. Neither ever forks the engine: the pool uses ``forkserver``
(``spawn`` where there is none), and bot harnesses are started with ``subprocess``, which
also works inside Dask's daemonic workers.

The pool (and a local Dask cluster) pins each worker to a core of its own (round robin over the
usable cores, where the platform allows it, when the workers take every core), and its bot
processes run on the same core: an engine and its bots take
turns anyway (the engine waits for each decision), and on one core they wake each other
without interrupting another core and share its caches, which roughly halves the CPU an
isolated game costs (docs/performance.md, "Isolated games and tournaments").

>>> default_workers() >= 1
True
"""

from __future__ import annotations

import multiprocessing
import os
from abc import ABC, abstractmethod
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any, Callable, Iterator, Sequence

__all__ = ["Executor", "LocalExecutor", "DaskExecutor", "ExecutorError", "default_workers", "make_executor", "pin_to_core"]

DASK_HINT = 'the Dask executor needs the dask extra: pip install "cabo-kit[dask]" (or: pip install "dask[distributed]")'


class ExecutorError(RuntimeError):
    """An executor cannot start (a missing extra, an unreachable scheduler)."""


def default_workers() -> int:
    """The number of cores this process may use (``os.sched_getaffinity``), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return max(1, os.cpu_count() or 1)


class Executor(ABC):
    """Runs ``fn(task)`` for each task and yields the results as they finish (any order)."""

    name = "executor"
    workers = 1

    @abstractmethod
    def run(self, fn: Callable[[Any], Any], tasks: Sequence[Any]) -> Iterator[Any]:
        """Yield ``fn(task)`` for every task, as each finishes."""

    def close(self) -> None:
        """Stop the workers."""

    def __enter__(self) -> "Executor":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def pin_to_core(index: int) -> int | None:
    """Pin this process (every thread of it) to the ``index``-th of the cores it may use, round robin;
    return that core, or ``None`` where the platform cannot pin.

    Threads and processes it starts afterwards (the harness server, and so every bot process) inherit the pin.

    >>> import os
    >>> before = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    >>> core = pin_to_core(0)
    >>> core is None or os.sched_getaffinity(0) == {core}
    True
    >>> if before is not None: os.sched_setaffinity(0, before)
    """
    if not hasattr(os, "sched_setaffinity"):  # pragma: no cover - macOS, Windows
        return None
    try:
        cores = sorted(os.sched_getaffinity(0))
        core = cores[index % len(cores)]
        os.sched_setaffinity(0, {core})
    except OSError:  # pragma: no cover - e.g. a container that forbids it
        return None
    try:  # the other threads too (a Dask worker runs its tasks in a thread of its own)
        threads = [int(t) for t in os.listdir("/proc/self/task")]
    except OSError:  # pragma: no cover - no /proc: the calling thread only
        threads = []
    for tid in threads:
        try:
            os.sched_setaffinity(tid, {core})
        except OSError:  # pragma: no cover - a thread that just ended
            pass
    return core


def _pin_worker(counter: Any) -> None:
    """Pool initializer: the next core in turn for this worker."""
    with counter.get_lock():
        index = counter.value
        counter.value += 1
    pin_to_core(index)


class LocalExecutor(Executor):
    """A process pool of ``workers`` processes (default: the usable cores).

    At most ``2 * workers`` tasks are in flight, so a killed runner loses little work. ``busy`` says
    how many workers may work now (the portal lends its checks' idle core to the games this way,
    :class:`~cabo_kit.portal.games.GamesWorker`): with it, only that many tasks are in flight, none
    queued behind them, so a worker taken back plays no further match once its running one ends; it
    is asked whenever a task ends, and every ``poll`` seconds while a worker waits for it. With
    ``pin`` each worker is pinned to a core of its own, round robin, and so are its bot processes
    (see the module's docstring); by default it pins where the platform has ``sched_setaffinity``
    and the workers take every usable core (with a core to spare, a bot may as well run there).

    >>> with LocalExecutor(1) as ex:
    ...     sorted(ex.run(abs, [-2, 3, -1]))
    [1, 2, 3]
    >>> with LocalExecutor(2, busy=lambda: 1) as ex:     # one task at a time
    ...     sorted(ex.run(abs, [-2, 3, -1]))
    [1, 2, 3]
    """

    name = "local"

    def __init__(self, workers: int | None = None, pin: bool | None = None,
                 busy: Callable[[], int] | None = None, poll: float = 0.25) -> None:
        self.workers = workers or default_workers()
        self.busy, self.poll = busy, poll
        methods = multiprocessing.get_all_start_methods()
        self.context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
        if pin is None:
            pin = hasattr(os, "sched_setaffinity") and self.workers >= default_workers()
        self.pin = pin
        self._pool: ProcessPoolExecutor | None = None

    def run(self, fn: Callable[[Any], Any], tasks: Sequence[Any]) -> Iterator[Any]:
        if self._pool is None:
            if self.pin:
                counter = self.context.Value("i", 0)
                self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=self.context,
                                                 initializer=_pin_worker, initargs=(counter,))
            else:
                self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=self.context)
        pending: set[Future[Any]] = set()
        queue = list(tasks)[::-1]
        pool = self._pool

        def fill() -> float | None:
            """Hand out what may run now; how long to wait before asking ``busy`` again (``None``: till a task ends)."""
            room = 2 * self.workers
            if self.busy is not None:  # no task queued: an idle worker would take it, lent or not
                room = max(1, min(self.workers, int(self.busy())))
            while queue and len(pending) < room:
                pending.add(pool.submit(fn, queue.pop()))
            # a worker not lent now may be before a match ends
            return self.poll if self.busy is not None and queue and room < self.workers else None

        timeout = fill()
        while queue or pending:
            done, pending = wait(pending, timeout=timeout, return_when=FIRST_COMPLETED)
            timeout = fill()  # before the results are stored: no worker waits on that; once a pass (busy is a stat)
            for fut in done:
                yield fut.result()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


class DaskExecutor(Executor):
    """Matches as Dask tasks (one per match) on the cluster at ``scheduler`` (``tcp://HOST:PORT``),
    or on a local cluster of ``workers`` single-threaded worker processes when no address is given.

    Every worker must have cabo-kit installed (the task function is ``cabo_kit.tournament.runner.run_match``).
    """

    name = "dask"

    def __init__(self, workers: int | None = None, scheduler: str | None = None) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise ExecutorError(DASK_HINT) from None
        self.cluster: Any = None
        try:
            if scheduler:
                self.client = Client(scheduler, timeout=30)
                self.workers = max(1, len(self.client.scheduler_info().get("workers", {})))
            else:
                self.workers = workers or default_workers()
                self.cluster = LocalCluster(
                    n_workers=self.workers, threads_per_worker=1, processes=True, dashboard_address=None,
                    host="127.0.0.1",
                )
                self.client = Client(self.cluster)
                if hasattr(os, "sched_setaffinity") and self.workers >= default_workers():
                    self._pin_workers()
        except OSError as exc:
            if self.cluster is not None:
                self.cluster.close()
            raise ExecutorError(f"cannot reach the Dask scheduler {scheduler!r}: {exc}; check the address and that "
                                "`dask scheduler` runs there") from None

    def _pin_workers(self) -> None:
        """Each local worker on a core of its own, like the process pool's (only a speed-up: errors are ignored)."""
        try:
            for i, address in enumerate(sorted(self.client.scheduler_info().get("workers", {}))):
                self.client.run(pin_to_core, i, workers=[address])
        except Exception:  # noqa: BLE001 - a worker that cannot be pinned runs unpinned
            pass

    def run(self, fn: Callable[[Any], Any], tasks: Sequence[Any]) -> Iterator[Any]:
        from distributed import as_completed

        futures = [self.client.submit(fn, t, pure=False) for t in tasks]
        for fut in as_completed(futures):
            yield fut.result()
            fut.release()

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def make_executor(kind: str, workers: int | None = None, scheduler: str | None = None,
                  busy: Callable[[], int] | None = None) -> Executor:
    """The executor named ``kind`` (``"local"`` or ``"dask"``); ``busy``: see :class:`LocalExecutor` (Dask ignores it).

    >>> make_executor("slurm")
    Traceback (most recent call last):
    ...
    cabo_kit.tournament.executors.ExecutorError: unknown executor 'slurm': choose 'local' or 'dask'
    """
    if kind == "local":
        return LocalExecutor(workers, busy=busy)
    if kind == "dask":
        return DaskExecutor(workers, scheduler)
    raise ExecutorError(f"unknown executor {kind!r}: choose 'local' or 'dask'")
