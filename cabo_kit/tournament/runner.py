"""Running a tournament folder: load the submissions, schedule, play what is missing, store, rate, report.

A folder holds ``tournament.toml`` (optional) and ``bots/*.py`` (one submission per file;
its name is the file's stem, its version the file's hash). :func:`run_tournament` plays every
scheduled game not yet in ``DIR/results.sqlite``; :func:`cabo_kit.outputs.write_outputs` (also importable from
here, as before) writes ``DIR/leaderboard.csv`` and ``DIR/report.html`` from the store.

Submitted files always run isolated (:class:`~cabo_kit.tournament.isolation.IsolatedBot`,
one harness process per bot and game); built-in reference bots named in ``reference`` run
in-process ("trusted").

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "tournament.toml").write_text('presets = ["rush"]\\ntable_sizes = [2]\\ngames = 2\\nreference = ["RandomBot", "GreedyBot"]\\n')
>>> summary = run_tournament(folder, workers=1, progress=False, out=None)
>>> summary.played, summary.skipped, summary.faults
(2, 0, 0)
>>> run_tournament(folder, workers=1, progress=False, out=None).played     # nothing is missing
0
"""

from __future__ import annotations

import errno
import hashlib
import inspect
import json
import math
import os
import shlex
import shutil
import sys
import tempfile
import time
import traceback
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from ..game import Game, RoundResult
from ..bot import Bot
from ..play import bot_random, run_game
from ..record import GameRecord
from ..rules import POWERS, Rules
from .config import ConfigError, TournamentConfig, load_config
from .lock import FolderError, FolderLock, cannot_write, check_free, holder
from .schedule import Match, make_schedule
from .store import COUNTS, DB_NAME, GameRow, SeatRow, Store, game_id
from .progress import Progress
from ..results.texts import interval_text, rank_text  # noqa: F401 - also imported from here
from .timing import CostModel, CpuTally, Estimate, Group, expected_games

_thread_ns = time.thread_time_ns
START_S = 1.0
SAMPLE_GAMES = 3
"""The least games an estimate's sample plays in a group it times."""
"""What an estimate adds for starting the workers and their harness servers (measured: 0.5 to 1 s)."""

__all__ = [
    "BotSpec", "MatchTask", "RunSummary", "run_tournament", "run_match", "collect_entrants", "plan", "write_outputs",
    "format_leaderboard", "play_one", "final_ranking", "estimate_tournament", "TaskPlayer",
]

FAULT_KINDS = ("error", "timeout", "illegal", "crash")


@dataclass(frozen=True)
class BotSpec:
    """A bot as a task carries it: plain data (a submitted file's text, or a built-in class name)."""

    name: str
    version: str
    kind: str  # "file" (runs isolated) or "builtin" (trusted, in-process)
    class_name: str
    source: str = ""
    filename: str = ""


@dataclass
class MatchTask:
    """One match to play: a deal, its bots, and the rotations still missing from the store."""

    rules: dict[str, Any]
    preset: str
    rules_json: str
    table_size: int
    deal_key: str
    deal_seed: int
    deal_id: str
    order_key: str
    lineup: tuple[BotSpec, ...]
    rotations: tuple[int, ...]
    game_ids: tuple[str, ...]
    limits: dict[str, Any]
    memory: str = "engine"
    log_dir: str = ""


@dataclass
class RunSummary:
    """What a run did: games played now and found already stored, faults, rejected files, timing."""

    folder: Path
    entrants: list[BotSpec]
    rejected: list[tuple[str, str]]
    scheduled: int = 0
    played: int = 0
    skipped: int = 0
    faults: int = 0
    seconds: float = 0.0
    workers: int = 1
    executor: str = "local"
    notes: list[str] = field(default_factory=list)


# ------------------------------------------------------------------ entrants


def _builtin_spec(name: str) -> BotSpec:
    from .. import bots

    cls = getattr(bots, name)
    source = inspect.getsource(sys.modules[cls.__module__])
    return BotSpec(name, hashlib.sha256(source.encode()).hexdigest()[:12], "builtin", name)


def collect_entrants(
    folder: str | Path, cfg: TournamentConfig, loader: Callable[..., Any] | None = None,
) -> tuple[list[BotSpec], list[tuple[str, str]]]:
    """The bots that play (submissions that load, then the reference bots) and the rejected files.

    Each ``bots/*.py`` goes through :func:`~cabo_kit.tournament.isolation.load_submission`
    (checked in a subprocess, never imported here); a file it refuses is listed with its
    reason, and so is a file whose name clashes with a reference bot (a built-in ``anchor`` is one), a
    grading bot (``grading``) or another file.
    """
    entrants: list[BotSpec] = []
    rejected: list[tuple[str, str]] = []
    taken = set(cfg.taken_names)
    files = [p for p in sorted((Path(folder) / "bots").glob("*.py")) if not p.name.startswith("_")]
    from .isolation import SubmissionError

    load: Callable[..., Any]
    if loader is not None:
        load = loader
    else:
        from .isolation import load_submission as load
    limits = cfg.make_limits() if files else None
    for path in files:
        try:
            sub = load(path, limits)
        except SubmissionError as exc:
            rejected.append((path.name, str(getattr(exc, "reason", exc))))
            continue
        if sub.name in taken:
            rejected.append((path.name, f"the name {sub.name!r} is already taken (a reference bot, a grading bot or another file): rename the file"))
            continue
        taken.add(sub.name)
        data = Path(sub.path).read_bytes()
        entrants.append(BotSpec(sub.name, sub.version, "file", sub.class_name, data.decode("utf-8", "replace"), path.name))
    entrants.extend(_builtin_spec(name) for name in cfg.reference)
    return entrants, rejected


# ------------------------------------------------------------------ planning


def plan(cfg: TournamentConfig, entrants: Sequence[BotSpec], games: int | None = None) -> list[tuple[Match, list[str]]]:
    """Every scheduled match with the ids of its games (one per rotation), in schedule order."""
    by_name = {b.name: b for b in entrants}
    out = []
    for entry in cfg.presets:
        rules_json = entry.rules_json
        for k in cfg.table_sizes:
            for m in make_schedule(list(by_name), entry.preset, rules_json, k, games or cfg.games, cfg.seed):
                ids = []
                for rot in range(k):
                    seats = [(b, by_name[b].version) for b in m.seats(rot)]
                    ids.append(game_id(m.preset, m.rules, k, m.deal_key, rot, seats))
                out.append((m, ids))
    return out


def _deal_id(m: Match, by_name: dict[str, BotSpec]) -> str:
    text = json.dumps([m.preset, m.rules, m.table_size, m.deal_key, [[b, by_name[b].version] for b in m.lineup]])
    return hashlib.sha256(text.encode()).hexdigest()[:24]


# ------------------------------------------------------------------ playing (in a worker process)


def final_ranking(sheet_totals: Sequence[int], last_round: Sequence[int] | None, fault_seat: int | None) -> tuple[list[int], list[float]]:
    """Ranks (1 best) and win shares: lower total first, then lower last-round score; a faulting seat is last.

    A game a fault stopped has no winner (its record has none either): every win share is 0, and
    the other seats' ranks are only their standing when it stopped. The ratings never read these
    shares; they score a faulted game from the seats' statuses
    (:func:`~cabo_kit.results.outcomes.fair_win`), which also rescores stores written when the
    other seats shared the win.

    >>> final_ranking([30, 20, 20], [5, 9, 3], None)
    ([3, 2, 1], [0.0, 0.0, 1.0])
    >>> final_ranking([10, 20, 20], None, 0)      # seat 0 faulted: last, and nobody won
    ([3, 1, 1], [0.0, 0.0, 0.0])
    """
    n = len(sheet_totals)
    last = list(last_round) if last_round else [0] * n
    live = [s for s in range(n) if s != fault_seat]
    keys = {s: (sheet_totals[s], last[s]) for s in live}
    rank = [n] * n
    for s in live:
        rank[s] = 1 + sum(1 for t in live if keys[t] < keys[s])
    winners = [s for s in live if rank[s] == 1] if fault_seat is None else []
    win = [1.0 / len(winners) if s in winners else 0.0 for s in range(n)]
    return rank, win


