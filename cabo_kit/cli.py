"""The ``cabo-kit`` command line: simulate games between bots, and a quick demo.

``cabo-kit simulate`` plays many seeded games between bots of :mod:`cabo_kit.bots` and
prints, per bot, its win rate, mean final total and how often each rule came into play::

    cabo-kit simulate --preset deluxe --bots GreedyBot,RandomBot --games 500 --seed 1
    cabo-kit simulate --preset rush --bots greedybot,randombot,randombot --set hand_size=6 --set initial_peeks=3
    cabo-kit demo

Bad arguments print one line naming the problem and the fix, and exit with status 2.

Adding a command: write ``add_NAME_arguments(parser)`` and ``cmd_NAME(args) -> int`` and
add one line to :data:`COMMANDS` (a command with its own sub-commands, such as
``tournament run|report``, adds them in its ``add_..._arguments`` with
``parser.add_subparsers``).

>>> main(["simulate", "--bots", "GreedyBot,RandomBot", "--games", "2", "--no-progress"])  # doctest: +ELLIPSIS
deluxe, 2 players, 2 games, seed 0, memory engine; seats rotate every game
bot ...
0
"""

from __future__ import annotations

import argparse
import ast
import copy
import hashlib
import inspect
import re
import shlex
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from . import __version__
from .bot import Bot
from .play import play_game
from .record import GameRecord
from .rules import POWERS, PRESETS, Rules, RulesError

__all__ = [
    "COMMANDS", "BotEntry", "Summary", "UsageError", "build_parser", "cmd_demo", "cmd_play", "cmd_simulate",
    "format_summary", "game_seed", "main", "make_rules", "parse_settings", "play_command", "play_options",
    "resolve_bots", "simulate",
]

PROG = "cabo-kit"


class UsageError(Exception):
    """Bad command-line input; the message is one line naming the problem and the fix."""


class _Parser(argparse.ArgumentParser):
    """An argparse parser whose errors become one-line :class:`UsageError` messages (no usage dump)."""

    def error(self, message: str) -> Any:  # argparse calls this for every bad argument
        raise UsageError(f"{self.prog}: {message} (see: {self.prog} --help)")


# ------------------------------------------------------------------ input parsing


def parse_settings(items: Sequence[str]) -> dict[str, Any]:
    """Rules overrides from ``--set field=value`` items; values are Python literals, bare words are strings.

    >>> parse_settings(["hand_size=6", "snapping=True", "deck_out=reshuffle", "double_deck_from=None"])
    {'hand_size': 6, 'snapping': True, 'deck_out': 'reshuffle', 'double_deck_from': None}
    >>> parse_settings(["snapping=no", "kamikaze=yes"])   # yes/no and on/off work too
    {'snapping': False, 'kamikaze': True}
    >>> parse_settings(["hand_size"])
    Traceback (most recent call last):
    ...
    cabo_kit.cli.UsageError: --set 'hand_size' has no value: write --set field=value, e.g. --set hand_size=6
    """
    out: dict[str, Any] = {}
    for item in items:
        name, sep, text = item.partition("=")
        name, text = name.strip(), text.strip()
        if not sep or not name:
            raise UsageError(f"--set {item!r} has no value: write --set field=value, e.g. --set hand_size=6")
        try:
            value: Any = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            if text.lower() in ("true", "false", "yes", "no", "on", "off"):
                value = text.lower() in ("true", "yes", "on")
            elif re.fullmatch(r"[A-Za-z_][\w-]*", text):
                value = text
            else:
                raise UsageError(
                    f"--set {name}={text!r}: the value is not readable: write a number, True/False, None or a word"
                ) from None
        out[name] = value
    return out


def make_rules(preset: str, settings: Mapping[str, Any]) -> Rules:
    """The preset's rules with ``settings`` applied; a bad preset, field or value raises :class:`UsageError`.

    >>> make_rules("deluxe", {"hand_size": 6, "initial_peeks": 3}).differences()
    {'hand_size': 6, 'initial_peeks': 3}
    >>> make_rules("deluxe", {"handsize": 6})
    Traceback (most recent call last):
    ...
    cabo_kit.cli.UsageError: unknown rules field 'handsize' (did you mean 'hand_size'?); fix the --set option
    """
    try:
        rules = Rules.preset(preset)
        if "powers" in settings:
            settings = dict(settings, powers=_powers(settings["powers"]))
        return rules.replace(**settings) if settings else rules
    except (RulesError, TypeError) as exc:
        where = "--preset" if preset not in PRESETS else "--set option"
        raise UsageError(f"{exc}; fix the {where}") from None


def _powers(value: Any) -> Any:
    # A shell user writes --set powers=7:peek,8:peek; a Python user may write the tuple literal.
    if isinstance(value, str) and ":" in value:
        pairs = [p.split(":", 1) for p in value.split(",") if p.strip()]
        return tuple((int(v) if v.strip().isdigit() else v.strip(), p.strip()) for v, p in pairs)
    return value


@dataclass(frozen=True)
class BotEntry:
    """One bot in the line-up: its display name and a factory making a fresh instance per game."""

    name: str
    make: Callable[[], Bot]


def _bot_classes() -> dict[str, type[Bot]]:
    from . import bots as bots_module

    names = getattr(bots_module, "__all__", None) or [n for n in dir(bots_module) if not n.startswith("_")]
    out: dict[str, type[Bot]] = {}
    for name in names:
        obj = getattr(bots_module, name, None)
        if isinstance(obj, type) and issubclass(obj, Bot) and not inspect.isabstract(obj):
            out[name.lower()] = obj
    return out


def _factory(obj: Any, label: str) -> Callable[[], Bot]:
    if isinstance(obj, type) and issubclass(obj, Bot):
        return obj
    if isinstance(obj, Bot):
        return lambda: copy.deepcopy(obj)
    if callable(obj):
        return lambda: _factory(obj(), label)()
    raise UsageError(f"{label} does not name a bot class: check cabo_kit.bots.by_level")


