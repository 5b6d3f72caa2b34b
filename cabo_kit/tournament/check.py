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
  over a long game, judged after its first 20 decisions (slow decisions within it: a note);
- a crash of its process;
- nondeterminism: the same game replayed with the same seed went differently;
- as a note, what the bot printed: how many lines, and the first ones.

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
import io
import re
import signal
import sys
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
from ..play import bot_random, run_game
from ..rules import Rules
from .isolation import (
    BotFault, IsolatedBot, Limits, Submission, SubmissionError, load_submission, one_line_reason,
)
from .progress import in_notebook as _in_notebook

__all__ = ["CheckReport", "check_bot", "check_bot_cli", "hook_hints", "hints_in_source"]

PRESETS = ("deluxe", "rush", "traveller")
TABLE_SIZES = (2, 3, 4)


DECISIONS_PER_GAME = 600
"""About the most decisions one game asks of a bot (a rush game with snap windows: measured up to ~620)."""
SLOW_SAMPLE = 20
"""Decisions timed before a game's pace is judged against its time bank (a few slow ones lose nothing)."""
STOP_AFTER = 3
"""The check stops once the same problem has shown this many times (it would only repeat, slowly)."""

SIMPLE_HOOKS = ("initial_peek", "draw", "keep", "peek", "spy", "swap", "snap", "give", "call_cabo", "place")


