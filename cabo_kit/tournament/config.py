"""A tournament folder's settings: ``tournament.toml``, every key optional, each with a documented default.

>>> from cabo_kit.tournament.config import TournamentConfig
>>> cfg = TournamentConfig.from_dict({"presets": ["rush"], "games": 8, "seed": 3})
>>> cfg.presets[0].preset, cfg.table_sizes, cfg.games, cfg.reference
('rush', (4,), 8, ('RandomBot',))
>>> TournamentConfig.from_dict({"gmaes": 8})
Traceback (most recent call last):
...
cabo_kit.tournament.config.ConfigError: tournament.toml: unknown key 'gmaes' (did you mean 'games'?)
"""

from __future__ import annotations

import difflib
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..rules import PRESETS, Rules, RulesError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = ["ConfigError", "PresetEntry", "TournamentConfig", "load_config", "DEFAULTS_TEXT"]

DEFAULTS_TEXT = """\
# tournament.toml: every key is optional; these are the defaults.
presets = ["deluxe", "rush", "traveller"]   # or entries with rule overrides:
                                            # {preset = "deluxe", hand_size = 6}
table_sizes = [4]          # players per table; each size is scheduled separately
games = 32                 # games each bot plays per preset and table size (rounded up
                           # to whole duplicate deals)
seed = 0                   # every deal derives from it: same seed, same results
precision = 0              # > 0: after those games, play adaptively until every two-sided
                           # 95% Elo interval is within +-precision (e.g. 50); 0: off
max_games = 2000           # with precision: no bot plays more games than this per preset
                           # and table size (the game budget)
reference = ["RandomBot"]  # built-in bots added as trusted opponents (a reference point)
anchor = ""                # "": Elo centred on the field (the mean of the two-sided bots is
                           # 1000); a bot's name, e.g. "GreedyBot": that bot is 1000, so an
                           # unchanged bot keeps its Elo when others join (a built-in bot
                           # named here plays as a reference bot)
executor = "local"         # "local" (process pool) or "dask"
workers = 0                # 0: one per core this process may use
scheduler = ""             # Dask scheduler address; "" starts a local Dask cluster
memory = "engine"          # what observations remember: "engine" or "none"
grading = []               # built-in bots to grade each file against, one on one, e.g.
                           # ["GreedyBot"]: above / level / below (docs: "Grades")

[limits]                   # per submitted bot, enforced by the isolation harness
decision_s = 1.0           # seconds per decision
game_bank_s = 30.0         # extra seconds per game, spent when a decision runs over
memory_mb = 1024           # address-space cap (RLIMIT_AS)
cpu_s = 600                # CPU seconds per bot process (a backstop)
log_bytes = 262144         # bytes of the bot's own output kept in its log
"""

_TOP_KEYS = ("presets", "table_sizes", "games", "seed", "precision", "max_games", "reference", "anchor", "executor", "workers",
             "scheduler", "memory", "limits", "grading")
_LIMIT_KEYS = ("decision_s", "game_bank_s", "memory_mb", "cpu_s", "log_bytes")


class ConfigError(ValueError):
    """``tournament.toml`` holds a key or value this kit cannot use; the message names it and the fix."""


@dataclass(frozen=True)
class PresetEntry:
    """One rules setting a tournament plays: a preset and its overrides."""

    preset: str
    overrides: tuple[tuple[str, Any], ...] = ()

    @property
    def rules(self) -> Rules:
        return Rules.preset(self.preset, **dict(self.overrides))

    @property
    def rules_json(self) -> str:
        """The differences from the preset as canonical JSON (``"{}"`` if none)."""
        return json.dumps(self.rules.differences(), sort_keys=True, separators=(",", ":"), default=list)