def _fault_of(exc: BaseException) -> tuple[str, str]:
    kind = getattr(exc, "kind", None)
    if kind in FAULT_KINDS:
        return kind, str(getattr(exc, "reason", exc))
    from ..actions import IllegalActionError

    if isinstance(exc, IllegalActionError):
        return "illegal", str(exc)
    return "error", "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))


class _AtSeat(Bot):
    """A bot as the game loop sees it in a tournament: notes its seat and the call before each call, so a fault is
    blamed on the right seat and named after the right hook (``cell``: ``[seat, call]``)."""

    def __init__(self, bot: Any, seat: int, cell: list[Any]) -> None:
        self._bot, self._seat, self._cell = bot, seat, cell
        self._choose = bot.choose

    def choose(self, observation: Any, legal_actions: Sequence[Any]) -> Any:
        cell = self._cell
        cell[0], cell[1] = self._seat, "choose()"
        return self._choose(observation, legal_actions)

    def on_round_start(self, observation: Any) -> None:
        self._cell[0], self._cell[1] = self._seat, "on_round_start()"
        self._bot.on_round_start(observation)

    def on_round_end(self, result: Any) -> None:
        self._cell[0], self._cell[1] = self._seat, "on_round_end()"
        self._bot.on_round_end(result)


def named_fault(kind: str, reason: str, call: str) -> str:
    """A fault's reason that starts with the call that failed: ``call`` put in front where the reason names none
    (a crashed process, a traceback from a bot in this process), so the store, the bot's page and ``repro`` name
    the hook (:func:`~cabo_kit.tournament.store.fault_hook`).

    >>> named_fault("crash", "the bot's process was killed by signal 9", "on_game_start()")
    "on_game_start(): the bot's process was killed by signal 9"
    >>> named_fault("error", "on_round_end() raised:\\nTraceback ...", "choose()")
    'on_round_end() raised:\\nTraceback ...'
    """
    from .store import fault_hook

    if not call or fault_hook(reason):
        return reason
    if kind == "error" and reason.startswith("Traceback"):
        return f"{call} raised:\n{reason}"
    return f"{call}: {reason}"


class _TimedAtSeat(_AtSeat):
    """An in-process (trusted) bot at its seat, its CPU measured around each call (``time.thread_time_ns``)."""

    def __init__(self, bot: Any, seat: int, cell: list[Any], tally: CpuTally) -> None:
        super().__init__(bot, seat, cell)
        self._tally = tally

    def choose(self, observation: Any, legal_actions: Sequence[Any]) -> Any:
        self._cell[0], self._cell[1] = self._seat, "choose()"
        t0 = _thread_ns()
        try:
            return self._choose(observation, legal_actions)
        finally:
            self._tally.decision(_thread_ns() - t0)

    def _hook(self, name: str, call: Callable[[Any], None], arg: Any) -> None:
        self._cell[0], self._cell[1] = self._seat, name
        t0 = _thread_ns()
        try:
            call(arg)
        finally:
            self._tally.other(_thread_ns() - t0)

    def on_round_start(self, observation: Any) -> None:
        self._hook("on_round_start()", self._bot.on_round_start, observation)

    def on_round_end(self, result: Any) -> None:
        self._hook("on_round_end()", self._bot.on_round_end, result)


def play_one(game: Game, bots: Sequence[Any], names: Sequence[str],
             tallies: Sequence[CpuTally | None] | None = None) -> tuple[int | None, str, str]:
    """Play ``game`` to its end or to the first fault; return ``(fault seat or None, kind, reason)``.

    Any exception from a bot (a :class:`~cabo_kit.tournament.isolation.BotFault` from an
    isolated one) stops the game at once with that seat at fault; the reason starts with the
    call that failed (:func:`named_fault`). The game loop is
    :func:`cabo_kit.play.run_game`, the same one ``play_game`` uses (round summaries without
    losing snap claims, ``docs/rules.md``, "What a player may know"). ``tallies``: per seat, a
    :class:`~cabo_kit.tournament.timing.CpuTally` that counts an in-process bot's calls and their
    CPU, or ``None`` (an isolated bot measures itself: ``bot.cpu``).
    """
    cell: list[Any] = [-1, ""]
    timed = list(tallies) if tallies is not None else [None] * len(bots)

    def hook(seat: int, call: Callable[[], None]) -> None:
        tally = timed[seat]
        if tally is None:
            call()
            return
        t0 = _thread_ns()
        try:
            call()
        finally:
            tally.other(_thread_ns() - t0)

    try:
        for seat, bot in enumerate(bots):
            cell[0], cell[1] = seat, "on_game_start()"
            hook(seat, lambda: bot.on_game_start(seat, game.n, game.rules))
        run_game(game, [_AtSeat(b, s, cell) if timed[s] is None else _TimedAtSeat(b, s, cell, timed[s])  # type: ignore[arg-type]
                        for s, b in enumerate(bots)], names)
        totals, winners = list(game.sheet.totals), list(game.sheet.winners)
        for seat, bot in enumerate(bots):
            cell[0], cell[1] = seat, "on_game_end()"
            hook(seat, lambda: bot.on_game_end(totals, winners))
    except Exception as exc:  # any bot failure is that seat's fault; the engine itself is trusted
        kind, reason = _fault_of(exc)
        return cell[0], kind, named_fault(kind, reason, cell[1])
    return None, "", ""


def _seat_counts(rounds: Sequence[RoundResult], seat: int) -> dict[str, int]:
    c = dict.fromkeys(COUNTS, 0)
    c["rounds"] = len(rounds)
    for r in rounds:
        st = r.stats[seat]
        c["cabo_calls"] += st.get("cabo_calls", 0)
        c["cabo_wins"] += int(r.caller == seat and bool(r.caller_won))
        c["kamikaze"] += int(seat in r.kamikaze)
        c["royal_roulette"] += int(seat in r.royal_roulette)
        c["resets"] += int(seat in r.resets)
        c["snaps"] += st.get("snaps", 0)
        c["snaps_right"] += st.get("snaps_right", 0)
        c["failed_multi_exchanges"] += st.get("failed_multi_exchanges", 0)
        c["powers_used"] += sum(st.get(p, 0) for p in POWERS)
        c["deck_outs"] += int(r.ended_by == "deck")
        c["round_score_sum"] += r.scores[seat]
    return c


def _make_bots(task: MatchTask, workdir: Path) -> list[Any]:
    bots: list[Any] = []
    for spec in task.lineup:
        if spec.kind == "builtin":
            from .. import bots as builtin

            bots.append(getattr(builtin, spec.class_name)())
            continue
        from .isolation import IsolatedBot, Limits, Submission

        path = workdir / f"{spec.name}.py"
        if not path.exists():
            # Readable by the runner's uid only: the harness reads it before it drops to its bot's own uid,
            # so no bot (of any uid) can read a classmate's file in this shared folder.
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(spec.source)
        sub = Submission(name=spec.name, version=spec.version, path=path, class_name=spec.class_name)
        log = None
        if task.log_dir and os.path.isdir(task.log_dir):
            log = Path(task.log_dir) / f"{spec.name}-{task.deal_id[:12]}.log"
        bots.append(IsolatedBot(sub, Limits(**task.limits), log_path=log))
    return bots


