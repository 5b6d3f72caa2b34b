"""Check a bot before submitting it: seeded games across presets and table sizes, problems in plain sentences.

``check_bot(path)`` loads the file exactly as a tournament does (in its own process, with the
same limits) and plays it isolated; ``check_bot(MyBot)`` (a class or an instance) plays it in
this process, for notebooks. Either way it plays seeded games against the reference bots on
every preset and several table sizes, with the bot in every seat, and reports:

- an illegal action (what it returned, what was legal);
- an exception, with its traceback;
- a decision slower than the time limit (in a tournament that loses the game);
- a crash of its process (and, as a note, output beyond the log cap, which is dropped);
- nondeterminism: the same game replayed with the same seed went differently.

>>> import cabo_kit as ck
>>> report = check_bot(ck.bots.GreedyBot, games=3)
>>> report.ok, report.games
(True, 4)
"""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from ..actions import Action, ActionParseError
from ..bot import Bot
from ..game import Game
from ..play import bot_random, run_game
from ..rules import Rules
from .isolation import BotFault, IsolatedBot, Limits, Submission, SubmissionError, load_submission

__all__ = ["CheckReport", "check_bot", "check_bot_cli"]

PRESETS = ("deluxe", "rush", "traveller")
TABLE_SIZES = (2, 3, 4)


@dataclass
class CheckReport:
    """What :func:`check_bot` found. ``ok`` is true when there is no problem; ``str(report)`` says it all."""

    bot: str
    games: int = 0
    decisions: int = 0
    slowest_s: float = 0.0
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    isolated: bool = False

    @property
    def ok(self) -> bool:
        return not self.problems

    def __str__(self) -> str:
        where = "in its own process, as in a tournament" if self.isolated else "in this process"
        if self.games == 0:
            head = f"{self.bot}: not played."
        elif self.decisions == 0:
            head = f"{self.bot}: {self.games} games started {where}; none reached a decision of this bot."
        else:
            head = (f"{self.bot}: {self.games} games, {self.decisions} decisions, played {where}; "
                    f"slowest decision {self.slowest_s * 1000:.1f} ms.")
        lines = [head]
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
    """The checked bot failed; the game cannot go on."""

    def __init__(self, sentence: str) -> None:
        super().__init__(sentence)
        self.sentence = sentence


def _in_process_call(bot: Bot, what: str, limit: float, fn: Any, *args: Any) -> tuple[Any, float]:
    t0 = time.perf_counter()
    try:
        out = fn(*args)
    except Exception:  # noqa: BLE001 - a learner's bug, reported with its traceback
        raise _Stop(f"{what} raised an exception:\n{traceback.format_exc().rstrip()}") from None
    return out, time.perf_counter() - t0


def _fault_sentence(fault: BotFault, what: str) -> str:
    return {
        "error": f"{what}: {fault.reason}",
        "timeout": f"{what} was too slow: {fault.reason}. In a tournament this loses the game.",
        "illegal": f"{what} returned an illegal action: {fault.reason}.",
        "crash": f"{what}: its process died. {fault.reason}",
    }[fault.kind]


def _play_one(bot: Bot, g: _Game, index: int, limits: Limits, report: CheckReport) -> list[str] | None:
    """Play one game; return the checked bot's actions (as text), or None if it failed (problem recorded)."""
    from ..bots import GreedyBot, RandomBot

    rules = Rules.preset(g.preset)
    game = Game(rules, g.seed, g.n)
    bots: list[Bot] = [GreedyBot() if s % 2 else RandomBot() for s in range(g.n)]
    bots[g.seat] = bot
    isolated = isinstance(bot, IsolatedBot)
    label = g.describe(index)
    actions: list[str] = []
    slow: list[float] = []

    def call(what: str, fn: Any, *args: Any) -> Any:
        if isolated:
            try:
                return fn(*args)
            except BotFault as fault:
                raise _Stop(_fault_sentence(fault, f"In {label}, {what}")) from None
        out, elapsed = _in_process_call(bot, f"In {label}, {what}", limits.decision_s, fn, *args)
        if elapsed > limits.decision_s:
            slow.append(elapsed)
        report.slowest_s = max(report.slowest_s, elapsed)
        return out

    try:
        for seat, b in enumerate(bots):
            b.random = bot_random(g.seed, seat)
            if seat == g.seat:
                call("on_game_start()", b.on_game_start, seat, g.n, rules)
            else:
                b.on_game_start(seat, g.n, rules)
        players: list[Bot] = list(bots)
        players[g.seat] = _Watched(bot, call, report, label, actions)
        run_game(game, players, [type(b).__name__ for b in players])  # the one game loop (play.py)
        call("on_game_end()", bot.on_game_end, list(game.sheet.totals), list(game.sheet.winners))
    except _Stop as stop:
        report.problems.append(stop.sentence)
        return None
    finally:
        if isolated:
            assert isinstance(bot, IsolatedBot)
            report.slowest_s = max(report.slowest_s, bot.slowest)
    if slow:
        report.problems.append(
            f"In {label}, {len(slow)} decision{'s' if len(slow) > 1 else ''} took longer than the "
            f"{limits.decision_s:g} s limit (the slowest {max(slow):.2f} s). In a tournament that loses the game.")
    return actions