@dataclass(frozen=True)
class TournamentConfig:
    """The settings of a tournament (see :data:`DEFAULTS_TEXT` for each key and its default)."""

    presets: tuple[PresetEntry, ...] = tuple(PresetEntry(p) for p in ("deluxe", "rush", "traveller"))
    table_sizes: tuple[int, ...] = (4,)
    games: int = 32
    seed: int = 0
    precision: float = 0.0
    max_games: int = 2000
    reference: tuple[str, ...] = ("RandomBot",)
    anchor: str = ""
    executor: str = "local"
    workers: int = 0
    scheduler: str = ""
    memory: str = "engine"
    limits: dict[str, float] = field(default_factory=dict)
    grading: tuple[str, ...] = ()
    source: str = field(default="tournament.toml", compare=False, repr=False)
    """Where the settings came from (the file's path in messages)."""

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "tournament.toml") -> "TournamentConfig":
        """Check every key and value; a bad one raises :class:`ConfigError` naming it and the fix."""
        for key in data:
            if key not in _TOP_KEYS:
                raise ConfigError(f"{source}: unknown key {key!r}{_hint(key, _TOP_KEYS)}")
        kw: dict[str, Any] = {}
        if "presets" in data:
            kw["presets"] = _presets(data["presets"], source)
        if "table_sizes" in data:
            sizes = data["table_sizes"]
            if not isinstance(sizes, list) or not sizes or not all(_is_int(s) and s >= 2 for s in sizes):
                raise ConfigError(f"{source}: table_sizes = {sizes!r}: write a list of player counts, e.g. table_sizes = [4]")
            kw["table_sizes"] = tuple(sorted(set(sizes)))
        if "precision" in data:
            value = data["precision"]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or value != value:
                raise ConfigError(f"{source}: precision = {value!r}: write the Elo half-width to reach, e.g. "
                                  "precision = 50, or 0 for a fixed number of games")
            kw["precision"] = float(value)
        for key in ("games", "seed", "workers", "max_games"):
            if key in data:
                value = data[key]
                low = {"games": 1, "seed": 0, "workers": 0, "max_games": 1}[key]
                if not _is_int(value) or value < low:
                    raise ConfigError(f"{source}: {key} = {value!r}: write a whole number >= {low}, e.g. {key} = {max(low, 4)}")
                kw[key] = value
        if "reference" in data:
            ref = data["reference"]
            known = builtin_bots()
            if not isinstance(ref, list) or not all(isinstance(r, str) for r in ref):
                raise ConfigError(f'{source}: reference = {ref!r}: write a list of names, e.g. reference = ["RandomBot"]')
            for r in ref:
                if r not in known:
                    raise ConfigError(f"{source}: reference bot {r!r} is not built in{_hint(r, known)}; choose from {', '.join(known)}")
            kw["reference"] = tuple(dict.fromkeys(ref))
        if "anchor" in data:
            anchor = data["anchor"]
            if not isinstance(anchor, str) or anchor != anchor.strip() or any(c in anchor for c in "/\\."):
                raise ConfigError(f'{source}: anchor = {anchor!r}: write the name of a bot, e.g. anchor = "GreedyBot" '
                                  'or a file\'s name without .py; "" centres the Elo on the field')
            if anchor in builtin_bots() and anchor not in kw.get("reference", cls.reference):
                kw["reference"] = (*kw.get("reference", cls.reference), anchor)  # the anchor must play
            kw["anchor"] = anchor
        for key, choices in (("executor", ("local", "dask")), ("memory", ("engine", "none"))):
            if key in data:
                if data[key] not in choices:
                    raise ConfigError(f"{source}: {key} = {data[key]!r}: choose one of {', '.join(map(repr, choices))}")
                kw[key] = data[key]
        if "scheduler" in data:
            if not isinstance(data["scheduler"], str):
                raise ConfigError(f'{source}: scheduler = {data["scheduler"]!r}: write an address, e.g. scheduler = "tcp://10.0.0.5:8786"')
            kw["scheduler"] = data["scheduler"]
        if "limits" in data:
            limits = data["limits"]
            if not isinstance(limits, dict):
                raise ConfigError(f"{source}: limits must be a table: write [limits] then decision_s = 1.0 ...")
            for key, value in limits.items():
                if key not in _LIMIT_KEYS:
                    raise ConfigError(f"{source}: unknown key limits.{key}{_hint(key, _LIMIT_KEYS)}")
                if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                    raise ConfigError(f"{source}: limits.{key} = {value!r}: write a positive number")
            kw["limits"] = dict(limits)
        if "grading" in data:
            kw["grading"] = _grading(data["grading"], source)
        cfg = cls(**kw, source=source)
        for entry in cfg.presets:
            rules = entry.rules
            for n in cfg.table_sizes:
                try:
                    rules.check_players(n)
                except RulesError as exc:
                    raise ConfigError(f"{source}: table_sizes has {n}, but {exc}; change table_sizes or the preset") from None
        if cfg.grading and not any(e.rules.min_players <= 2 for e in cfg.presets):
            raise ConfigError(f"{source}: grading plays one-on-one matches, but no preset here allows 2 players: "
                              "add one that does (deluxe, rush) or remove grading")
        return cfg

    @property
    def taken_names(self) -> frozenset[str]:
        """The names no file may have: the reference bots (a built-in ``anchor`` is one) and the grading bots
        (``GreedyBot below GreedyBot`` would mean nothing). The tournament and ``check-bot --class`` both refuse them.

        >>> sorted(TournamentConfig.from_dict({"reference": ["RandomBot"], "grading": ["GreedyBot"]}).taken_names)
        ['GreedyBot', 'RandomBot']
        """
        return frozenset(self.reference) | frozenset(self.grading)

    def check_anchor(self, names: Any, rejected: Any = ()) -> None:
        """Raise :class:`ConfigError` unless ``anchor`` is "" or one of ``names`` (the bots that play).

        A built-in bot named as the anchor is added to ``reference`` when the file is read, so
        only a submission's name can fail here: its file is missing or was rejected.

        >>> cfg = TournamentConfig.from_dict({"anchor": "greedy"})
        >>> cfg.check_anchor(["alice", "RandomBot"])
        Traceback (most recent call last):
        ...
        cabo_kit.tournament.config.ConfigError: tournament.toml: anchor = 'greedy' is not playing: no bots/greedy.py; write the name of a bot that plays (alice, RandomBot), a built-in bot such as "GreedyBot" (it is then added as a reference bot), or "" to centre the Elo on the field
        """
        names = list(names)
        if not self.anchor or self.anchor in names:
            return
        why = next((f"bots/{f} was rejected" for f, _ in rejected if Path(f).stem == self.anchor), f"no bots/{self.anchor}.py")
        raise ConfigError(f"{self.source}: anchor = {self.anchor!r} is not playing: {why}; write the name of a bot that "
                          f"plays ({', '.join(names)}), a built-in bot such as \"GreedyBot\" (it is then added as a "
                          "reference bot), or \"\" to centre the Elo on the field")

    def make_limits(self) -> Any:
        """The isolation :class:`~cabo_kit.tournament.isolation.Limits` these settings ask for."""
        from .isolation import Limits

        kw: dict[str, Any] = {k: (int(v) if k in ("memory_mb", "cpu_s", "log_bytes") else float(v)) for k, v in self.limits.items()}
        return Limits(**kw)


