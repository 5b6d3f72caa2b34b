"""Progress of a long job: a tqdm bar on a terminal or in Jupyter, plain lines elsewhere (nohup, CI, a pipe).

Off a terminal a bar would print nothing readable (or nothing at all for many minutes), so
:class:`Progress` then writes a line every ``every_s`` seconds or at each tenth of the work:
``tournament: 420/1752 games, 6 min elapsed, about 17 min left``.

>>> import io
>>> out = io.StringIO()
>>> bar = Progress(4, "tournament", stream=out, every_s=0)
>>> for _ in range(4):
...     bar.update()
>>> bar.close()
>>> print(out.getvalue().splitlines()[-1])
tournament: 4/4 games in 0 s
"""

from __future__ import annotations

import sys
import time
from typing import IO, Any

from ..results.texts import short_duration

__all__ = ["Progress", "in_notebook", "interactive"]


def in_notebook() -> bool:
    """Whether this runs in a Jupyter kernel (not merely with IPython or ipykernel imported)."""
    ipython = sys.modules.get("IPython")
    shell = getattr(ipython, "get_ipython", lambda: None)() if ipython is not None else None
    return type(shell).__name__ == "ZMQInteractiveShell"


def interactive(stream: IO[str] | None = None) -> bool:
    """Whether a progress bar can be shown: ``stream`` (default stderr) is a terminal, or this is Jupyter."""
    stream = sys.stderr if stream is None else stream
    try:
        tty = bool(stream.isatty())
    except (AttributeError, ValueError):
        tty = False
    return tty or in_notebook()


class Progress:
    """Counts finished units of ``total`` (which may grow: :meth:`add_total`) and shows it.

    A tqdm bar when :func:`interactive` (or ``bar=True``), else a plain line on ``stream`` every
    ``every_s`` seconds or at each tenth of ``total``, whichever comes first, and one at :meth:`close`.
    """

    def __init__(self, total: int, label: str, unit: str = "games", stream: IO[str] | None = None,
                 every_s: float = 30.0, bar: bool | None = None) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.label, self.unit, self.every_s = label, unit, every_s
        self.total, self.done = total, 0
        self.started = self.last = time.perf_counter()
        self.last_tenth = 0
        self.bar: Any = None
        if bar if bar is not None else interactive(self.stream):
            from tqdm.auto import tqdm  # a widget in a notebook, text on a terminal

            self.bar = tqdm(total=total, unit=unit.rstrip("s"), desc=label, file=self.stream, dynamic_ncols=True)

    def add_total(self, n: int) -> None:
        """More units to do (an adaptive run's next batch)."""
        self.total += n
        if self.bar is not None:
            self.bar.total = self.total
            self.bar.refresh()

    def update(self, n: int = 1) -> None:
        self.done += n
        if self.bar is not None:
            self.bar.update(n)
            return
        now = time.perf_counter()
        tenth = int(10 * self.done / self.total) if self.total else 10
        if now - self.last >= self.every_s or (tenth > self.last_tenth and self.done < self.total):
            self.last, self.last_tenth = now, tenth
            self._line(now)

    def line(self) -> str:
        """``tournament: 420/1752 games, 6 min elapsed, about 17 min left``."""
        elapsed = time.perf_counter() - self.started
        text = f"{self.label}: {self.done}/{self.total} {self.unit}, {short_duration(elapsed)} elapsed"
        if 0 < self.done < self.total:
            text += f", about {short_duration(elapsed / self.done * (self.total - self.done))} left"
        return text

    def _line(self, now: float) -> None:
        print(self.line(), file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            return
        if self.done:
            elapsed = time.perf_counter() - self.started
            print(f"{self.label}: {self.done}/{self.total} {self.unit} in {short_duration(elapsed)}",
                  file=self.stream, flush=True)