def run_match(task: MatchTask) -> list[tuple[GameRow, list[SeatRow]]]:
    """Play the missing rotations of one match (in a worker process); return the rows to store.

    Rotation ``r`` seats ``lineup[(s + r) % k]`` at seat ``s``; every rotation uses the deal's
    seed, so the same cards are dealt and each bot holds each seat of the deal once.
    """
    rules = Rules.from_dict(task.rules)
    k = task.table_size
    workdir = Path(tempfile.mkdtemp(prefix="cabo-match-"))  # 0700: the runner's uid only (see _make_bots)
    out = []
    try:
        players = _make_bots(task, workdir)
        if any(spec.kind == "file" for spec in task.lineup):
            from .isolation import start_server

            start_server()  # once per worker, before the first game's clock
        try:
            for rot, gid in zip(task.rotations, task.game_ids):
                order = [(s + rot) % k for s in range(k)]
                bots = [players[i] for i in order]
                specs = [task.lineup[i] for i in order]
                names = [s.name for s in specs]
                started = time.perf_counter()
                game = Game(rules, task.deal_seed, k, memory=task.memory)
                for s, bot in enumerate(bots):
                    bot.random = bot_random(task.deal_seed, s)
                for bot in bots:  # every isolated seat's fresh process loads side by side
                    prestart = getattr(bot, "prestart", None)
                    if prestart is not None:
                        try:
                            prestart()
                        except Exception:  # noqa: BLE001 - on_game_start starts it again and reports the fault
                            pass
                trusted: list[CpuTally | None] = [None if isinstance(getattr(b, "cpu", None), CpuTally) else CpuTally()
                                                  for b in bots]
                fault_seat, kind, reason = play_one(game, bots, names, trusted)
                seconds = time.perf_counter() - started
                tallies = [t if t is not None else b.cpu for t, b in zip(trusted, bots)]
                sheet = game.sheet
                rank, win = final_ranking(sheet.totals, sheet.rounds[-1] if sheet.rounds else None, fault_seat)
                info: dict[str, Any] = {"tournament": {"deal": task.deal_key, "rotation": rot, "game_id": gid}}
                if fault_seat is not None:
                    info["fault"] = {"seat": fault_seat, "bot": names[fault_seat], "kind": kind, "reason": reason}
                record = GameRecord.from_game(game, names, info=info).to_json().encode()
                rounds = list(game.results)
                seats = [
                    SeatRow(s, specs[s].name, specs[s].version, sheet.totals[s], rank[s], win[s],
                            kind if s == fault_seat else "ok", reason if s == fault_seat else "", _seat_counts(rounds, s),
                            tallies[s].decisions, tallies[s].cpu_s, tallies[s].hist_text())
                    for s in range(k)
                ]
                row = GameRow(gid, task.deal_id, f"{task.order_key}:{rot}", task.preset, task.rules_json, k,
                              task.deal_seed, rot, "ok" if fault_seat is None else "fault", len(rounds), record, seconds)
                out.append((row, seats))
                if fault_seat is not None:
                    # the next game starts the faulting bot afresh
                    close = getattr(players[order[fault_seat]], "close", None)
                    if close is not None:
                        close()
        finally:
            for bot in players:
                close = getattr(bot, "close", None)
                if close is not None:
                    close()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return out



class TaskPlayer:
    """Plays :class:`MatchTask` batches on one executor into a store, with a :class:`~cabo_kit.tournament.progress.Progress`.

    The executor is made at the first batch with every worker (an adaptive run or a grading round plays
    batch after batch, and a later batch may be larger); the progress (``label``, off with
    ``progress=False``) starts at the first batch's size and grows with each. :meth:`play` yields each
    finished game ``(row, seats, added)`` once it is stored (``added``: it was not stored before).
    The tournament (:func:`run_tournament`) and the grading (:func:`~cabo_kit.tournament.grades.play_grades`)
    both play through it. ``busy``: how many workers may play at the moment (see
    :class:`~cabo_kit.tournament.executors.LocalExecutor`; ``None``: all of them).
    """

    def __init__(self, store: Store, kind: str, workers: int, scheduler: str | None, label: str,
                 progress: bool = True, busy: Callable[[], int] | None = None) -> None:
        self.store, self.kind, self._workers, self.scheduler = store, kind, workers, scheduler
        self.busy = busy
        self.label, self.progress = label, progress
        self.ex: Any = None
        self.bar: Progress | None = None

    @property
    def workers(self) -> int:
        """The executor's workers once it is made (it may use fewer than asked), else the workers asked for."""
        return int(self.ex.workers) if self.ex is not None else self._workers

    def play(self, tasks: Sequence[MatchTask], todo: int | None = None) -> Iterator[tuple[GameRow, list[SeatRow], bool]]:
        """Play ``tasks``; ``todo``: the games the progress adds for them (default: their rotations)."""
        from .executors import make_executor

        if not tasks:
            return
        todo = sum(len(t.rotations) for t in tasks) if todo is None else todo
        if self.ex is None:
            if self.progress:
                # Made with the first batch's size: a bar of total 0 would print an empty line first.
                self.bar = Progress(todo, self.label)
                todo = 0
            self.ex = make_executor(self.kind, self._workers, self.scheduler, busy=self.busy)
        if self.bar is not None and todo:
            self.bar.add_total(todo)
        for results in self.ex.run(run_match, list(tasks)):
            for row, seats in results:
                added = self.store.add_game(row, seats)
                yield row, seats, added
                if self.bar is not None:
                    self.bar.update(1)

    def close(self) -> None:
        try:
            if self.ex is not None:
                self.ex.close()
        finally:
            if self.bar is not None:
                self.bar.close()

    def __enter__(self) -> "TaskPlayer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# ------------------------------------------------------------------ the run


def run_tournament(
    folder: str | Path,
    *,
    games: int | None = None,
    workers: int | None = None,
    executor: str | None = None,
    scheduler: str | None = None,
    precision: float | None = None,
    max_games: int | None = None,
    progress: bool = True,
    out: Callable[[str], None] | None = print,
    loader: Callable[..., Any] | None = None,
    description: str = "a tournament run",
    command: str | None = None,
    busy: Callable[[], int] | None = None,
    grading: bool = True,
) -> RunSummary:
    """Play every scheduled game of the tournament in ``folder`` that the store does not hold yet.

    Arguments override ``tournament.toml``: ``games`` (per bot, preset and table size),
    ``workers``, ``executor`` (``"local"`` or ``"dask"``), ``scheduler`` (a Dask address),
    ``precision`` (an Elo half-width: after the balanced schedule, play adaptive batches until
    every two-sided 95% interval is within it; 0 turns it off) and ``max_games`` (the adaptive
    game budget per bot, preset and table size). Messages (the settings note, rejected files, a
    summary) go to ``out`` (``None``: silent). ``busy``, called before each match is handed out,
    says how many of the workers may play at that moment (the portal lends its checks' idle core
    this way); the games and results are the same whatever it says. ``grading=False`` leaves the grading
    games (``tournament.toml``'s ``grading``) to the caller (:func:`~cabo_kit.tournament.grades.play_grades`).

    The run holds the folder (:class:`~cabo_kit.tournament.lock.FolderLock`, described as
    ``description``) from its first write to its last game: while another process holds it the
    run raises :class:`~cabo_kit.tournament.lock.FolderBusy`, naming the holder, and plays
    nothing. A damaged or unwritable store raises
    :class:`~cabo_kit.tournament.store.StoreError` saying which file and what to do; a schedule
    without a single game (a table larger than the class) raises
    :class:`~cabo_kit.tournament.config.ConfigError` before anything is written.
    """
    from .executors import default_workers

    say = out or (lambda _s: None)
    folder = Path(folder)
    if not folder.is_dir():
        raise ConfigError(f"{folder} is not a folder: make it and put the submissions in {folder}/bots/")
    check_free(folder)  # now, before loading every submission; the lock itself is taken before the first write
    cfg, note = load_config(folder)
    say(note)
    if games is not None and games < 1:
        raise ConfigError(f"--games {games}: write a whole number >= 1")
    if precision is not None and not precision >= 0:
        raise ConfigError(f"--until {precision}: write the Elo half-width to reach, e.g. --until 50 (0: off)")
    if max_games is not None and max_games < 1:
        raise ConfigError(f"--max-games {max_games}: write a whole number >= 1")
    target = cfg.precision if precision is None else float(precision)
    budget = max_games or cfg.max_games
    if target > 0:
        import importlib.util

        lacking = [m for m in ("numpy", "pandas") if importlib.util.find_spec(m) is None]
        if lacking:
            raise ConfigError(f"precision = {target:g} rates the games as they come in, which needs {', '.join(lacking)}: "
                              "pip install 'cabo-kit[report]', or set precision = 0 for a fixed number of games")
    from .isolation import one_line_reason

    started = time.perf_counter()
    entrants, rejected = collect_entrants(folder, cfg, loader)
    if len(entrants) < 2:  # nothing can be played: say so before writing anything into the folder
        names = ", ".join(b.name for b in entrants) or "no bot"
        why = ("; ".join(f"rejected {f}: {one_line_reason(r, f)}" for f, r in rejected) if rejected
               else f"no bot files in {folder / 'bots'}")
        raise ConfigError(f"only {names} can play ({why}): a table needs at least 2 different bots; put one "
                          "submission per .py file in bots/ (check each first: cabo-kit check-bot FILE), or add "
                          "reference bots in tournament.toml")
    for file, reason in rejected:
        say(f"rejected {file}: {one_line_reason(reason, file)}")
    cfg.check_anchor([b.name for b in entrants], rejected)
    kind = executor or cfg.executor
    n_workers = workers or cfg.workers or default_workers()
    summary = RunSummary(folder, entrants, rejected, workers=n_workers, executor=kind)
    planned = plan(cfg, entrants, games)
    if not planned:
        raise ConfigError(_nothing_to_play(cfg, entrants, rejected))
    lock = FolderLock(folder, description, command).acquire()
    try:
        if lock.note:
            say(lock.note)
        summary = _play_all(folder, cfg, entrants, rejected, planned, summary, games, target, budget, kind, n_workers,
                            scheduler, progress, say, started, busy)
        if cfg.grading and grading:  # after the main schedule, in the same hold of the folder: docs/tournaments.md, "Grades"
            from .grades import play_grades

            play_grades(folder, cfg, entrants, workers=n_workers, executor=kind, scheduler=scheduler,
                        progress=progress, out=say, command=command, rejected=rejected, busy=busy)
        return summary
    finally:
        lock.release()