class _Watched(Bot):
    """The checked bot as the game loop sees it: every call timed and guarded, every answer validated."""

    def __init__(self, bot: Bot, call: Any, report: "CheckReport", label: str, actions: list[str]) -> None:
        self._bot, self._call, self._report, self._label, self._actions = bot, call, report, label, actions

    def choose(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        obs = observation
        where = f"round {obs.round + 1}, turn {obs.turn}, phase '{obs.phase}'"
        answer = self._call(f"choose() at {where}", self._bot.choose, obs, legal_actions)
        self._report.decisions += 1
        action = _checked_action(answer, legal_actions, f"In {self._label}, choose() at {where}")
        self._actions.append(str(action))
        return action

    def on_round_start(self, observation: Any) -> None:
        self._call("on_round_start()", self._bot.on_round_start, observation)

    def on_round_end(self, result: Any) -> None:
        self._call("on_round_end()", self._bot.on_round_end, result)


def _checked_action(answer: Any, legal: Sequence[Action], what: str) -> Action:
    try:
        action = Action.parse(answer)
    except ActionParseError as exc:
        raise _Stop(f"{what} returned {answer!r:.80}, which is not an action: {exc}") from None
    if action not in legal:
        shown = ", ".join(str(a) for a in list(legal)[:12])
        raise _Stop(f"{what} returned the illegal action {str(action)!r} (legal: {shown}).")
    return action


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
) -> CheckReport:
    """Play seeded games with ``bot`` and report its problems in plain sentences.

    ``bot`` is a file path (loaded and played isolated, exactly as a tournament does), a
    :class:`~cabo_kit.Bot` subclass, or an instance (played in this process; a fresh
    instance per game when the class builds without arguments). Games cycle through
    ``presets`` and ``table_sizes`` with the bot in every seat, against the reference bots;
    the first ``replays`` games are played again with the same seed to catch nondeterminism.

    >>> import cabo_kit as ck
    >>> class Stubborn(ck.Bot):
    ...     def choose(self, observation, legal_actions):
    ...         return "cabo"
    >>> report = check_bot(Stubborn, games=1, replays=0)
    >>> report.ok, "illegal action 'cabo'" in report.problems[0]
    (False, True)
    """
    limits = limits or Limits()
    submission: Submission | None = None
    if isinstance(bot, (str, Path)):
        path = Path(bot)
        try:
            submission = load_submission(path, limits)
        except SubmissionError as exc:
            report = CheckReport(bot=path.name, isolated=True)
            report.problems.append(f"The file is rejected, as a tournament would reject it: {exc.reason}")
            return report
        report = CheckReport(bot=f"{submission.name} ({submission.class_name})", isolated=True)
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
        report = CheckReport(bot=bot.__name__)
    elif isinstance(bot, Bot):
        report = CheckReport(bot=type(bot).__name__)
    else:
        raise TypeError(f"check_bot() takes a file path, a Bot subclass or a Bot instance, not {bot!r}")

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
    first_actions: list[list[str] | None] = []
    printed_too_much = False
    for index, g in enumerate(schedule):
        player = fresh()
        try:
            first_actions.append(_play_one(player, g, index, limits, report))
        finally:
            if isinstance(player, IsolatedBot):
                printed_too_much |= len(player.log_text.encode()) >= limits.log_bytes - 64
                player.close()
        report.games += 1
    for index, g in enumerate(schedule[:replays]):
        if first_actions[index] is None:
            continue
        player = fresh()
        replay_report = CheckReport(bot=report.bot)
        try:
            again = _play_one(player, g, index, limits, replay_report)
        finally:
            if isinstance(player, IsolatedBot):
                player.close()
        report.games += 1
        report.decisions += replay_report.decisions
        report.slowest_s = max(report.slowest_s, replay_report.slowest_s)
        if again is None:
            report.problems.append(f"Replaying {g.describe(index)} with the same seed failed, though it went "
                                   f"well the first time: {replay_report.problems[0]}")
        elif again != first_actions[index]:
            report.problems.append(
                f"Your bot is not deterministic: replaying {g.describe(index)} with the same seed, "
                f"{_first_difference(first_actions[index] or [], again)}. Draw every random choice from "
                "self.random (the game seeds it), and do not depend on the clock, on id() or on the order "
                "of a set of strings.")
    report.problems = _merge_repeats(report.problems)
    if printed_too_much:
        report.notes.append(f"Note: your bot printed more than the {limits.log_bytes // 1024} KiB log cap in a game; "
                            "the rest was dropped. Printing also costs decision time.")
    if report.isolated and report.slowest_s > limits.decision_s / 2 and report.ok:
        report.notes.append(f"Note: the slowest decision used more than half of the {limits.decision_s:g} s limit; "
                            "a busier machine could push it over.")
    return report


def _merge_repeats(problems: list[str]) -> list[str]:
    """Keep the first of problems that end the same way (same error, same limit), with a count of the others."""
    order: list[str] = []
    first: dict[str, str] = {}
    count: dict[str, int] = {}
    for p in problems:
        key = p.rstrip().splitlines()[-1] if p.strip() else p
        if p.startswith("In game") and "illegal action" in p:
            key = "illegal"
        if key not in first:
            first[key] = p
            count[key] = 0
            order.append(key)
        else:
            count[key] += 1
    return [first[k] + (f"\n(The same happened in {count[k]} other game{'s' if count[k] > 1 else ''}.)"
                        if count[k] else "") for k in order]


def check_bot_cli(path: str | Path, games: int = 9, seed: int = 0) -> int:
    """``cabo-kit check-bot FILE``: print the report; return 0 when there is no problem, else 1.

    >>> import tempfile, pathlib
    >>> bad = pathlib.Path(tempfile.mkdtemp()) / "empty.py"
    >>> _ = bad.write_text("x = 1\\n")
    >>> check_bot_cli(bad)  # doctest: +ELLIPSIS
    empty.py: not played.
    1 problem:
    1. The file is rejected, as a tournament would reject it: empty.py has no Bot subclass of its own: ...
    1
    """
    report = check_bot(path, games=games, seed=seed)
    print(report)
    return 0 if report.ok else 1
