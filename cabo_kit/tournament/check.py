"""Check a bot before submitting it: seeded games across presets and table sizes, problems in plain sentences.

``check_bot(path)`` loads the file exactly as a tournament does (in its own process, with the
same limits) and plays it isolated; ``check_bot(MyBot)`` (a class or an instance) plays it in
this process, for notebooks. Either way it plays seeded games against the reference bots on
every preset and several table sizes, with the bot in every seat, and reports:

- a method named like a hook but not one (``call_cabbo``: did you mean
  ``call_cabo``?), found without running the bot;
- an answer of the wrong type, with its value and type (``keep() returned True (bool)``);
- an illegal action, with why it is illegal now in the rules' words, and what was legal;
- an exception, with its traceback (SimpleBot's own errors name the learner's hook and line);
- a decision slower than the time limit (in a tournament that loses the game), and a bot
  too slow for a game's time bank: over the bank in a game, or at a pace of more than the bank
  over the decisions the reference bots make in a game of those rules and table size, judged after
  its first 20 decisions (slow decisions within it: a note);
- a crash of its process;
- nondeterminism: the same game replayed with the same seed went differently;
- as a note, what the bot printed: how many lines, and the first ones.

Tracebacks and sentences name files by their name (``alice.py``), never by a path of this machine.

Identical problems are listed once with their count and games; the check stops once one has
shown 3 times, so it ends within seconds even for a bot that hangs.

>>> import cabo_kit as ck
>>> report = check_bot(ck.bots.GreedyBot, games=3)
>>> report.ok, report.games
(True, 4)
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import hashlib
import io
import math
import re
import signal
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from ..actions import Action, ActionParseError
from ..bot import BOT_HOOKS, Bot, BotError, defined_at
from ..explain import not_an_action, not_legal
from ..faults import SHOWN_BYTES, fault_key, first_lines, what_happened
from ..game import Game
from ..faults import scrub_paths
from ..play import bot_random, run_game
from ..rules import Rules
from .config import TournamentConfig, load_config
from .isolation import (
    BotFault, IsolatedBot, Limits, Submission, SubmissionError, load_submission, one_line_reason,
)
from .progress import in_notebook as _in_notebook
from .timing import about, expected_games

__all__ = ["CheckReport", "ClassSettings", "ClassTime", "check_bot", "check_bot_cli", "class_settings", "hook_hints",
           "hints_in_source"]

PRESETS = ("deluxe", "rush", "traveller")
TABLE_SIZES = (2, 3, 4)


DECISIONS_PER_GAME = 600
"""About the most decisions one game asks of a bot (a rush game with snap windows: measured up to ~620): a
decision over ``game_bank_s / DECISIONS_PER_GAME`` is noted as slow. The pace rule uses :func:`decisions_a_game`."""
PACE_DEALS = 4
"""Deals the reference bots play (in this process, a few ms each) to count a game's decisions for the pace rule."""
SLOW_SAMPLE = 20
"""Decisions timed before a game's pace is judged against its time bank (a few slow ones lose nothing)."""
STOP_AFTER = 3
"""The check stops once the same problem has shown this many times (it would only repeat, slowly)."""

SIMPLE_HOOKS = ("initial_peek", "draw", "keep", "peek", "spy", "swap", "snap", "give", "call_cabo", "place")

DEFAULT_CLASS_FILES = 30
"""The class size the time estimate assumes without a class folder, or when DIR/bots is missing or holds fewer
files than a table has seats (``--class DIR`` counts DIR/bots)."""
TIME_REFERENCES = ("GreedyBot", "CountingBot")
"""The reference bots timed on the check's own deals, in the checked bot's seats, for its speed's yardstick."""
TIME_GAMES = 12
"""The reference bots are timed on at most this many of the check's deals (a long check stays about as long)."""
SLOW_RATIO = 10
"""A bot this many times slower a decision than the slower reference bot is warned about when it also adds
``SLOW_EXTRA_S`` seconds more to the class tournament than a file as fast as that bot would."""
SLOW_EXTRA_S = 60.0
TOO_SLOW_EXTRA_S = 180.0
"""A bot that adds this many seconds more than a file as fast as the reference bots is warned about, however fast
its decisions are (it plays many games, or long ones)."""
ISOLATION_S = 80e-6
"""Wall time isolation adds to a decision (docs/performance.md, "Isolated games and tournaments": 75-82 us, final
figures); added to a check in this process."""
START_S = 0.0037
"""Wall time to start a bot's process for a game (docs/performance.md, "Isolated games and tournaments": 3.7 ms):
added to a check in this process."""


@dataclass
class CheckReport:
    """What :func:`check_bot` found. ``ok`` is true when there is no problem; ``str(report)`` says it all.

    ``problems`` holds one sentence per kind of problem (identical ones grouped, with their
    count); ``notes`` what is worth knowing but loses no game (printed output, a near limit, the time
    the bot adds to a class tournament); ``settings`` the line saying what was checked (rules, table
    sizes, limits, memory, and whose settings); ``timing`` the :class:`ClassTime` estimate, if the bot
    made a timed decision; ``thinking_s`` and ``timed`` its decisions' wall time and count in the first plays.
    """

    bot: str
    games: int = 0
    planned: int = 0
    decisions: int = 0
    slowest_s: float = 0.0
    bank_used_s: float = 0.0
    slow_calls: int = 0
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    isolated: bool = False
    stopped: str = ""
    limit_s: float = 1.0
    settings: str = ""
    timing: "ClassTime | None" = None
    _played: list["_GameTime"] = field(default_factory=list, repr=False)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def thinking_s(self) -> float:
        """The wall time of the bot's timed decisions, in all of its plays so far."""
        return sum(g.decision_s for g in self._played)

    @property
    def timed(self) -> int:
        """How many of the bot's decisions were timed."""
        return sum(g.decisions for g in self._played)

    @property
    def over_limit(self) -> bool:
        """Whether a decision reached the time limit (it was stopped there, or overran it in this process)."""
        return self.slowest_s >= self.limit_s

    def __str__(self) -> str:
        where = "in its own process, as in a tournament" if self.isolated else "in this process"
        played = (f"{self.games} of {self.planned} games" if self.planned > self.games
                  else f"{self.games} game{'s' if self.games != 1 else ''}")
        if self.games == 0:
            head = f"{self.bot}: not played."
        elif self.decisions == 0:
            head = f"{self.bot}: {played} started {where}; none reached a decision of this bot."
        else:
            slowest = (f"slowest decision over the {self.limit_s:g} s limit" if self.over_limit
                       else f"slowest decision {self.slowest_s * 1000:.1f} ms")
            head = (f"{self.bot}: {played}, {self.decisions} decision{'s' if self.decisions != 1 else ''} "
                    f"asked, played {where}; {slowest}.")
        lines = [head]
        if self.settings:
            lines.append(self.settings)
        if self.stopped:
            lines.append(self.stopped)
        if self.ok:
            lines.append("No problems found.")
        else:
            lines.append(f"{len(self.problems)} problem{'s' if len(self.problems) > 1 else ''}:")
            lines.extend(f"{i}. {p}" for i, p in enumerate(self.problems, 1))
        lines.extend(self.notes)
        return "\n".join(lines)

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(str(self))

    def _repr_html_(self) -> str:
        import html

        return f"<pre>{html.escape(str(self))}</pre>"