def _from_level(level: int) -> Callable[[], Bot]:
    from . import bots as bots_module

    by_level = getattr(bots_module, "by_level", None)
    if by_level is None:
        raise UsageError(f"level{level}: this cabo-kit has no bot ladder yet; name a bot class instead")
    try:
        found = by_level[level] if isinstance(by_level, Mapping) else by_level(level)
    except (KeyError, IndexError, ValueError, TypeError, LookupError):
        raise UsageError(f"level{level} is not on the bot ladder: choose level1 to level4") from None
    return _factory(found, f"level{level}")


def available_bot_names() -> list[str]:
    """The bot names ``--bots`` accepts (case does not matter).

    >>> available_bot_names()[:2]
    ['RandomBot', 'GreedyBot']
    """
    from . import bots as bots_module

    names = [cls.__name__ for cls in _bot_classes().values()]
    if getattr(bots_module, "by_level", None) is not None:
        names += [f"level{n}" for n in range(1, 5)]
    return names


def resolve_bots(spec: str) -> list[BotEntry]:
    """The line-up named by ``--bots``: comma-separated bot class names (any case) or ``level1``..``level4``.

    A name listed twice gets a ``#2`` suffix so each line-up entry has its own row.

    >>> [e.name for e in resolve_bots("greedybot, RandomBot,randombot")]
    ['GreedyBot', 'RandomBot', 'RandomBot#2']
    >>> resolve_bots("GreedyBot,Foo")
    Traceback (most recent call last):
    ...
    cabo_kit.cli.UsageError: unknown bot 'Foo' in --bots: choose from RandomBot, GreedyBot... (any case)
    """
    classes = _bot_classes()
    entries: list[BotEntry] = []
    seen: Counter[str] = Counter()
    for raw in spec.split(","):
        key = raw.strip()
        if not key:
            raise UsageError(f"--bots {spec!r} has an empty name: write names separated by commas, e.g. GreedyBot,RandomBot")
        level = re.fullmatch(r"level(\d+)", key, re.IGNORECASE)
        if key.lower() in classes:
            cls = classes[key.lower()]
            make: Callable[[], Bot] = cls
            name = cls.name or cls.__name__
        elif level:
            make = _from_level(int(level.group(1)))
            name = f"level{int(level.group(1))}"
        elif key.endswith(".py") or "/" in key or "\\" in key:
            raise UsageError(
                f"--bots {key!r}: simulate plays the built-in bots only; to measure your own file against them run "
                f"{PROG} duel {key} GreedyBot, or put it in a folder's bots/ and run {PROG} tournament run FOLDER"
            )
        else:
            raise UsageError(
                f"unknown bot {key!r} in --bots: choose from {', '.join(available_bot_names())} (any case)"
            )
        seen[name] += 1
        entries.append(BotEntry(name if seen[name] == 1 else f"{name}#{seen[name]}", make))
    return entries


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` of a run with ``seed``: a stable 48-bit hash, so runs with nearby
    seeds share no games and every process derives the same numbers.

    >>> game_seed(1, 0) == game_seed(1, 0), game_seed(1, 0) == game_seed(2, 0), game_seed(1, 1) == game_seed(2, 0)
    (True, False, False)
    """
    digest = hashlib.sha256(f"cabo-kit:simulate:{seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:6], "big")


# ------------------------------------------------------------------ simulation


@dataclass
class BotStats:
    """What one line-up entry did over a run (sums over games and rounds)."""

    name: str
    games: int = 0
    wins: float = 0.0
    total: int = 0
    rounds: int = 0
    cabo_calls: int = 0
    cabo_won: int = 0
    kamikaze: int = 0
    royal_roulette: int = 0
    resets: int = 0
    snaps: int = 0
    snaps_right: int = 0
    snap_claims: int = 0
    multi_exchanges: int = 0
    failed_multi: int = 0
    powers: int = 0


@dataclass
class Summary:
    """The outcome of a run of games: per-entry stats, and how rounds ended."""

    rules: Rules
    n_players: int
    games: int
    seed: int
    memory: str
    bots: list[BotStats]
    rounds: int = 0
    turns: int = 0
    ended_by: Counter[str] = field(default_factory=Counter)

    def add(self, record: GameRecord, entry_at: Sequence[int]) -> None:
        """Count one finished game; ``entry_at[seat]`` is the line-up entry that sat there."""
        share = 1.0 / len(record.winners) if record.winners else 0.0
        for seat, e in enumerate(entry_at):
            b = self.bots[e]
            b.games += 1
            b.total += record.totals[seat]
            if seat in record.winners:
                b.wins += share
        for r in record.rounds:
            self.rounds += 1
            self.turns += r.turns
            self.ended_by[r.ended_by] += 1
            for seat, e in enumerate(entry_at):
                b = self.bots[e]
                st = r.stats[seat]
                b.rounds += 1
                b.kamikaze += seat in r.kamikaze
                b.royal_roulette += seat in r.royal_roulette
                b.resets += seat in r.resets
                b.snaps += st.get("snaps", 0)
                b.snaps_right += st.get("snaps_right", 0)
                b.snap_claims += st.get("snap_claims", 0)
                b.multi_exchanges += st.get("multi_exchanges", 0)
                b.failed_multi += st.get("failed_multi_exchanges", 0)
                b.powers += sum(st.get(p, 0) for p in POWERS)
            if r.caller is not None:
                b = self.bots[entry_at[r.caller]]
                b.cabo_calls += 1
                b.cabo_won += bool(r.caller_won)


def simulate(
    rules: Rules,
    entries: Sequence[BotEntry],
    games: int,
    seed: int = 0,
    *,
    memory: str = "engine",
    progress: bool = False,
) -> Summary:
    """Play ``games`` games between the line-up ``entries`` and sum up what happened.

    Game ``i`` uses seed :func:`game_seed` ``(seed, i)`` and seats the line-up rotated by ``i``
    (seat ``s`` holds entry ``(s + i) % n``), so over every ``n`` games each entry sits in
    every seat once. Every game gets fresh bot instances.

    >>> s = simulate(Rules.preset("deluxe"), resolve_bots("GreedyBot,RandomBot"), games=4, seed=1)
    >>> [b.games for b in s.bots], sum(b.wins for b in s.bots)
    ([4, 4], 4.0)
    """
    n = len(entries)
    try:
        rules.check_players(n)
    except RulesError:
        raise UsageError(
            f"{rules.name} is for {rules.min_players} to {rules.max_players} players, but --bots names {n}: "
            f"list {rules.min_players} to {rules.max_players} bots"
        ) from None
    summary = Summary(rules, n, games, seed, memory, [BotStats(e.name) for e in entries])
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=games, unit="game", desc=f"{rules.name} x{n}", leave=False, file=sys.stderr)
    try:
        for i in range(games):
            entry_at = [(s + i) % n for s in range(n)]
            bots = [entries[e].make() for e in entry_at]
            for e, bot in zip(entry_at, bots):
                bot.name = entries[e].name
            record = play_game(bots, rules, game_seed(seed, i), memory=memory)
            summary.add(record, entry_at)
            if bar is not None:
                bar.update()
    finally:
        if bar is not None:
            bar.close()
    return summary


def _ratio(a: int, b: int) -> str:
    return f"{a}/{b}"


def format_summary(summary: Summary) -> str:
    """The run as a plain-text table (one row per line-up entry) and a line on how rounds ended.

    Columns appear only for rules that are on: Kamikaze, Royal Roulette, resets at 100,
    snaps (carried out / right), failed multi-exchanges, powers.
    """
    rules = summary.rules
    changes = rules.differences()
    change_text = " (" + ", ".join(f"{k}={v!r}" for k, v in changes.items()) + ")" if changes else ""
    head = (
        f"{rules.name}{change_text}, {summary.n_players} players, {summary.games} games, seed {summary.seed}, "
        f"memory {summary.memory}; seats rotate every game"
    )
    columns: list[tuple[str, Callable[[BotStats], str]]] = [
        ("bot", lambda b: b.name),
        ("games", lambda b: str(b.games)),
        ("win rate", lambda b: f"{b.wins / b.games:.1%}" if b.games else "-"),
        ("mean total", lambda b: f"{b.total / b.games:.1f}" if b.games else "-"),
        ("Cabo calls/won", lambda b: _ratio(b.cabo_calls, b.cabo_won)),
    ]
    if rules.kamikaze:
        columns.append(("Kamikaze", lambda b: str(b.kamikaze)))
    if rules.royal_roulette:
        columns.append(("Royal Roulette", lambda b: str(b.royal_roulette)))
    if rules.reset_at_100:
        columns.append(("resets", lambda b: str(b.resets)))
    if rules.snapping:
        columns.append(("snaps tried/right", lambda b: _ratio(b.snaps, b.snaps_right)))
    if rules.multi_exchange:
        columns.append(("multi tried/failed", lambda b: _ratio(b.multi_exchanges, b.failed_multi)))
    if rules.powers:
        columns.append(("powers used", lambda b: str(b.powers)))
    cells = [[c[0] for c in columns]] + [[get(b) for _, get in columns] for b in summary.bots]
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]

    def line(row: list[str]) -> str:
        return "  ".join(v.ljust(w) if i == 0 else v.rjust(w) for i, (v, w) in enumerate(zip(row, widths))).rstrip()

    out = [head, line(cells[0]), line(["-" * w for w in widths])] + [line(r) for r in cells[1:]]
    ends = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in sorted(summary.ended_by.items(), key=lambda kv: (-kv[1], kv[0])))
    mean_turns = summary.turns / summary.rounds if summary.rounds else 0.0
    out.append(f"rounds: {summary.rounds} ({mean_turns:.1f} turns each); ended by {ends or '-'}")
    return "\n".join(out)


# ------------------------------------------------------------------ commands


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1")
    return value


def _precision(text: str) -> float:
    """``--until``'s value: an Elo half-width >= 0."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not an Elo half-width: write e.g. --until 50 (0: off)")
    return value


def _show_progress(args: argparse.Namespace) -> bool:
    return not args.no_progress and sys.stderr.isatty()


def add_simulate_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--preset", default="deluxe", choices=list(PRESETS), help="the rules preset (default: deluxe)")
    p.add_argument(
        "--bots", default="GreedyBot,RandomBot",
        help="comma-separated bot names, one per seat, e.g. GreedyBot,RandomBot,RandomBot (any case)",
    )
    p.add_argument("--games", type=_positive, default=100, help="how many games (default 100)")
    p.add_argument("--seed", type=int, default=0, help="the run's seed; game i's seed derives from it (default 0)")
    p.add_argument(
        "--set", dest="settings", action="append", default=[], metavar="FIELD=VALUE",
        help="change a rules field, e.g. --set hand_size=6 --set initial_peeks=3 (repeatable)",
    )
    p.add_argument("--memory", choices=("engine", "none"), default="engine", help="what observations remember")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def cmd_simulate(args: argparse.Namespace) -> int:
    """``cabo-kit simulate``: play seeded games between bots and print the table."""
    rules = make_rules(args.preset, parse_settings(args.settings))
    entries = resolve_bots(args.bots)
    summary = simulate(rules, entries, args.games, args.seed, memory=args.memory, progress=_show_progress(args))
    print(format_summary(summary))
    return 0


DEMO_PLAYERS = 4


def add_demo_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--games", type=_positive, default=None,
                   help="games per bot and preset, rounded up to whole duplicate matches (default: "
                        "tournaments/demo/tournament.toml's; 48 without it); the demo's leaderboard and report "
                        "are rewritten from all games stored")
    p.add_argument("--seed", type=int, default=0, help="the run's seed (default 0; the demo tournament uses its own)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def demo_lineup() -> str:
    """The demo's four seats: the reference bots (the ladder when there is one), repeated to fill the table."""
    names = available_bot_names()
    levels = [n for n in names if n.startswith("level")]
    pool = levels or names
    return ",".join(pool[i % len(pool)] for i in range(DEMO_PLAYERS))


def demo_folder() -> "Any":
    """``tournaments/demo`` of a source checkout, or ``None`` (an installed wheel has no such folder)."""
    from pathlib import Path

    folder = Path(__file__).resolve().parent.parent / "tournaments" / "demo"
    return folder if (folder / "tournament.toml").exists() and any((folder / "bots").glob("*.py")) else None


def missing_report_modules() -> list[str]:
    """The modules of the ``report`` extra (ratings and reports) that are not installed: the report's own check,
    :func:`cabo_kit.report.missing_report_modules` (imported when asked: the report module is not small).

    >>> isinstance(missing_report_modules(), list)
    True
    """
    from .report import missing_report_modules

    return missing_report_modules()


REPORT_HINT = "pip install 'cabo-kit[report]' (or pip install -e '.[report]' in a checkout; make demo does it)"


def cmd_demo(args: argparse.Namespace) -> int:
    """``cabo-kit demo``: the demo tournament (``tournaments/demo``) when there is one, else the reference
    bots play every preset; then a hint of what to try next."""
    folder = demo_folder()
    missing = missing_report_modules()
    if folder is not None and missing:
        print(f"The demo tournament's ratings and report need {', '.join(missing)}: {REPORT_HINT}.\n"
              "Meanwhile, here is the simulation demo, which needs nothing more.\n")
        folder = None
    if folder is not None:
        from .outputs import write_outputs
        from .tournament.runner import run_tournament

        run_tournament(folder, games=args.games, progress=_show_progress(args))
        write_outputs(folder)
        print(f"Next: put bot files in a folder's bots/ and run {PROG} tournament run FOLDER "
              f"(check one first: {PROG} check-bot FILE)")
        return 0
    lineup = demo_lineup()
    entries = resolve_bots(lineup)
    games = args.games or 48  # a quick look (about a minute here); --games for firmer numbers
    print(f"Simulating {games} games per preset of {lineup.replace(',', ', ')}, in this process ...", flush=True)
    for k, preset in enumerate(PRESETS):
        summary = simulate(Rules.preset(preset), entries, games, args.seed, progress=_show_progress(args))
        if k:
            print()
        print(format_summary(summary))
    print()
    print(
        f"Next: {PROG} simulate --preset rush --bots {lineup.split(',')[-1]},RandomBot,RandomBot --games 500 "
        "--set hand_size=6 --set initial_peeks=3   (or write your own bot: subclass cabo_kit.Bot)"
    )
    return 0



def add_tournament_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", metavar="run|report|repro|copies|grades")
    run = sub.add_parser("run", help="play the missing games, then write the leaderboard and the report")
    run.add_argument("folder", metavar="DIR", help="the tournament folder (tournament.toml, bots/*.py)")
    run.add_argument("--games", type=_positive,
                     help="games each bot plays per preset and table size (rounded up to whole duplicate matches)")
    run.add_argument("--until", type=_precision, metavar="ELO",
                     help="after the balanced games, play adaptively until every two-sided 95%% Elo interval is "
                          "within +-ELO (e.g. 50; tournament.toml's precision; 0: off)")
    run.add_argument("--max-games", type=_positive, metavar="N",
                     help="with --until: at most N games per bot, preset and table size (tournament.toml's max_games)")
    run.add_argument("--workers", type=_positive, help="worker processes (default: the usable cores)")
    run.add_argument("--executor", choices=("local", "dask"), help="local process pool or a Dask cluster")
    run.add_argument("--scheduler", metavar="ADDRESS", help="Dask scheduler, e.g. tcp://10.0.0.5:8786 (default: a local cluster)")
    run.add_argument("--no-progress", action="store_true",
                     help="no progress (a bar on a terminal; elsewhere a line every 30 s or tenth of the games)")
    run.add_argument("--estimate", action="store_true",
                     help="only say how long the run would take, from the store's timings and a short timed sample "
                          "(not stored; nothing in the folder changes)")
    report = sub.add_parser("report", help="rewrite leaderboard.csv, report.html (for the class), teacher.html and "
                                           "bot-pages/ (one per bot, for its author) from the results store")
    report.add_argument("folder", metavar="DIR", help="the tournament folder")
    repro = sub.add_parser("repro", help="replay a fault with the bot's current file: does the faulted decision still fail?")
    repro.add_argument("folder", metavar="DIR", help="the tournament folder")
    repro.add_argument("fault", metavar="FAULT",
                       help="the faulted game's id as the bot's page shows it (e.g. 3f2a9c1b), or a bot's name (its first fault)")
    repro.add_argument("--file", metavar="PATH", help="the bot file to replay with (default: DIR/bots/BOT.py)")
    repro.add_argument("--pytest", metavar="PATH", dest="pytest_path",
                       help="also write a standalone test file replaying the fault (fails until it is fixed)")
    copies = sub.add_parser("copies", help="flag files that play move for move like a reference bot or another file")
    copies.add_argument("folder", metavar="DIR", help="the tournament folder")
    copies.add_argument("--workers", type=_positive, help="worker processes (default: the usable cores)")
    grades = sub.add_parser("grades", help="grade each file against tournament.toml's grading bots (above, level, "
                                           "below), playing the grading games still missing; writes DIR/grades.csv")
    grades.add_argument("folder", metavar="DIR", help="the tournament folder")
    grades.add_argument("--workers", type=_positive, help="worker processes (default: the usable cores)")
    grades.add_argument("--no-progress", action="store_true",
                        help="no progress (a bar on a terminal; elsewhere a line every 30 s or tenth of the games)")


def cmd_tournament(args: argparse.Namespace) -> int:
    """``cabo-kit tournament run|report|repro|copies|grades DIR``: see docs/tournaments.md.

    Exit status: 0 done; 1 the folder or its results store cannot be used now (in use by
    another run, damaged, not writable: the message says which file and what to do); 2 a
    problem with the command or the folder's settings and bots (nothing to play included).
    """
    from .tournament.config import ConfigError
    from .tournament.executors import ExecutorError
    from .tournament.lock import FolderError
    from .outputs import write_outputs
    from .tournament.runner import estimate_tournament, run_tournament
    from .tournament.store import StoreError

    if getattr(args, "action", None) is None:
        raise UsageError(f"say what to do: {PROG} tournament run DIR | {PROG} tournament report DIR | "
                         f"{PROG} tournament repro DIR FAULT | {PROG} tournament copies DIR | "
                         f"{PROG} tournament grades DIR")
    if args.action == "repro":  # needs neither pandas nor plotly
        from .tournament.replay_fault import ReproError, repro_cli

        try:
            return repro_cli(args.folder, args.fault, args.file, args.pytest_path)
        except (ConfigError, ReproError) as exc:
            raise UsageError(str(exc)) from None
        except StoreError as exc:
            print(f"{PROG} tournament repro: {exc}", file=sys.stderr)
            return 1
    if args.action == "copies":
        return _tournament_copies(args)
    if args.action == "grades":
        return _tournament_grades(args)
    missing = missing_report_modules()
    if missing:
        raise UsageError(f"tournaments need {', '.join(missing)} for their ratings and report: {REPORT_HINT}")
    try:
        if args.action == "run" and args.estimate:
            estimate_tournament(args.folder, games=args.games, workers=args.workers, executor=args.executor,
                                scheduler=args.scheduler, precision=args.until, max_games=args.max_games)
            return 0
        if args.action == "run":
            # Progress off a terminal too: plain lines then (a job's log shows how far it got).
            run_tournament(args.folder, games=args.games, workers=args.workers, executor=args.executor,
                           scheduler=args.scheduler, precision=args.until, max_games=args.max_games,
                           progress=not args.no_progress, command=f"{PROG} tournament run {shlex.quote(args.folder)}")
        write_outputs(args.folder)
    except (ConfigError, ExecutorError) as exc:
        raise UsageError(str(exc)) from None
    except (StoreError, FolderError) as exc:
        print(f"{PROG} tournament {args.action}: {exc}", file=sys.stderr)
        return 1
    return 0


def _tournament_copies(args: argparse.Namespace) -> int:
    """``cabo-kit tournament copies DIR``: print the flagged pairs (kept in DIR/copies.json for the teacher's page)."""
    from .tournament.config import ConfigError
    from pathlib import Path

    from .tournament.copies import COPIES_FILE, find_copies

    folder = Path(args.folder)
    if not (folder / "bots").is_dir():
        raise UsageError(f"{folder / 'bots'} is not a folder: put the submissions there, one .py file each")
    try:
        check = find_copies(folder, workers=args.workers, out=print)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    print(check.summary())
    print(f"saved in {folder / COPIES_FILE}")
    from .tournament.store import DB_NAME

    if (folder / DB_NAME).exists() and not missing_report_modules():
        from .outputs import write_outputs
        from .tournament.lock import FolderError
        from .tournament.store import StoreError

        try:
            _, report = write_outputs(folder, out=None)
        except (StoreError, FolderError) as exc:
            print(f"{PROG} tournament copies: {exc}", file=sys.stderr)
            return 1
        if report is not None:
            print(f"teacher's page: {folder / 'teacher.html'} (its section \"Possible copies\")")
    return 0


def _tournament_grades(args: argparse.Namespace) -> int:
    """``cabo-kit tournament grades DIR``: play the missing grading games, write DIR/grades.csv, print the grades
    (and rewrite the leaderboard and report when the folder has a results store, for their grade columns)."""
    from pathlib import Path

    from .tournament.config import ConfigError, load_config
    from .tournament.executors import ExecutorError
    from .tournament.grades import format_grades, play_grades
    from .tournament.lock import FolderError
    from .tournament.store import DB_NAME, StoreError

    folder = Path(args.folder)
    if not (folder / "bots").is_dir():
        raise UsageError(f"{folder / 'bots'} is not a folder: put the submissions there, one .py file each")
    try:
        cfg, _ = load_config(folder)
        if not cfg.grading:
            raise UsageError(f'{folder / "tournament.toml"} names no grading bot: add grading = ["GreedyBot"] '
                             "(docs/tournaments.md, \"Grades\")")
        # Progress off a terminal too, as `tournament run`: plain lines then (a job's log shows how far it got).
        run = play_grades(folder, cfg, workers=args.workers, progress=not args.no_progress,
                          command=f"{PROG} tournament grades {shlex.quote(args.folder)}")
        print(format_grades(run.grades))
        for file, _ in run.rejected:
            print(f"{file}: rejected, no grade (the reason: {PROG} check-bot {shlex.quote(str(folder / 'bots' / file))} "
                  f"--class {shlex.quote(str(folder))})")
        if (folder / DB_NAME).exists() and not missing_report_modules():
            from .outputs import write_outputs

            write_outputs(folder, out=None)
            print(f"leaderboard.csv and report.html rewritten with a column per grading bot")
    except (ConfigError, ExecutorError) as exc:
        raise UsageError(str(exc)) from None
    except (StoreError, FolderError) as exc:
        print(f"{PROG} tournament grades: {exc}", file=sys.stderr)
        return 1
    return 0


def add_check_bot_arguments(p: argparse.ArgumentParser) -> None:
    p.description = ("Check a bot file before submitting it: seeded games against the reference bots, played "
                     "isolated as in a tournament, its problems in plain sentences, and how long it would make a "
                     "class tournament take. Exit status 1 on a problem.")
    p.add_argument("file", metavar="FILE", help="a bot file, as you would submit it")
    p.add_argument("--games", type=int, default=9, help="seeded games to play (default 9; the check stops early "
                                                        "once the same problem has shown 3 times)")
    p.add_argument("--seed", type=int, default=0, help="the first game's seed (default 0)")
    p.add_argument("--class", dest="class_dir", metavar="DIR", default=None,
                   help="a class tournament's folder: play with its tournament.toml (presets and their overrides, "
                        "table sizes, memory, limits), and say how long this file makes that class's tournament "
                        "take (its files in DIR/bots; without --class: the defaults and a class of 30 files)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr (a bar on a terminal, else a line "
                                                        "per game)")


def cmd_check_bot(args: argparse.Namespace) -> int:
    """``cabo-kit check-bot FILE [--class DIR]``: play the file as a tournament would; non-zero on a problem."""
    from .tournament.check import check_bot_cli
    from .tournament.config import ConfigError

    if args.games < 1:
        raise UsageError(f"--games must be at least 1, not {args.games}")
    try:
        return int(check_bot_cli(args.file, games=args.games, seed=args.seed, progress=not args.quiet,
                                 class_dir=args.class_dir))
    except (ConfigError, FileNotFoundError) as exc:
        raise UsageError(str(exc)) from None


def add_duel_arguments(p: argparse.ArgumentParser) -> None:
    p.description = ("Measure a bot file: its win rate against the opponents named, with a 95% interval, and its "
                     "faults. The file runs isolated, as in a tournament; each deal is played once with your bot in "
                     "every seat. Exit status 0; 1 when the bot faulted or the file is rejected; 130 when interrupted. "
                     "A practice figure, not a grade: the class's grade against a bar is what `cabo-kit tournament "
                     "grades DIR` says (its own seeds, duplicate deals, an interval that allows for looking after "
                     "every batch), so a duel can say 'beats GreedyBot' where the grade is level.")
    p.add_argument("file", metavar="FILE", help="your bot file, as you would submit it")
    p.add_argument("opponents", metavar="OPPONENT", nargs="*", default=["GreedyBot"],
                   help="one per other seat: a built-in bot (RandomBot, GreedyBot, CountingBot, SearchBot; any case) "
                        "or a level (1-4, level2, easy, medium, tricky, hard); default GreedyBot, the first real bar")
    p.add_argument("--preset", default="deluxe", choices=list(PRESETS), help="the rules preset (default: deluxe)")
    p.add_argument("--games", type=_positive, default=200,
                   help="how many games (default 200); a multiple of the table size plays whole deals")
    p.add_argument("--seed", type=int, default=0, help="the run's seed; the deals derive from it (default 0)")
    p.add_argument("--set", dest="settings", action="append", default=[], metavar="FIELD=VALUE",
                   help="change a rules field, e.g. --set hand_size=6 (repeatable)")
    p.add_argument("--memory", choices=("engine", "none"), default="engine", help="what observations remember")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def cmd_duel(args: argparse.Namespace) -> int:
    """``cabo-kit duel FILE [OPPONENT ...]``: print the bot's win rate, its 95% interval and its faults.

    A practice figure (one look, a per-game interval, its own seeds): the grade against a bar is the class's
    verdict, from ``tournament grades`` (docs/tournaments.md, "Grades")."""
    from .tournament.duel import DuelError, duel
    from .tournament.isolation import SubmissionError

    rules = make_rules(args.preset, parse_settings(args.settings))
    if not str(args.file).endswith(".py"):
        raise UsageError(f"{args.file!r} is not a bot file: give your bot's .py file, e.g. {PROG} duel my_bot.py "
                         f"GreedyBot (to play built-in bots against each other: {PROG} simulate --bots ...)")
    try:
        result = duel(args.file, *args.opponents, games=args.games, rules=rules, seed=args.seed,
                      memory=args.memory, progress=_show_progress(args))
    except DuelError as exc:
        raise UsageError(str(exc)) from None
    except SubmissionError as exc:
        print(f"{args.file}: rejected, as a tournament would reject it: {exc.reason}\n"
              f"(see the details with: {PROG} check-bot {args.file})")
        return 1
    print(result)
    if result.games < result.asked:
        return 130
    return 1 if result.faults else 0


