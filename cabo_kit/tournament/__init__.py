"""Class tournaments: a folder of submitted bot files in, a fair and trustworthy ranking out.

The pieces: :mod:`~cabo_kit.tournament.config` (``tournament.toml``), :mod:`~cabo_kit.tournament.schedule`
(who plays which deal), :mod:`~cabo_kit.tournament.store` (the SQLite results),
:mod:`~cabo_kit.tournament.runner` (playing the games), :mod:`~cabo_kit.tournament.executors`
(process pool or Dask) and :mod:`~cabo_kit.tournament.replay_fault` (replaying a fault with a bot's
current file: ``cabo_kit.tournament.repro(folder, fault)``). :class:`~cabo_kit.tournament.Limits` are what
each submitted bot may use (``tournament.toml``'s ``[limits]``). Heavy modules load on first use, so
``import cabo_kit.tournament`` is quick.

>>> from cabo_kit import tournament
>>> callable(tournament.run_tournament)
True
>>> from cabo_kit.tournament import Limits
>>> Limits(decision_s=0.5).game_bank_s
30.0
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # for type checkers; at run time it loads on first use, as the rest
    from .isolation import Limits

__all__ = ["run_tournament", "write_outputs", "load_frames", "load_rejected", "load_config", "TournamentConfig", "ConfigError",
           "repro", "find_copies", "Limits"]

_WHERE = {
    "run_tournament": "runner", "write_outputs": "runner", "load_frames": "store", "load_rejected": "store",
    "load_config": "config", "TournamentConfig": "config", "ConfigError": "config", "repro": "replay_fault",
    "find_copies": "copies", "Limits": "isolation",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        import importlib

        return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