def _too_few(sizes: Sequence[int], n: int, playing: str) -> str:
    """Why a table size has no games, and the fix: ``a 4-player table needs 4 different bots and 2 {playing}; ...``."""
    return (f"a {' and '.join(f'{k}-player' for k in sizes)} table needs {min(sizes)} different bots and {n} {playing}; "
            f"add bot files or reference bots, or set table_sizes = [{max(2, n)}] in tournament.toml")


def _nothing_to_play(cfg: TournamentConfig, entrants: Sequence[BotSpec], rejected: Sequence[tuple[str, str]]) -> str:
    why = ", ".join(b.name for b in entrants) + (f"; rejected: {', '.join(f for f, _ in rejected)}" if rejected else "")
    return f"no game to play: {_too_few(cfg.table_sizes, len(entrants), f'can play ({why})')}"


SEED_GUESSES = 10_000
"""The seeds tried to name the seed of a store's games when the store does not record it (written before it did)."""


def _check_seed(store: Store, cfg: TournamentConfig, planned: Sequence[tuple[Match, list[str]]]) -> None:
    """Refuse a store whose games were played with another seed; record the seed in a store that has none yet.

    A game's id holds its deals' keys, not the seed (all combinations and adaptive batches have the
    same keys under any seed), so without this a run with another seed would take the stored games
    of the old seed for its own. A store that does not record its seed (written by an older cabo-kit)
    is read from its games: the deal seeds of the stored games this schedule names, else of any
    stored game (:func:`~cabo_kit.tournament.schedule.stored_deal_keys`), against this seed's.
    """
    recorded = store.meta("seed")
    theirs, refusal = _seed_refusal(recorded, store.lineups, cfg, planned, store.path)
    if refusal:
        raise ConfigError(refusal)
    if recorded is None and theirs == cfg.seed:
        store.set_meta("seed", str(cfg.seed))


def _seed_refusal(recorded: str | None, lineups: "Callable[[], dict[str, Any]]", cfg: TournamentConfig,
                  planned: Sequence[tuple[Match, list[str]]], db: Path) -> tuple[int | None, str]:
    """The read-only part of :func:`_check_seed`: the stored games' seed, and ``""`` when they fit ``cfg.seed``,
    else the message that refuses them (``recorded``: the store's recorded seed; ``lineups``: its games, read only
    when it records none)."""
    theirs = int(recorded) if recorded is not None else _seed_of(lineups(), cfg.seed, planned)
    if theirs == cfg.seed:
        return theirs, ""
    of = f"seed {theirs}" if theirs is not None else "another seed"
    fix = f"set seed = {theirs} to go on with them" if theirs is not None else "set the seed they were played with"
    aside = db.with_name(f"{db.stem}-seed-{theirs if theirs is not None else 'old'}{db.suffix}")
    says = (f"{cfg.source} says seed = {cfg.seed}" if (db.parent / "tournament.toml").exists()
            else f"this run uses the default seed {cfg.seed} (no tournament.toml)")
    move = (f'move "{db}" "{aside}"' if os.name == "nt" else f"mv {shlex.quote(str(db))} {shlex.quote(str(aside))}")
    return theirs, (f"{db} holds games of {of}; {says}: {fix}, or move {db.name} aside ({move}) to start over")


def _seed_of(stored: "dict[str, tuple[str, str, int, str, int, int, tuple[tuple[str, str], ...]]]", seed: int,
             planned: Sequence[tuple[Match, list[str]]]) -> int | None:
    """The seed the stored games (:meth:`Store.lineups`) were played with: ``seed`` when they fit it, else the
    one of :data:`SEED_GUESSES` that made them, else ``None`` (another seed, not found)."""
    from .schedule import deal_seed, stored_deal_keys

    if not stored:
        return seed

    def made_with(s: int, game: "tuple[str, str, int, str, int, int, tuple[tuple[str, str], ...]]") -> bool:
        preset, rules, k, order_key, dseed, _rot, seats = game
        return any(deal_seed(s, preset, rules, k, key) == dseed for key in stored_deal_keys(order_key, [b for b, _ in seats]))

    named = [(stored[gid][4] == m.deal_seed, gid) for m, ids in planned for gid in ids if gid in stored]
    other = [gid for fits, gid in named if not fits]
    if not other and (named or any(made_with(seed, game) for game in stored.values())):
        return seed
    game = stored[other[0]] if other else next(iter(stored.values()))
    return next((s for s in range(SEED_GUESSES) if s != seed and made_with(s, game)), None)