# ------------------------------------------------------------------ play: the card table as a Voila page

PLAY_HINT = 'pip install "cabo-kit[notebook]" (or pip install -e ".[notebook]" in a checkout)'

#: The code of the page ``cabo-kit play`` serves (``notebooks/play.ipynb`` holds the same cell).
PLAY_CELL = '''\
# The page of `cabo-kit play`. Its options come from CABO_KIT_* environment variables
# (see `cabo-kit play --help`); in Jupyter, write CardTable(rules=..., opponents=[...]) instead.
from cabo_kit.cli import play_options
from cabo_kit.table import CardTable, draw

draw.RULES_URL = None  # this server cannot serve docs/rules.md: no Rules link
table = CardTable(**play_options())
table'''


def _level_names() -> dict[str, int]:
    from .bots import LEVELS

    return {label: level for level, (label, _cls) in LEVELS.items()}


def _opponent(word: str) -> Any:
    key = word.strip()
    if key.isdigit() and int(key) in _level_names().values():
        return int(key)
    if key.lower() in _level_names():
        return _level_names()[key.lower()]
    if key.lower() in _bot_classes():
        return _bot_classes()[key.lower()]()
    levels = ", ".join(f"{n} ({label})" for label, n in _level_names().items())
    raise UsageError(f"--opponents: {key!r} is not a bot: write levels {levels} or bot names such as GreedyBot, "
                     "separated by commas, e.g. --opponents 2,3,hard")