def load_config(folder: str | Path) -> tuple[TournamentConfig, str]:
    """Read ``folder/tournament.toml``; return the settings and a one-line note on where they came from.

    >>> import tempfile
    >>> cfg, note = load_config(tempfile.mkdtemp())
    >>> note.startswith("no tournament.toml"), cfg.games
    (True, 32)
    """
    path = Path(folder) / "tournament.toml"
    if not path.exists():
        return TournamentConfig(), f"no tournament.toml in {folder}: using the documented defaults (docs/tournaments.md)"
    try:
        text = path.read_text(encoding="utf-8-sig")  # a UTF-8 BOM (an editor's "UTF-8 with BOM") is no mistake
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: tournament.toml is not UTF-8: save it as UTF-8 (e.g. Notepad's \"Save as\", "
                          "encoding UTF-8)") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc}); fix the line it names") from None
    return TournamentConfig.from_dict(data, str(path)), f"settings from {path}"


def _presets(value: Any, source: str) -> tuple[PresetEntry, ...]:
    if not isinstance(value, list) or not value:
        raise ConfigError(f'{source}: presets = {value!r}: write a list, e.g. presets = ["deluxe", {{preset = "rush", hand_size = 5}}]')
    out = []
    for item in value:
        if isinstance(item, str):
            name, overrides = item, {}
        elif isinstance(item, dict) and isinstance(item.get("preset"), str):
            overrides = {k: v for k, v in item.items() if k != "preset"}
            name = item["preset"]
        else:
            raise ConfigError(f'{source}: presets entry {item!r}: write a preset name or {{preset = "deluxe", hand_size = 6}}')
        if name not in PRESETS:
            raise ConfigError(f"{source}: presets has {name!r}{_hint(name, list(PRESETS))}; choose from {', '.join(PRESETS)}")
        entry = PresetEntry(name, tuple(sorted(overrides.items())))
        try:
            entry.rules
        except (RulesError, TypeError) as exc:
            raise ConfigError(f"{source}: presets entry for {name!r}: {exc}") from None
        if entry in out:
            raise ConfigError(f"{source}: presets lists {name!r} with the same overrides twice; remove one")
        out.append(entry)
    return tuple(out)


def _grading(value: Any, source: str) -> tuple[str, ...]:
    """``grading``: built-in bot names (exact case), each checked with a did-you-mean hint."""
    known = builtin_bots()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f'{source}: grading = {value!r}: write a list of built-in bot names, e.g. grading = ["GreedyBot"]')
    for name in value:
        if name not in known:
            raise ConfigError(f"{source}: grading bot {name!r} is not built in{_hint(name, known)}; "
                              f"choose from {', '.join(known)}")
    return tuple(dict.fromkeys(value))


def builtin_bots() -> list[str]:
    """The names of the built-in bots (the :class:`~cabo_kit.bot.Bot` classes of :mod:`cabo_kit.bots`), what
    ``reference``, ``anchor`` and ``grading`` may name; ``bots.__all__`` also lists functions (``by_level``).

    >>> builtin_bots()
    ['RandomBot', 'GreedyBot', 'CountingBot', 'SearchBot']
    """
    from ..bot import Bot
    from .. import bots

    return [n for n in bots.__all__ if isinstance(getattr(bots, n), type) and issubclass(getattr(bots, n), Bot)]


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _hint(word: str, choices: Any) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""