def _play_all(
    folder: Path, cfg: TournamentConfig, entrants: list[BotSpec], rejected: list[tuple[str, str]],
    planned: list[tuple[Match, list[str]]], summary: RunSummary, games: int | None, target: float, budget: int,
    kind: str, n_workers: int, scheduler: str | None, progress: bool, say: Callable[[str], None], started: float,
    busy: Callable[[], int] | None = None,
) -> RunSummary:
    """The part of :func:`run_tournament` that writes: play what is missing, store it, say what was done."""
    by_name = {b.name: b for b in entrants}
    faulty: dict[str, int] = {}
    (folder / "logs").mkdir(exist_ok=True)
    rules_of = {(e.preset, e.rules_json): e.rules.to_dict() for e in cfg.presets}
    player: TaskPlayer | None = None
    planned_workers = n_workers
    credit = 0  # games the progress already counts before their tasks are played
    with Store(folder / DB_NAME) as store:
        _check_seed(store, cfg, planned)  # before anything is written: a game's id does not hold the seed
        store.set_rejected(rejected)
        store.set_scheduled([gid for _, ids in planned for gid in ids])
        have = store.existing_ids()

        def tasks_of(batch: list[tuple[Match, list[str]]]) -> list[MatchTask]:
            tasks = []
            for m, ids in batch:
                missing = [(rot, gid) for rot, gid in enumerate(ids) if gid not in have]
                summary.scheduled += len(ids)
                summary.skipped += len(ids) - len(missing)
                if not missing:
                    continue
                tasks.append(MatchTask(
                    rules=rules_of[(m.preset, m.rules)],
                    preset=m.preset, rules_json=m.rules, table_size=m.table_size, deal_key=m.deal_key,
                    deal_seed=m.deal_seed, deal_id=_deal_id(m, by_name), order_key=m.order_key,
                    lineup=tuple(by_name[b] for b in m.lineup), rotations=tuple(r for r, _ in missing),
                    game_ids=tuple(g for _, g in missing), limits=dict(cfg.limits), memory=cfg.memory,
                    log_dir=str((folder / "logs").resolve()),
                ))
            return tasks

        def play(tasks: list[MatchTask], announce: int = 0) -> None:
            nonlocal player, credit
            if not tasks:
                return
            todo = sum(len(t.rotations) for t in tasks)
            if announce:  # the whole first batch, played in two parts (the timed games first)
                credit, todo = announce - todo, announce
            elif credit:
                credit, todo = max(0, credit - todo), max(0, todo - credit)
            if player is None:
                say(f"playing {todo} games ({summary.skipped} already stored) with {planned_workers} {kind} workers"
                    + (f", then adaptively until every two-sided interval is within +-{target:g} Elo" if target > 0 else "")
                    + " ...")
                player = TaskPlayer(store, kind, planned_workers, scheduler or cfg.scheduler or None, "tournament",
                                    progress, busy)
            for row, seats, added in player.play(tasks, todo):
                if added:
                    summary.played += 1
                    have.add(row.game_id)
                summary.faults += row.status == "fault"
                for seat in seats:
                    if seat.status not in ("ok", ""):
                        faulty[seat.bot] = faulty.get(seat.bot, 0) + 1
            summary.workers = player.workers

        short = [k for k in cfg.table_sizes if len(entrants) < k]
        for k in short:
            note = f"no {k}-player games: {_too_few([k], len(entrants), 'is playing' if len(entrants) == 1 else 'are playing')}"
            summary.notes.append(note)
            say(note)
        try:
            first = tasks_of(planned)
            planned_workers = n_workers if target > 0 else min(n_workers, max(1, len(first)))
            todo = sum(len(t.rotations) for t in first)
            model = _stored_model(folder, entrants) if first else None
            sample = _sample_of([((t.preset, t.rules_json, t.table_size), [b.name for b in t.lineup]) for t in first],
                                model) if first else []
            if first and model is not None and not sample:
                for line in _estimate(model, first, cfg, entrants, games, target, budget, n_workers, kind,
                                      "from the stored games' timings", folder).lines():
                    say(line)
            if sample and model is not None:  # time a first batch (games of the run, stored as usual), then estimate
                chosen = set(sample)
                play([first[i] for i in sample], announce=todo)
                rest = [t for i, t in enumerate(first) if i not in chosen]
                model = _stored_model(folder, entrants)
                if model is not None and rest:
                    for line in _estimate(model, rest, cfg, entrants, games, target, budget, n_workers, kind,
                                          f"from the first {sum(len(first[i].rotations) for i in sample)} games; "
                                          "left to play", folder).lines():
                        say(line)
                first = rest
            play(first)
            if target > 0:
                for note in _adaptive(cfg, entrants, store, target, budget, tasks_of, play, folder):
                    summary.notes.append(note)
                    say(note)
        finally:
            if player is not None:
                player.close()
    summary.seconds = time.perf_counter() - started
    if summary.played == 0 and summary.skipped == summary.scheduled:
        say(f"nothing to play: all {summary.skipped} games already in the store; {len(entrants)} bots, "
            f"{len(rejected)} files rejected")
        return summary
    by_bot = (" (" + ", ".join(f"{b}: {k}" for b, k in sorted(faulty.items())) + ")") if faulty else ""
    say(f"{summary.played} games played, {summary.skipped} already stored, {summary.faults} with a fault{by_bot}; "
        f"{len(entrants)} bots, {len(rejected)} files rejected ({summary.seconds:.1f} s, {summary.workers} "
        f"{summary.executor} workers)")
    return summary


def _adaptive(
    cfg: TournamentConfig, entrants: Sequence[BotSpec], store: Store, target: float, budget: int,
    tasks_of: Callable[[list[tuple[Match, list[str]]]], list[MatchTask]], play: Callable[[list[MatchTask]], None],
    folder: Path,
) -> list[str]:
    """The adaptive phase: batch after batch, rate each preset and seat the bots whose intervals are too wide.

    **Reuse.** Every stored game of this tournament (its seed, presets and table sizes) whose bots
    are all current entrants at their current versions counts, whether the balanced schedule or
    an adaptive batch of an earlier run played it (:func:`_reusable`). So a late or changed file
    plays its own balanced games, and then only what the intervals still need.

    **Batches.** Batch ``b`` is planned from the games scheduled so far (the ``scheduled`` table:
    every earlier batch is complete before the next is planned), so the batches, and the results,
    are the same on any executor. Each adaptive game's ``order_key`` carries a fingerprint of what
    its batch was planned from (the ids of the preset's games, the target, budget, anchor and speed
    classes, which the store keeps once computed: :func:`_speed_classes`). A rerun walks the stored
    batches in order: a batch whose fingerprint is that of the
    games now scheduled before it was planned from exactly these games, so it is planned again (the
    same matches) and only its missing games are played: a killed run resumes to the same results.
    A batch planned from other games (before a file joined or changed) is kept as it is, its
    reusable games added, nothing planned in its place; after the last stored batch, new batches
    are planned as in a first run. Returns one line per preset on how it ended.
    """
    import dataclasses
    from collections import Counter

    from ..results.ratings import fit_elo, precision_needs
    from .schedule import adaptive_matches
    from .store import load_frames

    by_name = {b.name: b for b in entrants}
    groups = [(e, k) for e in cfg.presets for k in cfg.table_sizes if len(entrants) >= k]
    sharing = Counter(e.preset for e, _ in groups)
    extra, stored, top = _reusable(cfg, entrants, store, groups)
    named = store.scheduled_ids()
    extra = {p: [gid for gid in ids if gid not in named] for p, ids in extra.items()}
    store.add_scheduled(gid for ids in extra.values() for gid in ids)
    kept: Counter[str] = Counter({p: len(ids) for p, ids in extra.items()})  # per preset: games of earlier runs counted as they are
    anchor = cfg.anchor or None
    active = list(groups)
    notes: dict[str, str] = {}
    batch = 0
    while active:
        batch += 1
        _, seats = load_frames(folder / DB_NAME)
        boards: dict[str, Any] = {}
        state: dict[str, tuple[Any, dict[str, float], str, bool]] = {}
        planned: list[tuple[Match, list[str]]] = []
        for entry, k in list(active):
            p = entry.preset
            if p not in state:
                part = seats[seats["preset"] == p]
                costs = _speed_classes(part, by_name, store, p)
                fp = _fingerprint(part, target, budget, 1.0 / sharing[p], anchor, costs)
                old = stored.get((p, batch))
                state[p] = (part, costs, fp, batch > top.get(p, 0) or (old is not None and old[0] == {fp}))
            part, costs, fp, replan = state[p]
            if not replan:
                continue  # planned from other games by an earlier run: its reusable games are kept below
            if p not in boards:
                boards[p] = fit_elo(part, anchor=anchor)
            ratings = {b: r for b, r in precision_needs(boards[p], p).items() if b in by_name}
            matches = adaptive_matches(ratings, p, entry.rules_json, k, cfg.seed, batch, target, budget,
                                       share=1.0 / sharing[p], costs=costs)
            if not matches:
                active.remove((entry, k))
                widest = max((h for _, h, _ in ratings.values() if h == h), default=0.0)
                n_games = int(part["game_id"].nunique())
                from_before = f" ({kept[p]} of them kept from earlier runs)" if kept[p] else ""
                if widest <= target:
                    notes[p] = (f"{p}: every two-sided interval within +-{target:g} Elo "
                                f"(widest +-{widest:.0f}) after {n_games} games{from_before}, {batch - 1} adaptive batches")
                else:
                    shown = (f"the widest two-sided interval at +-{widest:.0f} Elo" if widest < math.inf
                             else "a bot still bounded on one side only within the field's range")
                    notes[p] = (f"{p}: the game budget (max_games = {budget}) is reached with "
                                f"{shown} after {n_games} games{from_before}; "
                                "raise max_games (or --max-games) to go on")
                continue
            for m in matches:
                m = dataclasses.replace(m, order_key=f"{m.order_key}:{fp}")
                ids = [game_id(m.preset, m.rules, k, m.deal_key, rot,
                               [(b, by_name[b].version) for b in m.seats(rot)]) for rot in range(k)]
                planned.append((m, ids))
        again: list[str] = []
        for p, (_, _, _, replan) in state.items():
            old = stored.get((p, batch))
            if old is not None:
                again.extend(old[1])
                if not replan:
                    kept[p] += len(old[1])
        if again:
            store.add_scheduled(again)
        if planned:
            store.add_scheduled(gid for _, ids in planned for gid in ids)
            play(tasks_of(planned))
    return [notes[p] for p in sorted(notes)]