def play_options(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The ``CardTable`` arguments that ``cabo-kit play`` passes to its page through the environment.

    ``CABO_KIT_PRESET`` (default deluxe), ``CABO_KIT_OPPONENTS`` (levels 1-4, easy..hard or bot
    names; default 2,3,4), ``CABO_KIT_SEAT`` (default 0; ``none`` watches the bots),
    ``CABO_KIT_SEED`` (default: a new game each time), ``CABO_KIT_MEMORY`` (engine or none),
    ``CABO_KIT_PACE`` (seconds per bot move, default 0.6). A bad value raises :class:`UsageError`.

    >>> options = play_options({"CABO_KIT_OPPONENTS": "easy,4", "CABO_KIT_SEED": "7"})
    >>> options["rules"].name, options["opponents"], options["seat"], options["seed"], options["pace"]
    ('deluxe', [1, 4], 0, 7, 0.6)
    >>> play_options({"CABO_KIT_SEAT": "5"})
    Traceback (most recent call last):
    ...
    cabo_kit.cli.UsageError: --seat 5: a table of 4 players has seats 0 to 3 (or none to watch the bots)
    """
    import os

    env = os.environ if environ is None else environ
    rules = make_rules(env.get("CABO_KIT_PRESET") or "deluxe", {})
    opponents = [_opponent(w) for w in (env.get("CABO_KIT_OPPONENTS") or "2,3,4").split(",")]
    seat_text = (env.get("CABO_KIT_SEAT") or "0").strip().lower()
    seat = None if seat_text in ("none", "watch") else _int_option("--seat", seat_text)
    n = len(opponents) + (seat is not None)
    if not rules.min_players <= n <= rules.max_players:
        raise UsageError(f"--opponents: {rules.name} is for {rules.min_players} to {rules.max_players} players, "
                         f"but this table has {n}: name {rules.min_players - (seat is not None)} to "
                         f"{rules.max_players - (seat is not None)} opponents")
    if seat is not None and not 0 <= seat < n:
        raise UsageError(f"--seat {seat}: a table of {n} players has seats 0 to {n - 1} (or none to watch the bots)")
    seed_text = (env.get("CABO_KIT_SEED") or "").strip()
    memory = env.get("CABO_KIT_MEMORY") or "engine"
    if memory not in ("engine", "none"):
        raise UsageError(f"--memory {memory!r}: choose engine (the table remembers what you saw) or none")
    try:
        pace = float(env.get("CABO_KIT_PACE") or 0.6)
    except ValueError:
        raise UsageError(f"--pace {env.get('CABO_KIT_PACE')!r} is not a number of seconds, e.g. 0.6") from None
    if pace < 0:
        raise UsageError(f"--pace {pace}: seconds per bot move cannot be negative")
    return {"rules": rules, "opponents": opponents, "seat": seat,
            "seed": _int_option("--seed", seed_text) if seed_text else None, "memory": memory, "pace": pace}


def _int_option(option: str, text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise UsageError(f"{option} {text!r} is not a whole number") from None


def play_notebook() -> Any:
    """The page to serve: ``notebooks/play.ipynb`` of a checkout, else a copy written to a temporary folder.

    >>> play_notebook().name
    'play.ipynb'
    """
    import json
    import tempfile
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "notebooks" / "play.ipynb"
    if path.exists():
        return path
    # An installed wheel carries no notebooks/ folder: write the same one-cell page.
    cell: dict[str, Any] = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
            "source": PLAY_CELL.splitlines(keepends=True)}
    notebook = {"cells": [cell], "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                                             "name": "python3"}},
                "nbformat": 4, "nbformat_minor": 5}
    path = Path(tempfile.mkdtemp(prefix="cabo-kit-play-")) / "play.ipynb"
    path.write_text(json.dumps(notebook, indent=1), "utf-8")
    return path


def add_play_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--preset", default="deluxe", choices=list(PRESETS), help="the rules preset (default: deluxe)")
    p.add_argument("--opponents", default="2,3,4",
                   help="one per opponent: levels 1-4 (easy, medium, tricky, hard) or bot names (default 2,3,4)")
    p.add_argument("--seat", default="0", help="your seat, from 0 (default 0); none watches the bots play")
    p.add_argument("--seed", type=int, default=None, help="the game's seed (default: a new game each time)")
    p.add_argument("--memory", choices=("engine", "none"), default="engine",
                   help="engine: the table shows cards you have seen; none: play from memory, as the real game")
    p.add_argument("--pace", type=float, default=0.6, help="seconds per bot move (default 0.6; 0 is instant)")
    p.add_argument("--port", type=int, default=None, help="the page's port on 127.0.0.1 (default: 8866 or the next free)")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser; print the address instead")


def play_command(args: argparse.Namespace, notebook: Any = None) -> tuple[list[str], dict[str, str]]:
    """The Voila command line and environment that serve the card table for ``args``; checks the options first.

    ``notebook`` replaces the page (:func:`play_notebook`), e.g. a temporary copy for a test.

    >>> argv, env = play_command(build_parser().parse_args(["play", "--opponents", "hard", "--seed", "3", "--no-browser"]))
    >>> argv[1:3], "--no-browser" in argv, env["CABO_KIT_OPPONENTS"], env["CABO_KIT_SEED"]
    (['-m', 'voila'], True, 'hard', '3')
    """
    import os

    env = dict(os.environ)
    env.update({
        "CABO_KIT_PRESET": args.preset, "CABO_KIT_OPPONENTS": args.opponents, "CABO_KIT_SEAT": str(args.seat),
        "CABO_KIT_SEED": "" if args.seed is None else str(args.seed), "CABO_KIT_MEMORY": args.memory,
        "CABO_KIT_PACE": str(args.pace),
    })
    play_options(env)  # a bad option fails here, in the terminal, not on the page
    argv = [sys.executable, "-m", "voila", str(notebook or play_notebook()), "--Voila.ip=127.0.0.1", "--show_tracebacks=True"]
    if args.port is not None:
        argv.append(f"--port={args.port}")
    if args.no_browser:
        argv.append("--no-browser")
    return argv, env


def cmd_play(args: argparse.Namespace) -> int:
    """``cabo-kit play``: serve the card table as a Voila page until Ctrl+C, SIGTERM or SIGHUP."""
    import importlib.util

    missing = [m for m in ("voila", "anywidget") if importlib.util.find_spec(m) is None]
    if missing:
        raise UsageError(f"the card table page needs {', '.join(missing)}: {PLAY_HINT}")
    argv, env = play_command(args)
    print(f"Serving the card table with Voila ({args.preset}, opponents {args.opponents}); Ctrl+C stops it.",
          flush=True)
    return serve(argv, env)


class _Stopped(Exception):
    """SIGTERM or SIGHUP reached ``cabo-kit play``."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class _ServeSignals:
    """How :func:`serve` answers Ctrl+C, SIGTERM and SIGHUP (installed before the server starts).

    While the server starts, a signal is recorded and acted on once it runs (never an orphaned server);
    while it runs, the first signal stops it (``KeyboardInterrupt`` for Ctrl+C, :class:`_Stopped`
    otherwise); while it is being stopped, signals are only recorded, but a second Ctrl+C kills it now
    (its processes are still swept)."""

    def __init__(self) -> None:
        self.state = "starting"  # then "running", then "stopping"
        self.received: list[int] = []
        self.server: Any = None

    def __call__(self, signum: int, _frame: Any) -> None:
        import signal

        if self.state == "running":
            self.state = "stopping"  # before raising: a signal right after this one is recorded
            self._stop(signum)
        self.received.append(signum)
        if self.state == "stopping" and signum == signal.SIGINT and self.server is not None:
            if self.server.poll() is None:
                self.server.kill()  # a second Ctrl+C: no grace; the sweep of its processes follows

    def running(self, server: Any) -> None:
        """The server runs: act on a signal that came while it started."""
        self.server = server
        self.state = "running"
        if self.received:
            self.state = "stopping"
            self._stop(self.received[0])

    @staticmethod
    def _stop(signum: int) -> None:
        import signal

        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise _Stopped(signum)


def serve(argv: Sequence[str], env: Mapping[str, str], *, grace: float = 10.0) -> int:
    """Run a server (``cabo-kit play``'s Voila) until it exits, or until Ctrl+C, SIGTERM or SIGHUP
    stop it together with every process it started (its kernels): its exit status, or 128 plus the signal's number
    (Ctrl+C raises ``KeyboardInterrupt`` once the server is stopped).

    The server runs in a session of its own, so only this function stops it: SIGTERM first (Voila then
    shuts its kernels down), a kill after ``grace`` seconds (or at a second Ctrl+C), and then any of its
    processes still running (kernels run in sessions of their own, out of reach of a process-group kill).
    A signal that is ignored when this starts (``nohup``) stays ignored.
    """
    import signal
    import subprocess
    import threading

    handler = _ServeSignals()
    names = ("SIGINT", "SIGTERM", "SIGHUP")
    handled = [getattr(signal, n) for n in names if hasattr(signal, n)]
    main_thread = threading.current_thread() is threading.main_thread()
    previous: dict[int, Any] = {}
    if main_thread:
        for s in handled:
            if signal.getsignal(s) is not signal.SIG_IGN:
                previous[s] = signal.signal(s, handler)
    server = None
    try:
        server = subprocess.Popen(list(argv), env=dict(env), start_new_session=True)
        handler.running(server)
        return server.wait()
    except _Stopped as stop:
        return 128 + stop.signum
    finally:
        handler.state = "stopping"
        try:
            if server is not None and server.poll() is None:
                _stop_tree(server, grace)
        finally:
            for s, old in previous.items():
                signal.signal(s, old)


def _descendants(pid: int) -> list[tuple[int, str]]:
    """(PID, start time) of a process's children, grandchildren, ... (Linux /proc; empty elsewhere):
    the children of each of its threads."""
    from pathlib import Path

    children: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            children += [int(c) for c in task.read_text().split()]
        except OSError:  # the thread or the process is gone
            pass
    found = [(c, _started(c)) for c in dict.fromkeys(children)]
    return [(c, t) for c, t in found if t] + [d for c, t in found if t for d in _descendants(c)]


def _started(pid: int) -> str:
    """A process's start time (Linux /proc): tells it from a later process that reuses the PID ("" once gone)."""
    from pathlib import Path

    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


def _stop_tree(server: Any, grace: float) -> None:
    """Stop ``server`` (SIGTERM, a kill after ``grace`` seconds), then kill what it started and left running."""
    import os
    import signal
    import subprocess

    children = _descendants(server.pid)
    server.terminate()
    children += _descendants(server.pid)  # again: a process started as the first look was taken
    try:
        server.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait(timeout=5)
    for pid, started in dict.fromkeys(children):
        if _started(pid) == started:  # still running, and the same process
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def add_serve_arguments(p: argparse.ArgumentParser) -> None:
    from .portal.server import add_arguments

    add_arguments(p)


def cmd_serve(args: argparse.Namespace) -> int:
    """``cabo-kit serve DIR --roster roster.csv``: the class portal (docs/portal.md)."""
    from .portal.server import ServeError, run

    try:
        return run(args)
    except ServeError as exc:
        raise UsageError(str(exc)) from None


Command = tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]