@dataclass
class _Game:
    preset: str  # the rules' label: a preset's name, with its overrides if any ("deluxe with hand_size=5")
    n: int
    seat: int
    seed: int
    rules: Rules | None = None
    memory: str = "engine"

    def describe(self, index: int) -> str:
        return f"game {index + 1} ({self.preset}, {self.n} players, seed {self.seed}, your seat {self.seat})"

    def make_rules(self) -> Rules:
        return self.rules if self.rules is not None else Rules.preset(self.preset)


def rules_label(rules: Rules) -> str:
    """A preset's name, with the rules' differences from it: ``deluxe with hand_size=5``.

    >>> rules_label(Rules.preset("rush")), rules_label(Rules.preset("deluxe", hand_size=5))
    ('rush', 'deluxe with hand_size=5')
    """
    changed = rules.differences()
    return rules.name + (" with " + ", ".join(f"{k}={v!r}" if isinstance(v, str) else f"{k}={v}"
                                              for k, v in changed.items()) if changed else "")


def _schedule(games: int, seed: int, presets: Sequence[Rules], table_sizes: Sequence[int],
              memory: str = "engine") -> list[_Game]:
    out: list[_Game] = []
    for i in range(games):
        rules = presets[i % len(presets)]
        sizes = [n for n in table_sizes if rules.min_players <= n <= rules.max_players] or [rules.min_players]
        n = sizes[(i // len(presets)) % len(sizes)]
        out.append(_Game(rules_label(rules), n, i % n, seed + i, rules, memory))
    return out


# ---------------------------------------------------------------------- a class's settings, and the time a bot costs it


@dataclass(frozen=True)
class ClassSettings:
    """What a check plays with: a class folder's ``tournament.toml`` (or the defaults) and its number of files.

    ``files`` counts the ``.py`` files of ``folder/bots`` (as the tournament loads them), the checked
    file among them if it is not there yet; without a folder, or when ``folder/bots`` is missing or
    holds fewer files than a table has seats (the class is not collected yet), :data:`DEFAULT_CLASS_FILES`,
    and ``modelled`` says why (``""`` when the files were counted).
    """

    cfg: TournamentConfig
    folder: Path | None = None
    files: int = DEFAULT_CLASS_FILES
    others: tuple[str, ...] = ()
    modelled: str = ""

    @property
    def limits(self) -> Limits:
        return self.cfg.make_limits()

    @property
    def source(self) -> str:
        """Where the settings come from, for the report's line on what was checked."""
        if self.folder is None:
            return "the default settings (a class's own: --class DIR, in Python class_dir=DIR)"
        if (self.folder / "tournament.toml").exists():
            return f"the settings of {self.folder / 'tournament.toml'}"
        return f"the default settings ({self.folder} has no tournament.toml)"


def _settings_line(source: str, rules: Sequence[Rules], sizes: Sequence[int], limits: Limits, memory: str) -> str:
    """What the check played and under which limits, in one line."""
    return (f"Checked with {source}: {', '.join(rules_label(r) for r in rules)}; {_and([str(n) for n in sizes])} "
            f"players; limits {limits.decision_s:g} s a decision, {limits.game_bank_s:g} s a game, "
            f"{limits.memory_mb} MB; memory {memory!r}.")


def _and(words: Sequence[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def class_settings(folder: str | Path | None, bot_file: str | Path | None = None) -> ClassSettings:
    """The settings a check with ``--class folder`` plays with: ``folder/tournament.toml`` and ``folder/bots``.

    ``None``: the defaults and a class of :data:`DEFAULT_CLASS_FILES` files. A folder that does not exist,
    or holds neither ``tournament.toml`` nor ``bots/``, raises :class:`FileNotFoundError`; a bad
    ``tournament.toml``, :class:`~cabo_kit.tournament.config.ConfigError`: both say what to fix.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> (folder / "bots").mkdir()
    >>> toml = 'presets = ["rush"]\\ntable_sizes = [3]\\n[limits]\\ndecision_s = 0.5\\n'
    >>> _ = (folder / "tournament.toml").write_text(toml)
    >>> for name in ("ada", "bob"):
    ...     _ = (folder / "bots" / f"{name}.py").write_text("")
    >>> s = class_settings(folder, "new_bot.py")
    >>> s.files, s.others, s.limits.decision_s
    (3, ('ada', 'bob'), 0.5)
    >>> class_settings(folder / "nowhere")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    FileNotFoundError: --class .../nowhere: no such folder; give the tournament folder (the one that holds tournament.toml and bots/)
    """
    if folder is None:
        return ClassSettings(TournamentConfig())
    folder = Path(folder)
    hint = "give the tournament folder (the one that holds tournament.toml and bots/)"
    if not folder.is_dir():
        raise FileNotFoundError(f"--class {folder}: {'not a folder' if folder.exists() else 'no such folder'}; {hint}")
    if not (folder / "tournament.toml").exists() and not (folder / "bots").is_dir():
        above = folder.resolve().parent
        if folder.resolve().name == "bots" or (above / "tournament.toml").exists():
            hint = f"give the folder above it, the tournament folder: --class {folder.parent}"
        raise FileNotFoundError(f"--class {folder}: no tournament.toml and no bots/ folder in it; {hint}")
    cfg, _ = load_config(folder)  # a bad file raises ConfigError naming the key and the fix
    stems = [p.stem for p in sorted((folder / "bots").glob("*.py")) if not p.name.startswith("_")]
    mine = Path(bot_file).stem if bot_file is not None else None
    others = tuple(s for s in stems if s != mine)
    found = len(others) + 1
    if not (folder / "bots").is_dir() or found < max(cfg.table_sizes):
        held = ("there is no bots/ folder yet" if not (folder / "bots").is_dir() else
                f"bots/ holds {len(stems)} file{'s' if len(stems) != 1 else ''} so far")
        return ClassSettings(cfg, folder, DEFAULT_CLASS_FILES, others,
                             f"{held}: a class of {DEFAULT_CLASS_FILES} files assumed")
    return ClassSettings(cfg, folder, found, others)


@dataclass
class _GameTime:
    """One checked game's timing: its rules and size, the seat's decisions and wall times."""

    combo: tuple[str, int]
    decisions: int
    decision_s: float
    seat_s: float  # decisions and hooks (an isolated bot's process start is in its on_game_start)
    wall_s: float  # the whole game
    complete: bool
    actions: int = 0  # every seat's, in all: how long the game was


def _ms(seconds: float) -> str:
    ms = seconds * 1000
    return f"{ms:.1f} ms" if ms < 10 else f"{ms:.0f} ms"


@dataclass(frozen=True)
class ClassTime:
    """How long a bot makes a class tournament take, from what :func:`check_bot` measured.

    The model: each bot of a class plays the same games (``games``: per preset and table size, the
    class's ``games`` rounded up to whole duplicate deals by the tournament's own schedule; with
    ``precision`` set, at least :func:`~cabo_kit.tournament.timing.expected_games` (the same figure as
    ``tournament run --estimate``'s, more with an ``anchor``), within ``max_games``), so a file adds its own
    seat in each of its games (its decisions a game, as the check counted them on those rules and table
    size and scaled to a class's longer games, times its mean time a decision, never more than the game's
    time bank, plus its hooks and process start) and ``1/k`` of the table's own cost (the engine). With
    ``grading`` set it also plays ``grading_games`` one-on-one games against the bars (the expected figure of
    :func:`~cabo_kit.tournament.grades.grade_games` a bar and 2-player preset, as ``tournament run --estimate``
    counts them; ``grading_max`` at most: a file close to a bar plays them all), whole tables of its own. All of it is divided over the class's workers (``workers``, else one per usable
    core). The same is computed for the slower of the reference bots (:data:`TIME_REFERENCES`),
    played as the checked file was (isolated for a file) in its seats of the same deals, at tables of
    working bots (:func:`class_time`): ``reference_added_s`` is what a file as fast as it adds, and
    ``class_s`` the whole class with this file, the other files as fast as the reference bot. Measured on
    this machine, as loaded as it is now (docs/performance.md, "check-bot's time estimate", compares it with
    real runs). ``modelled``: why the class's size was assumed (``""``: its files were counted).
    """

    files: int
    workers: int
    games: int
    seconds_per_decision: float
    reference: str
    reference_seconds_per_decision: float
    added_s: float
    reference_added_s: float
    class_s: float
    in_process: bool = False
    grading_games: int = 0
    bars: tuple[str, ...] = ()
    modelled: str = ""
    grading_max: int = 0

    @property
    def ratio(self) -> float:
        """How many times slower a decision this bot is than the reference bot."""
        return self.seconds_per_decision / max(self.reference_seconds_per_decision, 1e-9)

    @property
    def far_slower(self) -> bool:
        """Whether to warn: ``SLOW_RATIO`` times slower and ``SLOW_EXTRA_S`` more time, or ``TOO_SLOW_EXTRA_S`` more."""
        extra = self.added_s - self.reference_added_s
        return (self.ratio >= SLOW_RATIO and extra >= SLOW_EXTRA_S) or extra >= TOO_SLOW_EXTRA_S

    def sentence(self) -> str:
        """The time this file adds to the class, against a file as fast as the reference bot.

        >>> t = ClassTime(40, 2, 96, 0.054, "CountingBot", 0.0004, 1200, 25, 2175)
        >>> print(t.sentence())  # doctest: +NORMALIZE_WHITESPACE
        At these limits this file adds about 20 minutes to a 40-file class (its 96 games, on 2 workers), where a
        file as fast as CountingBot adds about 25 seconds: the class takes about 36 minutes instead of about 17
        minutes. Its decisions take 54 ms on average, 135 times CountingBot's 0.4 ms.
        >>> print(ClassTime(30, 2, 96, 0.001, "GreedyBot", 0.0009, 0.5, 0.45, 13.5, modelled="bots/ holds 1 file "
        ...       "so far: a class of 30 files assumed").sentence())  # doctest: +NORMALIZE_WHITESPACE
        At these limits this file adds under a second to a 30-file class (bots/ holds 1 file so far: a class of 30
        files assumed; its 96 games, on 2 workers), where a file as fast as GreedyBot adds under a second: the
        class takes about 15 seconds. Its decisions take 1.0 ms on average (GreedyBot: 0.9 ms).
        """
        ref = self.reference
        instead = self.files * self.reference_added_s
        whole, before = about(self.class_s), about(instead)
        whole = f"the class takes {whole}" + (f" instead of {before}" if self.class_s >= 1.2 * instead
                                               and whole != before else "")
        times = (f", {self.ratio:.0f} times {ref}'s {_ms(self.reference_seconds_per_decision)}" if self.ratio >= 2
                 else f" ({ref}: {_ms(self.reference_seconds_per_decision)})")
        where = " (measured in this process, plus what isolation adds)" if self.in_process else ""
        games = f"its {self.games} games" if self.games else "no games of the class schedule"
        if self.grading_games:
            games += (f" and about {self.grading_games} one-on-one grading games against {_and(list(self.bars))}"
                      + (f" (at most {self.grading_max}: a file close to a bar plays them all)"
                         if self.grading_max > self.grading_games else ""))
        games = (f"{self.modelled}; " if self.modelled else "") + games
        return (f"At these limits this file adds {about(self.added_s)} to a {self.files}-file class "
                f"({games}, on {self.workers} worker{'s' if self.workers != 1 else ''}), where a file "
                f"as fast as {ref} adds {about(self.reference_added_s)}: {whole}. Its decisions take "
                f"{_ms(self.seconds_per_decision)} on average{where}{times}.")

    def warning(self) -> str:
        """The problem sentence for a bot :attr:`far_slower` than the reference bots: what it costs, what to do."""
        return ("Your bot is far slower than the reference bots. " + self.sentence() +
                " Make its decisions faster (e.g. fewer simulations or rollouts a decision, a cheaper evaluation, "
                "or stop searching once the answer is clear), then check it again.")


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def _per_combo(played: Sequence[_GameTime], combo: tuple[str, int], what: str, complete: bool = False) -> float:
    """The mean of ``what`` over the games of ``combo`` (over all games when none is of it); NaN if none."""
    games = [g for g in played if not complete or g.complete]
    mine = [g for g in games if g.combo == combo] or games
    return _mean([float(getattr(g, what)) for g in mine])


def _seat_time(played: Sequence[_GameTime]) -> tuple[float, float]:
    """Mean seconds a decision, and mean seconds a game outside decisions (hooks, the process start)."""
    decisions = sum(g.decisions for g in played)
    per_decision = sum(g.decision_s for g in played) / decisions if decisions else math.nan
    return per_decision, _mean([max(g.seat_s - g.decision_s, 0.0) for g in played])


def class_time(settings: ClassSettings, limits: Limits, name: str, played: Sequence[_GameTime],
               references: dict[str, list[_GameTime]], in_process: bool = False) -> ClassTime | None:
    """The :class:`ClassTime` of a checked bot against the timed reference bots; ``None`` when the bot made no
    timed decision, no reference game was timed, or the class would give it no game.

    ``played``: the bot's first plays of the check's games; ``references``: each reference bot's plays of
    the same games, in the same order, at tables of working bots (:func:`_time_references`). A class's
    games last as long as those: the bot's decisions a game are scaled by how many more actions the
    reference's game of the same deal had, and the table's own time (the engine's, per action, measured in
    the check's games) by its actions.
    """
    from .executors import default_workers
    from .grades import grade_games, graded_presets
    from .schedule import games_per_bot, make_schedule

    cfg = settings.cfg
    extra_decision, extra_game = (ISOLATION_S, START_S) if in_process else (0.0, 0.0)
    t_bot, h_bot = _seat_time(played)
    refs = {r: _seat_time(g) for r, g in references.items() if sum(x.decisions for x in g)}
    if not refs or not t_bot == t_bot:
        return None
    ref = max(refs, key=lambda r: refs[r][0])
    t_ref, h_ref = refs[ref]
    actions = sum(g.actions for g in played)
    engine_per_action = sum(max(g.wall_s - g.seat_s, 0.0) for g in played) / actions if actions else 0.0
    pairs = [(b, r) for b, r in zip(played, references[ref]) if b.complete and b.actions and r.actions]
    others = list(settings.others[: settings.files - 1])
    others += [f"file{i:02d}" for i in range(1, settings.files - len(others))]
    names = list(dict.fromkeys([name, *others, *cfg.reference]))
    workers = cfg.workers or default_workers()
    bank = limits.game_bank_s
    need = expected_games(cfg.precision, anchored=bool(cfg.anchor))

    def seats(combo: tuple[str, int]) -> tuple[float, float, float]:
        """The bot's and the reference's seat in a game of ``combo``, and the table's own time."""
        d_ref = _per_combo(references[ref], combo, "decisions")
        table = engine_per_action * _per_combo(references[ref], combo, "actions")
        mine = [(b, r) for b, r in pairs if b.combo == combo] or pairs
        # Where no game of its own ran to its end: as many decisions as the reference's.
        d_bot = _mean([b.decisions * r.actions / b.actions for b, r in mine]) if mine else d_ref
        return (min(d_bot * (t_bot + extra_decision), bank) + h_bot + extra_game,
                d_ref * (t_ref + extra_decision) + h_ref + extra_game, table)

    games = 0
    added = added_ref = 0.0
    for entry in cfg.presets:
        label = rules_label(entry.rules)
        for k in cfg.table_sizes:
            g = games_per_bot(make_schedule(names, entry.preset, entry.rules_json, k, cfg.games, cfg.seed)).get(name, 0)
            if g and need:
                g = max(g, min(cfg.max_games, k * math.ceil(need / k)))
            bot_seat, ref_seat, table = seats((label, k))
            games += g
            added += g * (bot_seat + table / k)
            added_ref += g * (ref_seat + table / k)
    grading = grading_max = 0
    expected, at_most = grade_games()  # as `tournament run --estimate` counts them
    for _bar in cfg.grading:  # one-on-one against each bar: whole games of its own, the bar's seat too
        for entry in graded_presets(cfg):
            bot_seat, ref_seat, table = seats((rules_label(entry.rules), 2))
            grading += expected
            grading_max += at_most
            added += expected * (bot_seat + ref_seat + table)
            added_ref += expected * (2 * ref_seat + table)
    if not games and not grading:
        return None
    added, added_ref = added / workers, added_ref / workers
    return ClassTime(settings.files, workers, games, t_bot + extra_decision, ref, t_ref + extra_decision, added,
                     added_ref, (settings.files - 1) * added_ref + added, in_process, grading, tuple(cfg.grading),
                     settings.modelled, grading_max)


class _Stop(Exception):
    """The checked bot failed; the game cannot go on. ``kind``: error, timeout, illegal, slow, crash."""

    def __init__(self, sentence: str, kind: str = "error") -> None:
        super().__init__(sentence)
        self.sentence = sentence
        self.kind = kind


# ---------------------------------------------------------------------- hook names, read without running the bot


def _reference_classes() -> set[type]:
    """The base classes and the reference bots: their methods are never a learner's misspelling."""
    from .. import bots as builtin
    from ..bot import SimpleBot
    from .config import builtin_bots

    out: set[type] = {object, Bot, SimpleBot}
    for name in builtin_bots():
        out.update(getattr(builtin, name).__mro__)
    return out


def _known_names() -> frozenset[str]:
    """Every name the base classes and the reference bots define: never a misspelt hook."""
    return frozenset(name for cls in _reference_classes() for name in dir(cls))


def _hint(name: str, known: frozenset[str]) -> str | None:
    """The hook ``name`` is probably a misspelling of, or ``None``: a close match (difflib's, as the rest of the
    kit's did-you-mean hints) of about its length (one letter more or less for a hook of 5 letters or fewer, two
    for a longer one), so a helper such as ``key``, ``seen`` or ``keep_low`` is left alone.

    >>> known = _known_names()
    >>> [_hint(n, known) for n in ("call_cabbo", "kep", "chose", "kepe", "key", "seen", "have", "keep_low")]
    ['call_cabo', 'keep', 'choose', 'keep', None, None, None, None]
    """
    if name.startswith("_") or name in known:
        return None
    for hook in difflib.get_close_matches(name, BOT_HOOKS + SIMPLE_HOOKS, n=1, cutoff=0.75):
        if abs(len(name) - len(hook)) <= (1 if len(hook) <= 5 else 2):
            return hook
    return None


def _hint_sentence(name: str, hook: str, where: str) -> str:
    return (f"`{name}` ({where}): did you mean `{hook}`? No hook is called `{name}`, so the game never calls it "
            f"and your bot plays with the default `{hook}`.")


def hook_hints(bot: "type[Bot] | str | Path", class_name: str | None = None) -> list[str]:
    """Sentences for methods named like a :class:`~cabo_kit.Bot` or :class:`~cabo_kit.SimpleBot`
    hook but not one (the game never calls them). Read without running the bot: the file's syntax
    tree for a path, the class's own methods for a class.

    >>> import cabo_kit as ck
    >>> class Typo(ck.SimpleBot):
    ...     def call_cabbo(self, obs):
    ...         return True
    ...     def keep_low(self, obs):
    ...         return 0
    >>> [h.split(":")[0] for h in hook_hints(Typo)]
    ['`call_cabbo` (line 2 of its cell)']
    """
    out: list[str] = []
    if isinstance(bot, type):
        known = _known_names()
        ours = _reference_classes()
        for cls in bot.__mro__:
            if cls in ours:
                continue
            for name, fn in vars(cls).items():
                hook = _hint(name, known) if callable(fn) else None
                if hook is not None:
                    out.append(_hint_sentence(name, hook, defined_at(fn) or f"class {cls.__name__}"))
        return out
    path = Path(bot)
    try:
        source = path.read_bytes()
    except OSError:
        return out  # the load reports it
    try:
        return hints_in_source(source, path.name, class_name)
    except (RecursionError, MemoryError):  # a file nested past the parser's or unparser's depth: the load reports it
        return out


def hints_in_source(source: str | bytes, filename: str, class_name: str | None = None) -> list[str]:
    """:func:`hook_hints` for Python source (a file's, a notebook cell's), read without running it.

    >>> hints_in_source("class B(ck.Bot):\\n    def on_gamestart(self, *a):\\n        pass\\n", "b.py")[0][:59]
    '`on_gamestart` (b.py line 2): did you mean `on_game_start`?'
    """
    import ast

    known = _known_names()
    out: list[str] = []
    try:
        tree = ast.parse(source, filename)
    except (SyntaxError, ValueError):
        return out  # the load reports it
    classes = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
    bot_classes: set[str] = {class_name} if class_name else set()
    changed = True
    while changed:  # a class whose base names a bot (or a bot class of this file) is one too
        changed = False
        for c in classes:
            if c.name not in bot_classes and any(
                    "Bot" in ast.unparse(b) or ast.unparse(b) in bot_classes for b in c.bases):
                bot_classes.add(c.name)
                changed = True
    for c in classes:
        if c.name not in bot_classes:
            continue
        for node in c.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                hook = _hint(node.name, known)
                if hook is not None:
                    out.append(_hint_sentence(node.name, hook, f"{filename} line {node.lineno}"))
    return out


# ---------------------------------------------------------------------- output, progress


class _Capture(io.TextIOBase):
    """Where an in-process bot's prints go during the check: counts lines, keeps the first 4 KiB."""

    def __init__(self) -> None:
        self.text = ""
        self.lines = 0
        self.partial = False

    def write(self, s: str) -> int:
        if len(self.text) < SHOWN_BYTES:
            self.text += s[: SHOWN_BYTES - len(self.text)]
        self.lines += s.count("\n")
        if s:
            self.partial = not s.endswith("\n")
        return len(s)

    def writable(self) -> bool:
        return True

    @property
    def head(self) -> list[str]:
        return first_lines(self.text)

    @property
    def total(self) -> int:
        return self.lines + (1 if self.partial else 0)


def printed_sentence(count: int, head: list[str], games: int = 0, capped: bool = False, lines: int = 5) -> str:
    """``your bot printed 212 lines; the first: ...`` (at most ``lines`` lines, 4 KiB).

    >>> print(printed_sentence(2, ["hello", "world"]))
    Note: your bot printed 2 lines:
        hello
        world
    """
    where = f" in {games} game{'s' if games != 1 else ''}" if games > 1 else ""
    more = "at least " if capped else ""
    shown = first_lines("\n".join(head), lines)
    body = "\n".join("    " + ln[:200] for ln in shown)
    one = "; the first" if len(shown) < count else ""
    return f"Note: your bot printed {more}{count} line{'s' if count != 1 else ''}{where}{one}:\n{body}"




class _Progress:
    """A tqdm bar on a terminal, a line per game elsewhere (on stderr), or nothing."""

    def __init__(self, total: int, label: str, enabled: bool) -> None:
        self.enabled = enabled
        self.bar: Any = None
        self.total = total
        if enabled and (sys.stderr.isatty() or _in_notebook()):
            from tqdm.auto import tqdm  # a widget in a notebook, text on a terminal

            self.bar = tqdm(total=total, desc=f"checking {label}", unit="game", file=sys.stderr, leave=False)

    def game(self, index: int, g: _Game, outcome: str) -> None:
        if self.bar is not None:
            self.bar.update(1)
            self.bar.set_postfix_str(outcome[:40])
        elif self.enabled:
            print(f"game {index + 1}/{self.total} ({g.preset}, {g.n} players, your seat {g.seat}): {outcome}",
                  file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


# ---------------------------------------------------------------------- one game


def _fault_sentence(fault: BotFault, what: str) -> tuple[str, str]:
    reason = fault.reason
    if fault.kind == "error":
        return f"{what}: {fault.says or reason}", "error"
    if fault.kind == "timeout":
        return f"{what} was too slow: {reason}. In a tournament this loses the game.", "timeout"
    if fault.kind == "illegal":
        return f"{what}: {reason}.", "illegal"
    return f"{what}: its process died. {reason}", "crash"


def _exception_sentence(what: str) -> str:
    value = sys.exc_info()[1]
    if isinstance(value, BotError):  # SimpleBot's own words name the hook, its answer and its line
        return f"{what}: {value}"
    return f"{what} raised an exception:\n{traceback.format_exc().rstrip()}"


class _Hang(BaseException):
    """Raised into an in-process bot that overran its time (a BaseException: its ``except Exception`` lets it by)."""


def _with_alarm(seconds: float, fn: Any, *args: Any) -> Any:
    """``fn(*args)``, interrupted by :class:`_Hang` after ``seconds`` where a timer signal can do it (the main
    thread on POSIX: a notebook's cells run there); elsewhere it simply runs."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        return fn(*args)

    def overran(signum: int, frame: Any) -> None:
        raise _Hang

    previous = signal.signal(signal.SIGALRM, overran)
    # Again every 50 ms after the first: a bot's bare ``except:`` may swallow one _Hang, not every one.
    before, _ = signal.setitimer(signal.ITIMER_REAL, seconds, 0.05)
    t0 = time.perf_counter()
    try:
        return fn(*args)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if before:  # a timer set by someone else goes on with what was left of it
            signal.setitimer(signal.ITIMER_REAL, max(before - (time.perf_counter() - t0), 0.001))


class _Game1:
    """The state of one checked game: timing (what the game's time bank would be charged), what the bot answered."""

    def __init__(self, label: str, limits: Limits, report: CheckReport, isolated: bool,
                 per_game: tuple[int, str] | None = None) -> None:
        self.label, self.limits, self.report, self.isolated = label, limits, report, isolated
        self.per_game = per_game  # the decisions a game of these rules asks, and of whom they were counted
        self.calls = 0
        self.used_s = 0.0
        self.decision_s = 0.0
        self.actions: list[str] = []

    def call(self, what: str, fn: Any, *args: Any, decision: bool = False) -> Any:
        """``fn(*args)`` timed and guarded; a ``decision`` (not a hook) counts towards the game's pace."""
        t0 = time.perf_counter()
        try:
            out = fn(*args) if self.isolated else _with_alarm(2 * self.limits.decision_s, fn, *args)
        except _Hang:
            self.report.slowest_s = max(self.report.slowest_s, time.perf_counter() - t0)
            raise _Stop(f"In {self.label}, {what} took longer than the {self.limits.decision_s:g} s limit: it was "
                        f"stopped after {2 * self.limits.decision_s:g} s (does it loop forever?). In a tournament "
                        "this loses the game.", "timeout") from None
        except BotFault as fault:
            if fault.kind == "timeout":
                    self.report.slowest_s = max(self.report.slowest_s, self.limits.decision_s)
            sentence, kind = _fault_sentence(fault, f"In {self.label}, {what}")
            raise _Stop(sentence, kind) from None
        except Exception:  # noqa: BLE001 - a learner's bug, reported with its traceback
            raise _Stop(_exception_sentence(f"In {self.label}, {what}")) from None
        elapsed = time.perf_counter() - t0
        report, limits = self.report, self.limits
        report.slowest_s = max(report.slowest_s, elapsed)
        if elapsed > limits.decision_s:  # in process (an isolated bot is stopped at the limit)
            raise _Stop(f"In {self.label}, {what} took longer than the {limits.decision_s:g} s limit "
                        f"({elapsed:.2f} s). In a tournament this loses the game.", "timeout")
        self.calls += decision
        self.decision_s += elapsed if decision else 0.0
        self.used_s += elapsed  # the bank is charged for hooks too
        report.bank_used_s = max(report.bank_used_s, self.used_s)
        if elapsed > limits.game_bank_s / DECISIONS_PER_GAME:
            report.slow_calls += 1
        bank = limits.game_bank_s
        if self.used_s > bank:  # in process (an isolated bot is stopped when its bank runs out)
            raise _Stop(f"In {self.label}, your bot is too slow for a tournament: its decisions took "
                        f"{self.used_s:.1f} s in all, more than a game's {bank:g} s time bank. In a tournament it "
                        "runs out of time and loses the game.", "slow")
        mean = self.used_s / max(self.calls, 1)
        per_game, whose = self.per_game or (DECISIONS_PER_GAME, "at most")
        if self.calls >= SLOW_SAMPLE and mean * per_game > bank:
            raise _Stop(
                f"In {self.label}, your bot is too slow for a tournament: its first {self.calls} decisions took "
                f"{self.used_s:.2f} s in all ({mean * 1000:.0f} ms on average). A game of these rules and players "
                f"asks a bot for about {per_game} decisions ({whose}; snap windows count): at this pace that is "
                f"about {mean * per_game:.0f} s, and the time bank is {bank:g} s a game, so it runs out of time and "
                f"loses the game. Keep a decision under {bank / per_game * 1000:.0f} ms on average.", "slow")
        return out


def _play_one(bot: Bot, g: _Game, index: int, limits: Limits, report: CheckReport,
              found: list[tuple[str, str, int]], opponents: Sequence[type[Bot]] = (),
              per_game: tuple[int, str] | None = None) -> list[str] | None:
    """Play one game; return the checked bot's actions (as text), or None if it failed (problem in ``found``).

    The other seats: ``opponents`` in turn, by default RandomBot and GreedyBot (the check's own games).
    ``per_game``: the decisions a game asks (:func:`decisions_a_game`) for the pace rule."""
    from ..bots import GreedyBot, RandomBot

    rules = g.make_rules()
    game = Game(rules, g.seed, g.n, memory=g.memory)
    others = tuple(opponents) or (RandomBot, GreedyBot)
    bots: list[Bot] = [others[s % len(others)]() for s in range(g.n)]
    bots[g.seat] = bot
    state = _Game1(g.describe(index), limits, report, isinstance(bot, IsolatedBot), per_game)
    t0 = time.perf_counter()
    complete = False
    try:
        for seat, b in enumerate(bots):
            b.random = bot_random(g.seed, seat)
            if seat == g.seat:
                state.call("on_game_start()", b.on_game_start, seat, g.n, rules)
            else:
                b.on_game_start(seat, g.n, rules)
        players: list[Bot] = list(bots)
        players[g.seat] = _Watched(bot, state)
        run_game(game, players, [type(b).__name__ for b in players])  # the one game loop (play.py)
        state.call("on_game_end()", bot.on_game_end, list(game.sheet.totals), list(game.sheet.winners))
        complete = True
    except _Stop as stop:
        found.append((fault_key(stop.kind, stop.sentence), stop.sentence, index))
        return None
    finally:
        if isinstance(bot, IsolatedBot):
            report.slowest_s = max(report.slowest_s, bot.slowest)
        report._played.append(_GameTime((g.preset, g.n), state.calls, state.decision_s, state.used_s,
                                        time.perf_counter() - t0, complete, len(game.history)))
    return state.actions


@functools.lru_cache(maxsize=256)  # a pure function of its arguments: a process checking many files counts once
def decisions_a_game(rules: Rules, n: int, seed: int = 0, memory: str = "engine",
                     deals: int = PACE_DEALS) -> int:
    """The mean decisions a seat is asked in a game of ``rules`` at ``n`` players, at tables of the reference bots
    (:data:`TIME_REFERENCES`, in this process: a few ms a game) over ``deals`` deals from ``seed``: what the pace
    of a checked bot is judged against (a class's games last about as long).

    >>> 100 < decisions_a_game(Rules.preset("deluxe"), 2) < 400
    True
    """
    from .. import bots as builtin

    counts: list[int] = []

    class Counted(Bot):
        def __init__(self, inner: Bot) -> None:
            self.inner, self.calls = inner, 0

        def choose(self, observation: Any, legal_actions: Sequence[Action]) -> Any:
            self.calls += 1
            return self.inner.choose(observation, legal_actions)

        def on_round_start(self, observation: Any) -> None:
            self.inner.on_round_start(observation)

        def on_round_end(self, result: Any) -> None:
            self.inner.on_round_end(result)

    kinds = [getattr(builtin, name) for name in TIME_REFERENCES]
    for deal in range(deals):
        game = Game(rules, seed + deal, n, memory=memory)
        seats = [Counted(kinds[(s + deal) % len(kinds)]()) for s in range(n)]
        for s, b in enumerate(seats):
            b.inner.random = bot_random(seed + deal, s)
            b.inner.on_game_start(s, n, rules)
        run_game(game, list(seats), [type(b.inner).__name__ for b in seats])
        counts.extend(b.calls for b in seats)
    return round(_mean([float(c) for c in counts]))


class _Watched(Bot):
    """The checked bot as the game loop sees it: every call timed and guarded, every answer validated."""

    def __init__(self, bot: Bot, state: _Game1) -> None:
        self._bot, self._state = bot, state

    def choose(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        obs = observation
        state = self._state
        what = f"choose() at round {obs.round + 1}, turn {obs.turn}, phase '{obs.phase}'"
        state.report.decisions += 1
        answer = state.call(what, self._bot.choose, obs, legal_actions, decision=True)
        if state.isolated:  # IsolatedBot.choose checked it, in the same words
            action = answer
        else:
            problem = _answer_problem(answer, obs, legal_actions)
            if isinstance(problem, str):
                raise _Stop(f"In {state.label}, {what}: {problem}.", "illegal")
            action = problem
        state.actions.append(str(action))
        return action

    def on_round_start(self, observation: Any) -> None:
        self._state.call("on_round_start()", self._bot.on_round_start, observation)

    def on_round_end(self, result: Any) -> None:
        self._state.call("on_round_end()", self._bot.on_round_end, result)


def _answer_problem(answer: Any, obs: Any, legal: Sequence[Action]) -> Action | str:
    """The action ``answer`` names if it is legal, else what is wrong with it (as an isolated bot's fault says it)."""
    try:
        action = Action.parse(answer)
    except ActionParseError as exc:
        return not_an_action(answer, exc)
    return action if action in legal else not_legal(action, obs, legal)


def _first_difference(a: list[str], b: list[str]) -> str:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"its decision {i + 1} was {x!r} the first time and {y!r} the second"
    return f"it made {len(a)} decisions the first time and {len(b)} the second"


def check_bot(
    bot: "Bot | type[Bot] | str | Path",
    games: int = 9,
    seed: int = 0,
    *,
    limits: Limits | None = None,
    presets: Sequence[str | Rules] | None = None,
    table_sizes: Sequence[int] | None = None,
    memory: str | None = None,
    replays: int = 1,
    progress: bool | None = None,
    class_dir: str | Path | None = None,
    timing: bool = True,
) -> CheckReport:
    """Play seeded games with ``bot`` and report its problems in plain sentences.

    ``bot`` is a file path (loaded and played isolated, exactly as a tournament does), a
    :class:`~cabo_kit.Bot` subclass, or an instance (played in this process; a fresh
    instance per game when the class builds without arguments). Games cycle through
    ``presets`` (names or :class:`~cabo_kit.Rules`; default deluxe, rush, traveller) and
    ``table_sizes`` (default 2, 3, 4) with the bot in every seat, against the reference bots, under
    ``limits`` (default :class:`Limits() <cabo_kit.tournament.Limits>`) with observations remembering
    ``memory`` (``"engine"``); the first ``replays`` games are played again with the same seed to
    catch nondeterminism. ``timing=False`` leaves out the time estimate below (the reference bots are not timed,
    so a bot far slower than they are is not found): a quick first verdict, as the class portal gives one.

    ``class_dir``: a class tournament's folder (``cabo-kit check-bot FILE --class DIR``). The check then
    plays with what the class's ``tournament.toml`` sets (its presets with their overrides, table sizes,
    memory and ``[limits]``: give none of those four with it) and names it in the report; a missing folder
    raises :class:`FileNotFoundError`, a bad ``tournament.toml``
    :class:`~cabo_kit.tournament.config.ConfigError`, each saying what to fix.

    Methods named like a hook but not one are found without running the bot; what the bot
    prints is counted and its first lines shown. The check stops once the same problem has
    shown 3 times, or once a bot is too slow for a game's time bank. ``progress``: a bar on a terminal
    or in a notebook, a line per game on stderr elsewhere; by default only on a terminal or in a notebook.

    **Time.** The report says how long the bot makes the class tournament take (``report.timing``, a
    :class:`ClassTime`: with ``class_dir`` that class's games, file count and workers, else
    :data:`DEFAULT_CLASS_FILES` files with the default ``tournament.toml``). After its own games the
    check plays GreedyBot and CountingBot in its seats of the same deals, the same way (isolated for a file,
    in this process for a class), and compares their time a decision with the bot's. A bot
    :data:`SLOW_RATIO` times slower than the slower of them that adds a minute or more to the class
    (or any bot that adds three minutes more than they would) has a problem saying so and what to do.

    >>> import cabo_kit as ck
    >>> class Stubborn(ck.Bot):
    ...     def choose(self, observation, legal_actions):
    ...         return "cabo"
    >>> report = check_bot(Stubborn, games=1, replays=0)
    >>> report.ok, "returned 'cabo', which is not legal now" in report.problems[0]
    (False, True)
    """
    bot_file = bot if isinstance(bot, (str, Path)) else None
    if class_dir is not None:
        given = [k for k, v in (("limits", limits), ("presets", presets), ("table_sizes", table_sizes),
                                ("memory", memory)) if v is not None]
        if given:
            raise ValueError(f"check_bot(): give class_dir alone or {', '.join(given)} alone: the class's "
                             "tournament.toml sets its presets, table sizes, memory and limits")
        settings = class_settings(class_dir, bot_file)
        limits = settings.limits
        rule_set = [entry.rules for entry in settings.cfg.presets]
        table_sizes = settings.cfg.table_sizes
        memory = settings.cfg.memory
    else:
        settings = class_settings(None)
        limits = limits or Limits()
        rule_set = [p if isinstance(p, Rules) else Rules.preset(p) for p in (presets or PRESETS)]
        table_sizes = table_sizes or TABLE_SIZES
        memory = memory or "engine"
    submission: Submission | None = None
    hints: list[str] = []
    if isinstance(bot, (str, Path)):
        path = Path(bot)
        try:
            submission = load_submission(path, limits)
        except SubmissionError as exc:
            report = CheckReport(bot=path.name, isolated=True, limit_s=limits.decision_s)
            report.problems.extend(hook_hints(path) if path.suffix == ".py" else [])
            line = one_line_reason(exc.reason, path.name)
            line = f"{path.name} {line}" if line.startswith("line ") else line
            full = "" if line == exc.reason.strip() else f"\n{exc.reason}"
            report.problems.append(scrub_paths(f"The file is rejected, as a tournament would reject it: {line}{full}",
                                               path.name, settings.folder))
            return report
        hints = hook_hints(path, submission.class_name)
        report = CheckReport(bot=f"{submission.name} ({submission.class_name})", isolated=True,
                             limit_s=limits.decision_s)
        from .config import builtin_bots

        if submission.name in builtin_bots():
            clash = (f"The file's name {path.name!r} is the name of the built-in reference bot {submission.name}: "
                     "a tournament that adds that bot (as a reference bot, the anchor or a grading bot) rejects this "
                     f"file. Rename it, e.g. my_{path.stem.lower()}.py.")
            if submission.name in settings.cfg.taken_names:  # as the tournament's collect_entrants refuses it
                report.problems.append(clash)
            else:
                report.notes.append("Note: " + clash)
    elif isinstance(bot, type):
        if not issubclass(bot, Bot):
            raise TypeError(f"{bot!r} is not a cabo_kit.Bot subclass")
        report = CheckReport(bot=bot.__name__, limit_s=limits.decision_s)
        hints = hook_hints(bot)
    elif isinstance(bot, Bot):
        report = CheckReport(bot=type(bot).__name__, limit_s=limits.decision_s)
        hints = hook_hints(type(bot))
    else:
        raise TypeError(f"check_bot() takes a file path, a Bot subclass or a Bot instance, not {bot!r}")
    report.problems.extend(hints)
    report.settings = _settings_line(settings.source, rule_set, table_sizes, limits, memory)

    def fresh() -> Bot:
        if submission is not None:
            return IsolatedBot(submission, limits)
        if isinstance(bot, type):
            return bot()
        assert isinstance(bot, Bot)
        try:
            return type(bot)()
        except Exception:  # noqa: BLE001 - a constructor with arguments: reuse the instance given
            return bot

    if isinstance(bot, type):
        try:
            bot()
        except Exception:  # noqa: BLE001
            report.problems.append(f"{bot.__name__}() raised an exception (a tournament builds your bot with "
                                   f"no arguments):\n{traceback.format_exc().rstrip()}")  # scrubbed below
            return report

    schedule = _schedule(games, seed, rule_set, table_sizes, memory)
    report.planned = len(schedule)
    found: list[tuple[str, str, int]] = []
    first_actions: list[list[str] | None] = []
    printed: tuple[int, list[str]] = (0, [])  # lines printed in all, the first ones
    printed_games = 0
    capped = False
    if progress is None:  # on a terminal and in a notebook; not in a script's or a test's output
        progress = sys.stderr.isatty() or _in_notebook()
    bar = _Progress(len(schedule), report.bot, progress)

    def play(g: _Game, index: int, into: CheckReport, where: list[tuple[str, str, int]],
             replay: bool = False) -> list[str] | None:
        """Play game ``g``; what the bot prints is counted in its first play only (a replay prints it again)."""
        nonlocal printed, printed_games, capped
        per_game = pace(g)
        player = fresh()
        capture = _Capture()
        try:
            if isinstance(player, IsolatedBot):
                return _play_one(player, g, index, limits, into, where, per_game=per_game)
            with contextlib.redirect_stdout(capture), contextlib.redirect_stderr(capture):
                return _play_one(player, g, index, limits, into, where, per_game=per_game)
        finally:
            if isinstance(player, IsolatedBot):
                text = player.log_text
                capped |= not replay and len(text.encode()) >= limits.log_bytes - 64
                capture.write(text)
                player.close()
            if capture.total and not replay:
                printed_games += 1
                printed = (printed[0] + capture.total, printed[1] or capture.head)

    def repeated() -> str | None:
        counts: dict[str, int] = {}
        for key, _, _ in found:
            counts[key] = counts.get(key, 0) + 1
            if counts[key] >= STOP_AFTER or key.startswith("slow:"):
                return key
        return None

    paces: dict[tuple[str, int], tuple[int, str]] = {}

    def pace(g: _Game) -> tuple[int, str]:
        """The decisions a game of ``g``'s rules and size asks, counted once per rules and size."""
        if (g.preset, g.n) not in paces:
            count = decisions_a_game(g.make_rules(), g.n, g.seed, g.memory)
            paces[(g.preset, g.n)] = (count, f"the mean of {_and(list(TIME_REFERENCES))} at tables of their own")
        return paces[(g.preset, g.n)]

    stop: str | None = None
    try:
        for index, g in enumerate(schedule):
            before = len(found)
            t0 = time.perf_counter()
            first_actions.append(play(g, index, report, found))
            report.games += 1
            took = f"{time.perf_counter() - t0:.1f} s"
            bar.game(index, g, f"ok, {took}" if len(found) == before else
                     f"{found[-1][0].split(':')[0]} problem, {took}: {what_happened(found[-1][1], 90)}")
            stop = repeated()
            if stop is not None:
                break
        if stop is None:
            for index, g in enumerate(schedule[:replays]):
                if first_actions[index] is None:
                    continue
                replay_report = CheckReport(bot=report.bot)
                replay_found: list[tuple[str, str, int]] = []
                again = play(g, index, replay_report, replay_found, replay=True)
                report.games += 1
                report.decisions += replay_report.decisions
                report.slowest_s = max(report.slowest_s, replay_report.slowest_s)
                if again is None:
                    key, sentence, _ = replay_found[0]
                    found.append((key, f"Replaying {g.describe(index)} with the same seed failed, though it went "
                                       f"well the first time: {sentence}", index))
                elif again != first_actions[index]:
                    found.append(("nondeterministic", (
                        f"Your bot is not deterministic: replaying {g.describe(index)} with the same seed, "
                        f"{_first_difference(first_actions[index] or [], again)}. Draw every random choice from "
                        "self.random (the game seeds it), and do not depend on the clock, on id() or on the order "
                        "of a set of strings."), index))
        elif report.games < len(schedule):
            what = ("your bot's first slow decisions" if stop.startswith("slow:")
                    else f"the same problem came up {STOP_AFTER} times")
            report.stopped = (f"The check stopped after {report.games} of {len(schedule)} games: {what}. "
                              "Fix it and run the check again.")
    finally:
        bar.close()
    report.problems.extend(group_problems(found))
    if timing and report.timed and (stop is None or stop.startswith("slow:")):  # else: fix it first, its time means little
        first_plays = schedule[:min(len(report._played), TIME_GAMES)]
        name = submission.name if submission is not None else report.bot
        references = _time_references(first_plays, limits, isolated=submission is not None)
        report.timing = class_time(settings, limits, name, report._played, references,
                                   in_process=submission is None)
        if report.timing is not None and report.timing.far_slower:
            report.problems.append(report.timing.warning())
    if printed[0]:
        report.notes.append(printed_sentence(printed[0], printed[1], printed_games, capped)
                            + "\n  In a tournament this goes to a log file (your bot's page shows its first lines); "
                              "printing also costs decision time.")
    if capped:
        report.notes.append(f"Note: your bot printed more than the {limits.log_bytes // 1024} KiB log cap in a game; "
                            "the rest was dropped.")
    if report.slow_calls and not any(key.startswith("slow:") for key, _, _ in found):
        report.notes.append(
            f"Note: {report.slow_calls} decision{'s' if report.slow_calls != 1 else ''} took over "
            f"{limits.game_bank_s / DECISIONS_PER_GAME * 1000:.0f} ms; the most one game used was "
            f"{report.bank_used_s:.1f} s of its {limits.game_bank_s:g} s time bank (a long game asks up to about "
            f"{DECISIONS_PER_GAME} decisions).")
    if report.isolated and report.slowest_s > limits.decision_s / 2 and report.ok:
        report.notes.append(f"Note: the slowest decision used more than half of the {limits.decision_s:g} s limit; "
                            "a busier machine could push it over.")
    if report.timing is not None and not report.timing.far_slower:
        report.notes.append("Time: " + report.timing.sentence())
    # without this machine's paths, as the bots' pages show it: a check's report may be shared
    own = Path(bot).name if isinstance(bot, (str, Path)) else None
    report.problems = [scrub_paths(p, own, settings.folder) for p in report.problems]
    report.notes = [scrub_paths(n, own, settings.folder) for n in report.notes]
    return report


def _time_references(games: Sequence[_Game], limits: Limits, isolated: bool) -> dict[str, list[_GameTime]]:
    """Play each of :data:`TIME_REFERENCES` in the checked bot's seats of ``games``, as it was played (isolated,
    from a file of one line that subclasses it, or in this process), and return each one's game timings.

    The other seats are GreedyBot and CountingBot in turn, as a class of working bots: games among them
    last longer than the check's, whose RandomBot seats end them early (about twice as many actions)."""
    from .. import bots as builtin

    CLASS_LIKE = (builtin.CountingBot, builtin.GreedyBot)

    out: dict[str, list[_GameTime]] = {}
    with tempfile.TemporaryDirectory(prefix="cabo-check-") as tmp:
        for name in TIME_REFERENCES:
            cls = getattr(builtin, name)
            scratch = CheckReport(bot=name)
            player: IsolatedBot | None = None
            if isolated:
                path = Path(tmp) / f"{name.lower()}.py"
                source = f"from cabo_kit.bots import {name} as _Base\n\n\nclass {name}(_Base):\n    pass\n".encode()
                path.write_bytes(source)
                version = hashlib.sha256(source).hexdigest()[:12]  # as load_submission names it: the harness checks
                player = IsolatedBot(Submission(name, version, path, name), limits)
            try:
                for index, g in enumerate(games):
                    _play_one(player if player is not None else cls(), g, index, limits, scratch, [], CLASS_LIKE)
            finally:
                if player is not None:
                    player.close()
            out[name] = scratch._played
    return out


def group_problems(found: Sequence[tuple[str, str, int]]) -> list[str]:
    """One sentence per kind of problem (``(key, sentence, game index)`` in the order found): the first example,
    and how many times in all, in which games.

    >>> print(group_problems([("k", "In game 1, boom.", 0), ("k", "In game 4, boom.", 3)])[0])
    In game 1, boom.
    (2 times in all: games 1 and 4.)
    """
    order: list[str] = []
    first: dict[str, str] = {}
    games: dict[str, list[int]] = {}
    for key, sentence, index in found:
        if key not in first:
            first[key] = sentence
            games[key] = []
            order.append(key)
        games[key].append(index + 1)
    out = []
    for k in order:
        g = games[k]
        if len(g) == 1:
            out.append(first[k])
            continue
        listed = sorted(set(g))
        names = ", ".join(map(str, listed[:-1])) + f" and {listed[-1]}" if len(listed) > 1 else str(listed[0])
        out.append(f"{first[k]}\n({len(g)} times in all: game{'s' if len(listed) > 1 else ''} {names}.)")
    return out


def check_bot_cli(path: str | Path, games: int = 9, seed: int = 0, progress: bool = True,
                  class_dir: str | Path | None = None, timing: bool = True) -> int:
    """``cabo-kit check-bot FILE [--class DIR]``: print the report; return 0 when there is no problem, else 1.

    Progress goes to stderr (a bar on a terminal, a line per game elsewhere), the report to stdout.
    ``class_dir`` and ``timing``: as :func:`check_bot`'s (a bad folder or ``tournament.toml`` raises, before any game).

    >>> import tempfile, pathlib
    >>> bad = pathlib.Path(tempfile.mkdtemp()) / "empty.py"
    >>> _ = bad.write_text("x = 1\\n")
    >>> check_bot_cli(bad)  # doctest: +ELLIPSIS
    empty.py: not played.
    1 problem:
    1. The file is rejected, as a tournament would reject it: empty.py has no Bot subclass of its own: ...
    1
    """
    report = check_bot(path, games=games, seed=seed, progress=progress, class_dir=class_dir, timing=timing)
    print(report)
    return 0 if report.ok else 1