def _reusable(
    cfg: TournamentConfig, entrants: Sequence[BotSpec], store: Store, groups: Sequence[tuple[Any, int]],
) -> tuple[dict[str, list[str]], dict[tuple[str, int], tuple[set[str], list[str]]], dict[str, int]]:
    """The stored games a rerun can count: ``(balanced ids, adaptive batches, last batch per preset)``.

    A game counts when it belongs to one of ``groups`` (preset, rules, table size), its deal is
    one this seed makes (:func:`~cabo_kit.tournament.schedule.stored_deal_keys`: another seed's
    games are another tournament) and every seat is a current entrant at its current version.
    Balanced games not in the current schedule, by preset (e.g. tables of the random design that a
    late bot moved; those the schedule names are scheduled already). Adaptive games, by
    ``(preset, batch)``: the fingerprints they carry and their ids. The last batch per preset is
    over every stored adaptive game of this seed, current or not, so new batches never reuse a number.
    """
    from .schedule import deal_seed, stored_deal_keys

    current = {b.name: b.version for b in entrants}
    wanted = {(e.preset, e.rules_json, k) for e, k in groups}
    extra: dict[str, list[str]] = {}
    stored: dict[tuple[str, int], tuple[set[str], list[str]]] = {}
    top: dict[str, int] = {}
    for gid, (preset, rules, k, order_key, seed, _rot, seats) in store.lineups().items():
        if (preset, rules, k) not in wanted:
            continue
        keys = stored_deal_keys(order_key, [b for b, _ in seats])
        if not any(deal_seed(cfg.seed, preset, rules, k, key) == seed for key in keys):
            continue
        parts = order_key.split(":")
        adaptive = parts[0].startswith("a")
        if adaptive:
            top[preset] = max(top.get(preset, 0), int(parts[0][1:]))
        if any(current.get(bot) != version for bot, version in seats):
            continue
        if adaptive:
            fps, ids = stored.setdefault((preset, int(parts[0][1:])), (set(), []))
            fps.add(parts[2] if len(parts) == 4 else "")
            ids.append(gid)
        else:
            extra.setdefault(preset, []).append(gid)
    return extra, stored, top


def _fingerprint(part: Any, target: float, budget: int, share: float, anchor: str | None, costs: dict[str, float]) -> str:
    """What an adaptive batch is planned from, in 12 hex digits: the preset's games and the settings that shape the plan."""
    text = json.dumps([sorted(set(part["game_id"])), target, budget, share, anchor, sorted(costs.items())])
    return hashlib.sha256(text.encode()).hexdigest()[:12]


SPEED_CLASSES = "speed_classes"
"""The store's ``meta`` key of the cost classes: JSON ``{preset: {bot: {version: class}}}``."""


def _speed_classes(part: Any, by_name: dict[str, BotSpec], store: Store | None = None, preset: str = "") -> dict[str, float]:
    """Each entrant's cost class in one preset (:func:`~cabo_kit.tournament.schedule.speed_classes` of its
    median CPU seconds per game, the seats' ``cpu_s``); a bot without CPU times is left out (class 1).

    With ``store``, a (preset, bot, version)'s class is computed once, the first time its games are
    timed, kept in the store's ``meta`` (:data:`SPEED_CLASSES`) and reused by every later batch and
    rerun: CPU times differ from run to run, and a class recomputed each time could cross a
    boundary (10x, 100x, ... the median bot) and change a resumed run's plan.
    """
    from .schedule import speed_classes

    fresh: dict[str, float] = {}
    if "cpu_s" in getattr(part, "columns", ()):
        timed = part.dropna(subset=["cpu_s"])
        if not timed.empty:
            per_bot = timed.groupby("bot")["cpu_s"].median()
            classes = speed_classes({b: float(per_bot.get(b, float("nan"))) for b in sorted(by_name)})
            fresh = {b: c for b, c in classes.items() if b in per_bot.index}
    if store is None:
        return fresh
    known = json.loads(store.meta(SPEED_CLASSES) or "{}")
    mine = known.setdefault(preset, {})
    out: dict[str, float] = {}
    for b in sorted(by_name):
        version = by_name[b].version
        kept = mine.get(b, {}).get(version)
        if kept is None and b in fresh:
            kept = mine.setdefault(b, {})[version] = fresh[b]
        if kept is not None:
            out[b] = float(kept)
    if known != json.loads(store.meta(SPEED_CLASSES) or "{}"):
        store.set_meta(SPEED_CLASSES, json.dumps(known, sort_keys=True))
    return out


# ------------------------------------------------------------------ the time known before playing


def _stored_model(folder: Path, entrants: Sequence[BotSpec]) -> "CostModel | None":
    """The cost model of the store's timed games of these bots' current versions (``None`` without pandas)."""
    try:
        import pandas  # noqa: F401
    except ImportError:  # pragma: no cover - a plain run needs no pandas: no estimate then
        return None
    return CostModel.fit(*_timed_frames(folder, entrants))


def _sample_of(items: Sequence[tuple[Group, Sequence[str]]], model: "CostModel | None") -> list[int]:
    """Which of ``items`` (a group and its lineup, in play order) to time first: for each group, the first
    matches that seat a bot not timed in that group yet (at least one per group the model has no games of)."""
    if model is None:
        return []
    wanted: dict[Group, set[str]] = {}
    for group, lineup in items:
        if group not in wanted:  # a group without a timed game: its first match at least
            wanted[group] = set(lineup) if group not in model.overhead else set()
        wanted[group] |= {b for b in lineup if (b, group) not in model.bot_game}
    chosen: list[int] = []
    for i, (group, lineup) in enumerate(items):
        if wanted[group] & set(lineup):
            chosen.append(i)
            wanted[group] -= set(lineup)
    return chosen