COMMANDS: dict[str, Command] = {
    "simulate": ("play seeded games between bots and print win rates and rule outcomes", add_simulate_arguments, cmd_simulate),
    "demo": ("a quick look: the reference bots play each preset", add_demo_arguments, cmd_demo),
    "tournament": ("run a tournament folder of bot files, or rewrite its report", add_tournament_arguments, cmd_tournament),
    "check-bot": ("check a bot file before submitting it", add_check_bot_arguments, cmd_check_bot),
    "duel": ("measure a bot file against chosen bots: its win rate, the rate's interval, and its faults",
             add_duel_arguments, cmd_duel),
    "play": ("play Cabo against bots at a card table in the browser (a Voila page)", add_play_arguments, cmd_play),
    "serve": ("the class portal: students upload their bots and see their checks and the leaderboard",
              add_serve_arguments, cmd_serve),
}
"""Sub-commands: name -> (one-line help, function adding its arguments, function running it)."""


def build_parser() -> argparse.ArgumentParser:
    """The ``cabo-kit`` argument parser, one sub-parser per entry of :data:`COMMANDS`."""
    parser = _Parser(prog=PROG, description="Play, teach and run bot tournaments of the card game CABO.")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (help_text, add_arguments, run) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        add_arguments(p)
        p.set_defaults(run=run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``cabo-kit`` command line; returns the exit status (2 for bad arguments)."""
    parser = build_parser()
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        for i, word in enumerate(words[:-1]):
            # argparse would say only "unrecognized arguments: 6" for `--set hand_size 6`.
            if word == "--set" and "=" not in words[i + 1]:
                raise UsageError(f"--set {words[i + 1]!r} has no value: write --set field=value, e.g. --set hand_size=6")
        args = parser.parse_args(words)
        if getattr(args, "run", None) is None:
            raise UsageError(f"say what to do: {PROG} " + "|".join(COMMANDS) + f" (see: {PROG} --help)")
        return int(args.run(args))
    except UsageError as exc:
        prog = PROG + (f" {args.command}" if "args" in locals() and getattr(args, "command", None) else "")
        message = str(exc)
        if not message.startswith(PROG):
            message = f"{prog}: {message}"
        print(f"{message}", file=sys.stderr)
        return 2
    except SystemExit as exc:  # --help and --version
        return exc.code if isinstance(exc.code, int) else 0
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