@dataclass
class CheckReport:
    """What :func:`check_bot` found. ``ok`` is true when there is no problem; ``str(report)`` says it all.

    ``problems`` holds one sentence per kind of problem (identical ones grouped, with their
    count); ``notes`` what is worth knowing but loses no game (printed output, a near limit).
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

    @property
    def ok(self) -> bool:
        return not self.problems

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
    preset: str
    n: int
    seat: int
    seed: int

    def describe(self, index: int) -> str:
        return f"game {index + 1} ({self.preset}, {self.n} players, seed {self.seed}, your seat {self.seat})"


def _schedule(games: int, seed: int, presets: Sequence[str], table_sizes: Sequence[int]) -> list[_Game]:
    out: list[_Game] = []
    for i in range(games):
        preset = presets[i % len(presets)]
        rules = Rules.preset(preset)
        sizes = [n for n in table_sizes if rules.min_players <= n <= rules.max_players] or [rules.min_players]
        n = sizes[(i // len(presets)) % len(sizes)]
        out.append(_Game(preset, n, i % n, seed + i))
    return out


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

    out: set[type] = {object, Bot, SimpleBot}
    for name in builtin.__all__:
        cls = getattr(builtin, name, None)
        if isinstance(cls, type):
            out.update(cls.__mro__)
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
    return hints_in_source(source, path.name, class_name)


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

    def __init__(self, label: str, limits: Limits, report: CheckReport, isolated: bool) -> None:
        self.label, self.limits, self.report, self.isolated = label, limits, report, isolated
        self.calls = 0
        self.used_s = 0.0
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
        if self.calls >= SLOW_SAMPLE and mean * DECISIONS_PER_GAME > bank:
            raise _Stop(
                f"In {self.label}, your bot is too slow for a tournament: its first {self.calls} decisions took "
                f"{self.used_s:.2f} s in all ({mean * 1000:.0f} ms on average). A game can ask it for about "
                f"{DECISIONS_PER_GAME} decisions (snap windows count) within a {bank:g} s time bank: at this pace "
                f"it runs out of time and loses the game. Keep a decision under "
                f"{bank / DECISIONS_PER_GAME * 1000:.0f} ms on average.", "slow")
        return out


def _play_one(bot: Bot, g: _Game, index: int, limits: Limits, report: CheckReport,
              found: list[tuple[str, str, int]]) -> list[str] | None:
    """Play one game; return the checked bot's actions (as text), or None if it failed (problem in ``found``)."""
    from ..bots import GreedyBot, RandomBot

    rules = Rules.preset(g.preset)
    game = Game(rules, g.seed, g.n)
    bots: list[Bot] = [GreedyBot() if s % 2 else RandomBot() for s in range(g.n)]
    bots[g.seat] = bot
    state = _Game1(g.describe(index), limits, report, isinstance(bot, IsolatedBot))
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
    except _Stop as stop:
        found.append((fault_key(stop.kind, stop.sentence), stop.sentence, index))
        return None
    finally:
        if isinstance(bot, IsolatedBot):
            report.slowest_s = max(report.slowest_s, bot.slowest)
    return state.actions


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
    presets: Sequence[str] = PRESETS,
    table_sizes: Sequence[int] = TABLE_SIZES,
    replays: int = 1,
    progress: bool | None = None,
) -> CheckReport:
    """Play seeded games with ``bot`` and report its problems in plain sentences.

    ``bot`` is a file path (loaded and played isolated, exactly as a tournament does), a
    :class:`~cabo_kit.Bot` subclass, or an instance (played in this process; a fresh
    instance per game when the class builds without arguments). Games cycle through
    ``presets`` and ``table_sizes`` with the bot in every seat, against the reference bots;
    the first ``replays`` games are played again with the same seed to catch nondeterminism.
    Methods named like a hook but not one are found without running the bot; what the bot
    prints is counted and its first lines shown. The check stops once the same problem has
    shown 3 times, or once a bot is too slow for a game's time bank. ``progress``: a bar on a terminal
    or in a notebook, a line per game on stderr elsewhere; by default only on a terminal or in a notebook.

    >>> import cabo_kit as ck
    >>> class Stubborn(ck.Bot):
    ...     def choose(self, observation, legal_actions):
    ...         return "cabo"
    >>> report = check_bot(Stubborn, games=1, replays=0)
    >>> report.ok, "returned 'cabo', which is not legal now" in report.problems[0]
    (False, True)
    """
    limits = limits or Limits()
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
            report.problems.append(f"The file is rejected, as a tournament would reject it: {line}{full}")
            return report
        hints = hook_hints(path, submission.class_name)
        report = CheckReport(bot=f"{submission.name} ({submission.class_name})", isolated=True,
                             limit_s=limits.decision_s)
        from .. import bots as builtin
        from .config import TournamentConfig

        reference = getattr(builtin, submission.name, None) if submission.name in builtin.__all__ else None
        if isinstance(reference, type) and issubclass(reference, Bot):
            clash = (f"The file's name {path.name!r} is the name of the built-in reference bot {submission.name}: "
                     f"a tournament that adds that bot rejects this file. Rename it, e.g. my_{path.stem.lower()}.py.")
            if submission.name in TournamentConfig().reference:  # added by default, as the rating anchor
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
            report.problems.append(f"{bot.__name__}() raised an exception (a tournament builds your bot with no "
                                   f"arguments):\n{traceback.format_exc().rstrip()}")
            return report

    schedule = _schedule(games, seed, presets, table_sizes)
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
        player = fresh()
        capture = _Capture()
        try:
            if isinstance(player, IsolatedBot):
                return _play_one(player, g, index, limits, into, where)
            with contextlib.redirect_stdout(capture), contextlib.redirect_stderr(capture):
                return _play_one(player, g, index, limits, into, where)
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
    if printed[0]:
        report.notes.append(printed_sentence(printed[0], printed[1], printed_games, capped)
                            + "\n  In a tournament this goes to a log file (the report shows its first lines); "
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
    return report


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


def check_bot_cli(path: str | Path, games: int = 9, seed: int = 0, progress: bool = True) -> int:
    """``cabo-kit check-bot FILE``: print the report; return 0 when there is no problem, else 1.

    Progress goes to stderr (a bar on a terminal, a line per game elsewhere), the report to stdout.

    >>> import tempfile, pathlib
    >>> bad = pathlib.Path(tempfile.mkdtemp()) / "empty.py"
    >>> _ = bad.write_text("x = 1\\n")
    >>> check_bot_cli(bad)  # doctest: +ELLIPSIS
    empty.py: not played.
    1 problem:
    1. The file is rejected, as a tournament would reject it: empty.py has no Bot subclass of its own: ...
    1
    """
    report = check_bot(path, games=games, seed=seed, progress=progress)
    print(report)
    return 0 if report.ok else 1