def _estimate(model: "CostModel", tasks: Sequence[MatchTask], cfg: TournamentConfig, entrants: Sequence[BotSpec],
              games: int | None, target: float, budget: int, workers: int, kind: str, source: str,
              folder: Path | None = None) -> Estimate:
    """The expected duration of ``tasks`` (and, with a precision target, of the adaptive games; with ``grading`` and
    a ``folder``, of the grading games still missing: :func:`~cabo_kit.tournament.grades.grading_todo`) on
    ``workers`` (every worker of the run: the balanced games use as many as they have tasks, the adaptive and the
    grading games all of them), each game priced by ``model``. A grading bot that is not an entrant is timed only
    if ``model`` knows it (:func:`estimate_tournament` samples it); else it is priced as the median bot and listed
    in ``unknown``."""
    from .executors import default_workers

    total = 0.0
    n_games = 0
    per_group: dict[Group, list[float]] = {}
    for t in tasks:
        group = (t.preset, t.rules_json, t.table_size)
        one = model.game_seconds(group, [b.name for b in t.lineup])
        per_group.setdefault(group, []).append(one)
        total += one * len(t.rotations)
        n_games += len(t.rotations)
    lanes = max(1, min(workers, default_workers() if kind == "local" else workers))
    parallel = lanes if target > 0 else max(1, min(lanes, len(tasks)))
    names = [b.name for b in entrants]
    groups = {(e.preset, e.rules_json, k) for e in cfg.presets for k in cfg.table_sizes if len(entrants) >= k}
    per_bot: dict[str, float] = {}
    for b in names:
        costs = [model.bot_seconds(b, g) for g in groups]
        per_bot[b] = sum(costs) / len(costs) if costs else 0.0
    # + the start of the workers and their harness servers, about a second (docs/performance.md)
    est = Estimate(games=n_games, seconds=total / parallel + (START_S if n_games else 0.0), workers=parallel, per_bot=per_bot,
                   per_game=total / n_games if n_games else 0.0,
                   unknown=sorted(b for b in names if not model.knows(b)), sampled=model.games, source=source)
    if target > 0:
        need = expected_games(target, anchored=bool(cfg.anchor))
        adaptive = adaptive_max = 0
        extra_seconds = 0.0
        for group in groups:
            k = group[2]
            seeded_k = k * math.ceil((games or cfg.games) / k)
            more = len(names) * max(0, min(budget, need) - seeded_k) // k
            adaptive += more
            adaptive_max += len(names) * max(0, budget - seeded_k) // k
            known = per_group.get(group) or [model.game_seconds(group, names[:k])]
            extra_seconds += more * sum(known) / len(known)
        est.adaptive, est.adaptive_max = adaptive, adaptive_max
        est.adaptive_seconds = extra_seconds / lanes
    if cfg.grading and folder is not None:
        from .grades import grading_todo

        todo = grading_todo(folder, cfg, entrants)
        # Grading keeps every worker (its rounds are one batch of each open grade), as the adaptive phase does.
        for group, pair, expected, at_most in todo:
            one = model.game_seconds(group, list(pair))
            est.grading += expected
            est.grading_max += at_most
            est.grading_seconds += one * expected / lanes
            est.grading_max_seconds += one * at_most / lanes
        # a bar that is not an entrant and was not sampled: priced as the median bot, so said (a SearchBot bar costs more)
        est.unknown = sorted(set(est.unknown) | {bar for _, (_, bar), *_ in todo if not model.knows(bar)})
    return est


def estimate_tournament(
    folder: str | Path,
    *,
    games: int | None = None,
    workers: int | None = None,
    executor: str | None = None,
    scheduler: str | None = None,
    precision: float | None = None,
    max_games: int | None = None,
    out: Callable[[str], None] | None = print,
    loader: Callable[..., Any] | None = None,
) -> Estimate:
    """How long ``run_tournament(folder, ...)`` with the same arguments should take, without running it.

    It reads the store's timings of the bots' current files when there are some, and plays a short
    timed sample for the bots and groups (preset, rules, table size) they lack: per group, the first
    scheduled matches that seat an untimed bot, one game each (one seat rotation). The sample is never
    stored (nothing in the folder changes, and the later run's results are the same), so it is played
    again by the run. With a precision target, the adaptive games are a rough prior (the ``1/sqrt(games)``
    law of the measured class, :data:`~cabo_kit.tournament.timing.ROUND_ROBIN_C`) and the budget caps them.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "tournament.toml").write_text('presets = ["rush"]\\ntable_sizes = [2]\\ngames = 2\\nreference = ["RandomBot", "GreedyBot"]\\n')
    >>> est = estimate_tournament(folder, workers=1, out=None)
    >>> est.games, est.workers, est.sampled, est.headline().startswith("about")
    (2, 1, 1, True)
    >>> (folder / "results.sqlite").exists()
    False
    """
    from .executors import default_workers, make_executor

    say = out or (lambda _s: None)
    folder = Path(folder)
    if not folder.is_dir():
        raise ConfigError(f"{folder} is not a folder: make it and put the submissions in {folder}/bots/")
    cfg, note = load_config(folder)
    say(note)
    target = cfg.precision if precision is None else float(precision)
    budget = max_games or cfg.max_games
    entrants, rejected = collect_entrants(folder, cfg, loader)
    if len(entrants) < 2:
        raise ConfigError(_nothing_to_play(cfg, entrants, rejected))
    planned = plan(cfg, entrants, games)
    if not planned:
        raise ConfigError(_nothing_to_play(cfg, entrants, rejected))
    by_name = {b.name: b for b in entrants}
    rules_of = {(e.preset, e.rules_json): e.rules.to_dict() for e in cfg.presets}
    have: set[str] = set()
    if (folder / DB_NAME).exists():
        from .store import _reader, load_frames, read_lineups, read_meta

        db = folder / DB_NAME
        con = _reader(db)
        try:  # the run's seed check, read only: another seed's games are not this run's
            _, refusal = _seed_refusal(read_meta(con, db, "seed"), lambda: read_lineups(con, db), cfg, planned, db)
        finally:
            con.close()
        if refusal:
            raise ConfigError(refusal)
        have = set(load_frames(db, current_only=False)[0]["game_id"])
    model = _stored_model(folder, entrants) or CostModel()

    def task(m: Match, rotations: list[tuple[int, str]]) -> MatchTask:
        return MatchTask(rules=rules_of[(m.preset, m.rules)], preset=m.preset, rules_json=m.rules,
                         table_size=m.table_size, deal_key=m.deal_key, deal_seed=m.deal_seed,
                         deal_id=_deal_id(m, by_name), order_key=m.order_key,
                         lineup=tuple(by_name[b] for b in m.lineup), rotations=tuple(r for r, _ in rotations),
                         game_ids=tuple(g for _, g in rotations), limits=dict(cfg.limits), memory=cfg.memory)

    tasks = [task(m, [(r, g) for r, g in enumerate(ids) if g not in have]) for m, ids in planned]
    tasks = [t for t in tasks if t.rotations]
    kind = executor or cfg.executor
    n_workers = workers or cfg.workers or default_workers()
    chosen = _sample_of([((m.preset, m.rules, m.table_size), m.lineup) for m, _ in planned], model)
    bar_logs = tempfile.TemporaryDirectory(prefix="cabo-estimate-")  # the sample's logs: the folder is left as it was
    bars = _bar_sample(cfg, entrants, model, Path(bar_logs.name))
    sample: list[MatchTask] = []
    if chosen:  # a few games more where a group has fewer than SAMPLE_GAMES: one game alone is a noisy clock
        count: dict[Group, int] = {}
        for i in chosen:
            g = (planned[i][0].preset, planned[i][0].rules, planned[i][0].table_size)
            count[g] = count.get(g, 0) + 1
        for i, (m, _) in enumerate(planned):
            g = (m.preset, m.rules, m.table_size)
            if 0 < count.get(g, 0) < SAMPLE_GAMES and i not in chosen:
                chosen.append(i)
                count[g] += 1
        sample = [task(planned[i][0], [(0, planned[i][1][0])]) for i in chosen]
    if sample or bars:
        say(f"timing a sample of {len(sample) + len(bars)} games (one per match, each bot in each preset and table size"
            f"{', and each grading bot one on one' if bars else ''}; not stored) ...")
        rows: list[tuple[GameRow, list[SeatRow]]] = []
        started = time.perf_counter()
        with make_executor(kind, min(n_workers, len(sample) + len(bars)), scheduler or cfg.scheduler or None) as ex:
            for results in ex.run(run_match, sample + bars):
                rows.extend(results)
        say(f"sample played in {time.perf_counter() - started:.1f} s")
        stored_games, stored_seats = _timed_frames(folder, entrants)
        sampled_games, sampled_seats = _frames_of(rows)
        import pandas as pd

        model = CostModel.fit(pd.concat([stored_games, sampled_games], ignore_index=True),
                              pd.concat([stored_seats, sampled_seats], ignore_index=True))
    bar_logs.cleanup()
    est = _estimate(model, tasks, cfg, entrants, games, target, budget, n_workers, kind,
                    f"{model.games} timed game{'s' if model.games != 1 else ''}", folder)
    for line in est.lines():
        say(line)
    return est


def _bar_sample(cfg: TournamentConfig, entrants: Sequence[BotSpec], model: CostModel, logs: Path) -> list[MatchTask]:
    """Grading games that time each grading bot the store has no timing of (one not among the entrants): per graded
    preset, :data:`SAMPLE_GAMES` one-on-one games against the first file, as grading deals them (never stored)."""
    if not cfg.grading:
        return []
    from .grades import _bars, _task, graded_presets

    students = [b for b in entrants if b.kind == "file"]
    if not students:
        return []
    return [_task(cfg, entry, students[0], bar, deal, [(deal % 2, f"estimate-{bar.name}-{entry.preset}-{deal}")], logs)
            for bar in _bars(cfg) if not model.knows(bar.name)
            for entry in graded_presets(cfg) for deal in range(SAMPLE_GAMES)]


def _frames_of(rows: Sequence[tuple[GameRow, list[SeatRow]]]) -> "tuple[Any, Any]":
    """Games and seats frames (the columns a :class:`CostModel` reads) of games played but not stored."""
    import pandas as pd

    games = pd.DataFrame([dict(game_id=g.game_id, preset=g.preset, rules=g.rules, table_size=g.table_size,
                               seconds=g.seconds) for g, _ in rows],
                         columns=["game_id", "preset", "rules", "table_size", "seconds"])
    seats = pd.DataFrame([dict(game_id=g.game_id, preset=g.preset, rules=g.rules, table_size=g.table_size, bot=s.bot,
                               version=s.version, decisions=s.decisions, cpu_s=s.cpu_s) for g, ss in rows for s in ss],
                         columns=["game_id", "preset", "rules", "table_size", "bot", "version", "decisions", "cpu_s"])
    return games, seats


def _timed_frames(folder: Path, entrants: Sequence[BotSpec]) -> "tuple[Any, Any]":
    """The store's games and seats of these bots' current versions (empty frames without a store)."""
    if not (folder / DB_NAME).exists():
        return _frames_of([])
    from .store import load_frames

    games, seats = load_frames(folder / DB_NAME, current_only=False)
    current = {(b.name, b.version) for b in entrants}
    return games, seats[[(b, v) in current for b, v in zip(seats["bot"], seats["version"])]]


# ------------------------------------------------------------------ outputs


def format_leaderboard(board: Any) -> str:
    """The leaderboard as a plain-text table, one block per preset.

    >>> import pandas as pd
    >>> print(format_leaderboard(pd.DataFrame([
    ...     dict(bot="a", preset="rush", elo=1100.0, elo_low=1050.0, elo_high=1150.0, rank=1, rank_low=1, rank_high=2,
    ...          games=8, win_rate=0.625),
    ...     dict(bot="r", preset="rush", elo=200.0, elo_low=float("-inf"), elo_high=640.0, rank=3, rank_low=3, rank_high=3,
    ...          games=8, win_rate=0.0)])))
    preset  bot   Elo  95% interval  rank  games  win rate
    ------  ---  ----  ------------  ----  -----  --------
    rush    a    1100    1050..1150   1-2      8     62.5%
    rush    r     200     below 640     3      8      0.0%
    below / above X: an upper (lower) bound only; the bot almost never won (lost) against the others, so only rare upsets measure how far below (above) it is

    With the timing columns (:func:`~cabo_kit.results.timing.with_timing`, as :func:`~cabo_kit.outputs.write_outputs`
    adds them) it also shows each bot's CPU per decision (median and 95th percentile, ms) and its
    share of the preset's CPU ("unknown" for games stored before cabo-kit measured it).
    """
    from .timing import ms_text

    columns = getattr(board, "columns", ())
    head = ["preset", "bot", "Elo", "95% interval", "rank", "games", "win rate"]
    has_rank = "rank_low" in columns
    timed = "cpu_ms_median" in columns
    if timed:
        head += ["CPU ms/decision", "p95", "CPU share"]
    rows = [[str(r.preset), str(r.bot), f"{r.elo:.0f}", interval_text(r.elo_low, r.elo_high),
             rank_text(int(r.rank_low), int(r.rank_high)) if has_rank else "-", str(int(r.games)),
             f"{r.win_rate:.1%}" if r.win_rate == r.win_rate else "-"]
            + ([ms_text(r.cpu_ms_median), ms_text(r.cpu_ms_p95),
                "unknown" if r.cpu_share != r.cpu_share else f"{r.cpu_share:.1f}%"] if timed else [])
            for r in board.itertuples()]
    widths = [max(len(x[i]) for x in [head, *rows]) for i in range(len(head))]

    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    text = "\n".join([line(head), line(["-" * w for w in widths])] + [line(r) for r in rows])
    if any(r[3].startswith(("below", "above", "not")) for r in rows):
        text += ("\nbelow / above X: an upper (lower) bound only; the bot almost never won (lost) against the others, "
                 "so only rare upsets measure how far below (above) it is")
    return text


def anchor_notes(cfg: TournamentConfig, seats: Any) -> list[str]:
    """What to say when the configured anchor has no games in the store (or in some presets): the Elo there is
    centred on the field instead (:func:`~cabo_kit.results.ratings.fit_elo`).

    >>> import pandas as pd
    >>> cfg = TournamentConfig.from_dict({"anchor": "GreedyBot"}, "my-class/tournament.toml")
    >>> print(anchor_notes(cfg, pd.DataFrame({"preset": ["rush", "rush"], "bot": ["alice", "bob"]}))[0])
    note: anchor = 'GreedyBot' (my-class/tournament.toml) has no games in the store: the Elo is centred on the field (the mean of the two-sided bots is 1000); run `cabo-kit tournament run my-class` to play the anchor's games
    """
    if not cfg.anchor or not len(seats):
        return []
    presets = sorted(str(p) for p in seats["preset"].unique())
    missing = [p for p in presets if cfg.anchor not in set(seats.loc[seats["preset"] == p, "bot"])]
    if not missing:
        return []
    where = "" if len(missing) == len(presets) else f" in {', '.join(missing)}"
    return [f"note: anchor = {cfg.anchor!r} ({cfg.source}) has no games{where} in the store: the Elo{where} is centred "
            f"on the field (the mean of the two-sided bots is 1000); run `cabo-kit tournament run "
            f"{shlex.quote(str(Path(cfg.source).parent))}` to play the anchor's games"]


@contextmanager
def _written(path: Path) -> Iterator[None]:
    """Writing ``path``: a permission, read-only disk or full disk error becomes a FolderError naming it."""
    try:
        yield
    except OSError as exc:
        if exc.errno not in (errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT):
            raise
        raise FolderError(f"could not write {path.name}: " + cannot_write(exc.strerror or str(exc), path, path.parent)) from exc


def __getattr__(name: str) -> Any:
    # write_outputs moved to cabo_kit.outputs: it writes the report and the pages, which sit above the tournament.
    # Its old path here keeps working for notebooks and scripts, and loads the report only when asked for.
    if name == "write_outputs":
        from ..outputs import write_outputs

        return write_outputs
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
