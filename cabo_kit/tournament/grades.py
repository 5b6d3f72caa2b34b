"""Grades against a bar the teacher picks: every submitted file, one on one, against each bot of ``grading``.

``grading = ["GreedyBot"]`` in ``tournament.toml`` grades each file of ``bots/`` (not the reference
bots) against GreedyBot in each preset that allows 2 players: **above**, **level** or **below**.

- **The match**: 2-player tables on duplicate deals, each deal played in both seat orders, so the
  cards and the seat favour neither. Every file gets the same deals (seeded from the tournament's
  ``seed``, the preset and the deal's number). The file runs isolated, exactly as in the
  tournament (:func:`~cabo_kit.tournament.runner.run_match`, the same executor and ``[limits]``).
- **The figure**: the file's *score share* ``p`` over the games read: 1 for a game it wins, 1/2 for a
  tie, 0 for a loss or a game it faults (a fault of the bar's bot would give the file 1). Its Elo
  difference to the bar is that same share's ``400 * log10(p / (1 - p))``, the interval's bounds
  likewise; a file that won (lost) every game has no finite figure and shows the interval's bound:
  ``> +288`` (``< -288``).
- **Enough games**: deals come in batches of :data:`BATCH_DEALS` (32 games); after each batch the
  95% interval of the share decides: entirely above 0.5 → *above*, entirely below → *below*. At
  :data:`MAX_GAMES` games without a decision the file is *level* with the bar. The interval is a
  normal interval over deals (a deal's two games together, as duplicate play pairs them), with
  one deal won and one lost added so that it is never of zero width, and it holds at 95% over
  *all* the looks at once (Bonferroni: each look uses 95% / number of possible looks), so looking
  after every batch does not make a level file "above" by chance more than 1 time in 20.
- **Overall** (per bar): *above* only when every graded preset says above, *below* only when every
  one says below, else *level*. Presets that need 3 or more players (traveller) are not graded.
- **Stored apart**: the games go to ``DIR/grades.sqlite`` (the same :class:`~cabo_kit.tournament.store.Store`),
  never into ``results.sqlite``, so no rating, leaderboard fit, fault list or copy check reads them.
  The decision after batch ``b`` reads batches ``1..b`` only: a killed run plays only what is
  missing, a rerun plays nothing, the same seed gives the same grades, and a changed file (a new
  version) is graded again from its own new games. The seed is part of each game's id and its
  deals: another seed's games in the store are never counted.

>>> [round(x, 3) for x in share_interval([1.0] * 16)]          # 16 deals won: clearly above
[0.944, 0.836, 1.0]
>>> decide([0.5] * 16, batch=8, cap=32).verdict                  # never apart from even: level at the cap
'level'
>>> Grade("ann", "GreedyBot", "rush", "above", 32, 0.75, 0.73, 0.61, 0.85, 0, 16).cell()
'above (+191 [+78, +301], 32 games)'
>>> Grade("ann", "GreedyBot", "rush", "above", 32, 1.0, 0.94, 0.84, 1.0, 0, 16).elo_text()   # won every game
'> +288'
"""

from __future__ import annotations

import csv
import hashlib
import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist
from typing import TYPE_CHECKING, Any, Callable, Sequence

from .config import PresetEntry, TournamentConfig, load_config

if TYPE_CHECKING:
    import pandas as pd

    from .runner import BotSpec, MatchTask

__all__ = ["Grade", "GradeRun", "Decision", "decide", "share_interval", "elo_of", "play_grades", "load_grades",
           "grading_todo", "grade_games", "EXPECTED_SHARE",
           "format_grades", "grade_columns", "graded_presets", "GRADES_DB", "GRADES_CSV", "BATCH_DEALS", "MAX_GAMES"]

GRADES_DB = "grades.sqlite"
EXPECTED_SHARE = 0.4
"""What an estimate expects an undecided grade to play, as a share of the cap: a class whose files' true
shares spread evenly over 0.2..0.8 needs 165 of 400 games a grade on average (simulated with :func:`decide`);
clear files stop after 32 to 64, level ones play all 400."""
GRADES_CSV = "grades.csv"
BATCH_DEALS = 16
"""Deals (of 2 games) played between two looks at the interval."""
MAX_GAMES = 400
"""Games per file, bar and preset after which an undecided file is level with the bar."""
LEVEL = 0.5
VERDICTS = ("above", "level", "below")


# ------------------------------------------------------------------ the statistics


def share_interval(deal_scores: Sequence[float], looks: int = 1) -> tuple[float, float, float]:
    """The centre and the 95% interval (simultaneous over ``looks`` looks) of a mean score share per deal.

    One deal won and one lost are added to the deals given: no interval is of zero width and no
    share is exactly 0 or 1. Bounds are clipped to [0, 1].

    >>> [round(x, 3) for x in share_interval([0.5, 0.5, 1.0, 0.0])]
    [0.5, 0.142, 0.858]
    >>> share_interval([1.0] * 16, looks=13)[1] < share_interval([1.0] * 16)[1]   # more looks, wider
    True
    """
    values = [*deal_scores, 0.0, 1.0]
    n = len(values)
    centre = sum(values) / n
    var = sum((v - centre) ** 2 for v in values) / (n - 1)
    z = NormalDist().inv_cdf(1 - 0.05 / (2 * max(1, looks)))
    half = z * math.sqrt(var / n)
    return centre, max(0.0, centre - half), min(1.0, centre + half)


def elo_of(share: float) -> float:
    """The Elo difference a score share means: ``400 * log10(p / (1 - p))`` (infinite at 0 and 1).

    >>> round(elo_of(0.64)), elo_of(0.5), elo_of(1.0)
    (100, 0.0, inf)
    """
    if share <= 0:
        return -math.inf
    if share >= 1:
        return math.inf
    return 400 * math.log10(share / (1 - share))


@dataclass(frozen=True)
class Decision:
    """What :func:`decide` found: the verdict (``""``: more deals needed), the deals it read, the deals it needs."""

    verdict: str
    deals: int
    needed: int
    looks: int


def decide(deal_scores: Sequence[float | None], batch: int | None = None, cap: int | None = None) -> Decision:
    """Read the deals batch by batch (``batch`` deals, at most ``cap`` games): the first batch whose interval
    excludes 0.5 decides; at the cap it is level. ``None`` marks a deal not fully played yet.

    >>> decide([1.0] * 8, batch=8, cap=64)
    Decision(verdict='above', deals=8, needed=8, looks=4)
    >>> decide([1.0] * 5 + [None], batch=8, cap=64)          # the first batch is not complete
    Decision(verdict='', deals=0, needed=8, looks=4)
    """
    batch = batch or BATCH_DEALS
    max_deals = max(1, (cap or MAX_GAMES) // 2)
    looks = math.ceil(max_deals / batch)
    read = 0
    while True:
        end = min(read + batch, max_deals)
        prefix = deal_scores[:end]
        if len(prefix) < end or any(s is None for s in prefix):
            return Decision("", read, end, looks)
        _, low, high = share_interval([float(s) for s in prefix if s is not None], looks)
        if low > LEVEL:
            return Decision("above", end, end, looks)
        if high < LEVEL:
            return Decision("below", end, end, looks)
        if end >= max_deals:
            return Decision("level", end, end, looks)
        read = end


@dataclass(frozen=True)
class Grade:
    """One file against one bar in one preset. ``verdict``: above, level, below, or ``""`` (not played yet);
    ``score``: the file's mean score share over ``games``; ``centre``, ``low``, ``high``: the interval that
    decided (see the module's docstring); ``faults``: games the file lost to its own fault."""

    bot: str
    bar: str
    preset: str
    verdict: str
    games: int
    score: float
    centre: float
    low: float
    high: float
    faults: int = 0
    deals: int = 0

    @property
    def elo(self) -> float:
        """The Elo difference of the score share shown (infinite for a share of 0 or 1)."""
        return elo_of(self.score)

    def share_text(self) -> str:
        """``0.62 [0.55, 0.69]``"""
        return f"{self.score:.2f} [{self.low:.2f}, {self.high:.2f}]" if self.games else "-"

    def elo_text(self) -> str:
        """``+85 [+40, +130]``: the Elo difference of the share shown, and of its interval's bounds. A file that won
        (lost) every game has no finite figure: ``> +288`` (``< -288``), the interval's lower (upper) bound.

        >>> Grade("rex", "GreedyBot", "rush", "below", 32, 0.0, 0.06, 0.0, 0.16).elo_text()
        '< -288'
        """
        if not self.games:
            return "-"
        if self.score >= 1:
            return f"> {_signed(elo_of(self.low))}"
        if self.score <= 0:
            return f"< {_signed(elo_of(self.high))}"
        return f"{_signed(self.elo)} [{_signed(elo_of(self.low))}, {_signed(elo_of(self.high))}]"

    def cell(self) -> str:
        """The leaderboard's cell: ``above (+85 [+40, +130], 64 games)``."""
        if not self.verdict:
            return f"not graded yet ({self.games} games)" if self.games else "not graded yet"
        return f"{self.verdict} ({self.elo_text()}, {self.games} games)"


def _signed(elo: float) -> str:
    return ("+inf" if elo > 0 else "-inf") if math.isinf(elo) else f"{elo:+.0f}"


def overall(verdicts: Sequence[str]) -> str:
    """Above (below) only when every preset says so; ``""`` while one is not graded yet; else level.

    >>> overall(["above", "above"]), overall(["above", "level"]), overall(["below", "below"]), overall(["above", ""])
    ('above', 'level', 'below', '')
    """
    if not verdicts or "" in verdicts:
        return ""
    if all(v == "above" for v in verdicts):
        return "above"
    if all(v == "below" for v in verdicts):
        return "below"
    return "level"


# ------------------------------------------------------------------ the games


def graded_presets(cfg: TournamentConfig) -> list[PresetEntry]:
    """The presets one-on-one grading plays: those that allow 2 players."""
    return [e for e in cfg.presets if e.rules.min_players <= 2]


def _label(entry: PresetEntry, cfg: TournamentConfig) -> str:
    """The preset's name, with its overrides when the tournament plays it twice."""
    twice = sum(e.preset == entry.preset for e in cfg.presets) > 1
    return f"{entry.preset} {entry.rules_json}" if twice else entry.preset


def _deal_seed(seed: int, entry: PresetEntry, deal: int) -> int:
    text = f"cabo-kit:grade:{seed}:{entry.preset}:{entry.rules_json}:{deal}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:6], "big")


def _ids(student: "BotSpec", bar: "BotSpec", entry: PresetEntry, deal: int, seed: int) -> list[str]:
    """The two games of a deal: rotation 0 seats the file at seat 0, rotation 1 at seat 1 (the seed is in the
    deal's key: a rerun with another seed plays its own deals and never counts this seed's)."""
    from .store import game_id

    pair = [(student.name, student.version), (bar.name, bar.version)]
    return [game_id(entry.preset, entry.rules_json, 2, f"grade:s{seed}:{deal}", rot, pair[rot:] + pair[:rot])
            for rot in (0, 1)]


Stored = dict[str, tuple[int, dict[int, tuple[str, float]]]]  # game id -> (deal seed, seat -> (status, win))


def _read(con: Any) -> Stored:
    out: Stored = {}
    for gid, seat, status, win, deal_seed in con.execute(
            "SELECT s.game_id, s.seat, s.status, s.win, g.deal_seed FROM seats s JOIN games g ON g.game_id = s.game_id"):
        out.setdefault(gid, (int(deal_seed), {}))[1][int(seat)] = (str(status), float(win))
    return out


def _found(stored: Stored, gid: str, seed: int) -> dict[int, tuple[str, float]] | None:
    """The stored game ``gid`` if it was dealt from ``seed`` (a deal seed of another tournament seed never counts)."""
    got = stored.get(gid)
    return got[1] if got is not None and got[0] == seed else None


def _share(seats: dict[int, tuple[str, float]], seat: int) -> tuple[float, bool]:
    """The file's score share in one game at ``seat``, and whether it faulted."""
    status, win = seats[seat]
    if status != "ok":
        return 0.0, True
    if any(s != "ok" for q, (s, _) in seats.items() if q != seat):
        return 1.0, False
    return win, False


def _grade(stored: Stored, student: "BotSpec", bar: "BotSpec", entry: PresetEntry, label: str,
           batch: int | None, cap: int | None, seed: int) -> tuple[Grade, Decision, int]:
    """The grade, its decision, and the games stored for it (whole batches or not)."""
    max_deals = max(1, (cap or MAX_GAMES) // 2)
    scores: list[float | None] = []
    faults: list[int] = []
    have = 0
    for deal in range(max_deals):
        ds = _deal_seed(seed, entry, deal)
        games = [_found(stored, gid, ds) for gid in _ids(student, bar, entry, deal, seed)]
        have += sum(g is not None for g in games)
        if any(g is None for g in games):
            scores.append(None)
            faults.append(0)
            continue
        shares = [_share(g, rot) for rot, g in enumerate(games) if g is not None]
        scores.append(sum(s for s, _ in shares) / 2)
        faults.append(sum(f for _, f in shares))
    d = decide(scores, batch, cap)
    read = [float(s) for s in scores[:d.deals] if s is not None]
    centre, low, high = share_interval(read, d.looks) if read else (math.nan, math.nan, math.nan)
    score = sum(read) / len(read) if read else math.nan
    return Grade(student.name, bar.name, label, d.verdict, 2 * len(read), score, centre, low, high,
                 sum(faults[:d.deals]), len(read)), d, have


def _bars(cfg: TournamentConfig) -> list["BotSpec"]:
    from .runner import _builtin_spec

    return [_builtin_spec(name) for name in cfg.grading]


State = list[tuple[Grade, Decision, "BotSpec", "BotSpec", PresetEntry, int]]  # ..., the games stored for it


def _grades(stored: Stored, cfg: TournamentConfig, students: Sequence["BotSpec"], batch: int | None = None,
            cap: int | None = None) -> State:
    out = []
    bars = _bars(cfg)
    for student in students:
        for bar in bars:
            for entry in graded_presets(cfg):
                g, d, have = _grade(stored, student, bar, entry, _label(entry, cfg), batch, cap, cfg.seed)
                out.append((g, d, student, bar, entry, have))
    return out


def _tasks(state: State, stored: Stored, cfg: TournamentConfig, logs: Path) -> list["MatchTask"]:
    """The games the open grades need for their next look (those not stored yet)."""
    tasks: list[MatchTask] = []
    for _, d, student, bar, entry, _ in state:
        if d.verdict:
            continue
        for deal in range(d.deals, d.needed):
            ds = _deal_seed(cfg.seed, entry, deal)
            ids = _ids(student, bar, entry, deal, cfg.seed)
            missing = [(rot, gid) for rot, gid in enumerate(ids) if _found(stored, gid, ds) is None]
            if missing:
                tasks.append(_task(cfg, entry, student, bar, deal, missing, logs))
    return tasks


@dataclass
class GradeRun:
    """What :func:`play_grades` did: the grades (file by file, bar by bar, preset by preset) and the games."""

    grades: list[Grade]
    students: list[tuple[str, str]]  # (bot name, file name)
    rejected: list[tuple[str, str]] = field(default_factory=list)  # (file, reason): no grade, a row that says so
    played: int = 0
    stored: int = 0
    seconds: float = 0.0
    csv_path: Path | None = None
    notes: list[str] = field(default_factory=list)


def play_grades(
    folder: str | Path,
    cfg: TournamentConfig | None = None,
    entrants: "Sequence[BotSpec] | None" = None,
    *,
    workers: int | None = None,
    executor: str | None = None,
    scheduler: str | None = None,
    progress: bool = False,
    out: Callable[[str], None] | None = print,
    batch: int | None = None,
    cap: int | None = None,
    command: str | None = None,
    rejected: Sequence[tuple[str, str]] = (),
    busy: Callable[[], int] | None = None,
) -> GradeRun:
    """Play the grading games still missing (holding the folder), then write ``DIR/grades.csv``.

    ``cfg`` and ``entrants`` default to the folder's (``tournament.toml`` and its loadable
    ``bots/*.py``; ``rejected``: the files that did not load, listed in the CSV without a grade);
    only submitted files are graded. ``batch`` (deals between looks) and ``cap``
    (games per file, bar and preset) default to :data:`BATCH_DEALS` and :data:`MAX_GAMES`; ``busy``: as
    :func:`~cabo_kit.tournament.runner.run_tournament`'s.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "tournament.toml").write_text('presets = ["rush"]\\ngrading = ["RandomBot"]\\n')
    >>> play_grades(folder, out=None).grades    # no bot files: nothing to grade
    []
    """
    from .executors import default_workers
    from .lock import FolderLock
    from .runner import TaskPlayer, collect_entrants
    from .store import Store

    say = out or (lambda _s: None)
    folder = Path(folder)
    started = time.perf_counter()
    if cfg is None:
        cfg, _ = load_config(folder)
    if not cfg.grading:
        return GradeRun([], [])
    if entrants is None:
        entrants, rejected = collect_entrants(folder, cfg)
    students = [b for b in entrants if b.kind == "file"]
    run = GradeRun([], [(b.name, b.filename or f"{b.name}.py") for b in students], list(rejected))
    if not students and not rejected:
        return run
    entries = graded_presets(cfg)
    skipped = [_label(e, cfg) for e in cfg.presets if e not in entries]
    if skipped:
        run.notes.append(f"grading: {', '.join(skipped)} not graded (one-on-one games need a preset for 2 players)")
    logs = folder / "logs" / "grades"
    with FolderLock(folder, "grading", command):
        for note in run.notes:
            say(note)
        logs.mkdir(parents=True, exist_ok=True)
        with Store(folder / GRADES_DB) as store, \
                TaskPlayer(store, executor or cfg.executor, workers or cfg.workers or default_workers(),
                           scheduler or cfg.scheduler or None, "grading", progress, busy) as player:
            stored = _read(store.con)
            first = True
            while True:
                state = _grades(stored, cfg, students, batch, cap)
                tasks = _tasks(state, stored, cfg, logs)
                if first:
                    run.stored = sum(have for *_, have in state)
                    _announce(say, cfg, students, entries, state, tasks, batch, cap)
                    first = False
                if not tasks:
                    break
                for row, seats, added in player.play(tasks):
                    run.played += added
                    stored[row.game_id] = (row.deal_seed, {s.seat: (s.status, float(s.win)) for s in seats})
        run.grades = [g for g, *_ in _grades(stored, cfg, students, batch, cap)]
        run.csv_path = write_grades_csv(folder, run.grades, run.students, cfg, run.rejected)
    run.seconds = time.perf_counter() - started
    tally = "; ".join(f"vs {b}: " + ", ".join(
        f"{sum(1 for s, _ in run.students if _overall(run.grades, s, b) == v)} {v}" for v in VERDICTS)
        for b in cfg.grading)
    no_grade = f", {len(run.rejected)} rejected files (no grade)" if run.rejected else ""
    say(f"grading: {run.played} games played ({run.seconds:.1f} s); overall {tally}{no_grade}; wrote {run.csv_path}")
    return run


def _task(cfg: TournamentConfig, entry: PresetEntry, student: "BotSpec", bar: "BotSpec", deal: int,
          missing: list[tuple[int, str]], logs: Path) -> "MatchTask":
    from .runner import MatchTask

    seed = _deal_seed(cfg.seed, entry, deal)
    deal_id = hashlib.sha256(f"grade:s{cfg.seed}:{entry.preset}:{entry.rules_json}:{deal}:{student.name}:"
                             f"{student.version}:{bar.name}:{bar.version}".encode()).hexdigest()[:24]
    return MatchTask(
        rules=entry.rules.to_dict(), preset=entry.preset, rules_json=entry.rules_json, table_size=2,
        deal_key=f"grade:s{cfg.seed}:{deal}", deal_seed=seed, deal_id=deal_id, order_key=f"grade:{student.name}:{bar.name}:{deal:05d}",
        lineup=(student, bar), rotations=tuple(r for r, _ in missing), game_ids=tuple(g for _, g in missing),
        limits=dict(cfg.limits), memory=cfg.memory, log_dir=str(logs.resolve()),
    )


def grade_games(have: int = 0, cap: int | None = None) -> tuple[int, int]:
    """The games an open grade (one file, bar and preset) is expected to still play, and at most, with ``have``
    games stored: :data:`EXPECTED_SHARE` of the cap (a prior: how strong a file is against the bar is not known
    before it plays) and the cap (``cap``, default :data:`MAX_GAMES`, in whole deals), each less what is stored.
    ``tournament run --estimate`` and ``check-bot --class`` both count grading with it.

    >>> grade_games(), grade_games(150), grade_games(390, cap=400)
    ((160, 400), (10, 250), (0, 10))
    """
    limit = 2 * max(1, (cap or MAX_GAMES) // 2)
    at_most = max(0, limit - have)
    return min(at_most, max(0, round(EXPECTED_SHARE * limit) - have)), at_most


def grading_todo(folder: str | Path, cfg: TournamentConfig, students: "Sequence[BotSpec]", batch: int | None = None,
                 cap: int | None = None) -> list[tuple[tuple[str, str, int], tuple[str, str], int, int]]:
    """What grading still has to play, for an estimate (nothing is played or written): per open grade, its group
    ``(preset, rules, 2)``, ``(file, bar)``, the games expected and the games at most.

    Expected: the games of its next look, or :func:`grade_games`'s expected figure if more; at most: the cap less
    the games stored for it.

    >>> import tempfile, pathlib
    >>> from cabo_kit.tournament.config import TournamentConfig
    >>> from cabo_kit.tournament.runner import BotSpec
    >>> cfg = TournamentConfig.from_dict({"presets": ["rush"], "grading": ["GreedyBot"]})
    >>> grading_todo(tempfile.mkdtemp(), cfg, [BotSpec("ann", "v1", "file", "AnnBot")])
    [(('rush', '{}', 2), ('ann', 'GreedyBot'), 160, 400)]
    """
    if not cfg.grading:
        return []
    files = [b for b in students if b.kind == "file"]
    path = Path(folder) / GRADES_DB
    stored: Stored = _stored(path) if path.exists() and files else {}
    out = []
    for g, d, student, bar, entry, have in _grades(stored, cfg, files, batch, cap):
        if d.verdict:
            continue
        expected, at_most = grade_games(have, cap)
        deals = range(d.deals, d.needed)
        look = sum(_found(stored, gid, _deal_seed(cfg.seed, entry, deal)) is None
                   for deal in deals for gid in _ids(student, bar, entry, deal, cfg.seed))
        expected = min(at_most, max(look, expected))
        out.append(((entry.preset, entry.rules_json, 2), (student.name, bar.name), expected, at_most))
    return out


def _announce(say: Callable[[str], None], cfg: TournamentConfig, students: Sequence["BotSpec"],
              entries: Sequence[PresetEntry], state: Sequence[Any], tasks: Sequence["MatchTask"],
              batch: int | None, cap: int | None) -> None:
    per_batch = 2 * (batch or BATCH_DEALS)
    limit = 2 * max(1, (cap or MAX_GAMES) // 2)
    open_ = sum(1 for _, d, *_ in state if not d.verdict)
    have = sum(n for *_, n in state)  # every game stored for these files' versions, whole batches or not
    at_most = sum(max(0, limit - n) for _, d, *_, n in state if not d.verdict)
    head = (f"grading {len(students)} files against {', '.join(cfg.grading)} one on one in "
            f"{', '.join(_label(e, cfg) for e in entries)} (duplicate deals, batches of {per_batch} games until the "
            f"95% interval decides, at most {limit} games per file, bar and preset)")
    if not open_:
        say(f"{head}: all {len(state)} grades already decided ({have} games stored), nothing to play")
        return
    say(f"{head}: {len(state) - open_} of {len(state)} grades already decided ({have} games stored); "
        f"{sum(len(t.rotations) for t in tasks)} games to play in the first round, at most {at_most} in all")


def _overall(grades: Sequence[Grade], bot: str, bar: str) -> str:
    return overall([g.verdict for g in grades if g.bot == bot and g.bar == bar])


# ------------------------------------------------------------------ reading and writing


def load_grades(folder: str | Path, students: "Sequence[BotSpec] | Sequence[tuple[str, str]]",
                cfg: TournamentConfig | None = None, batch: int | None = None, cap: int | None = None) -> list[Grade]:
    """The grades the stored games give (nothing is played); without ``grades.sqlite`` (grading has not begun),
    each one not graded yet.

    ``students``: bot specs, or ``(name, version)`` pairs (the versions the grades are for).

    >>> import tempfile
    >>> from cabo_kit.tournament.config import TournamentConfig
    >>> cfg = TournamentConfig.from_dict({"presets": ["rush"], "grading": ["GreedyBot"]})
    >>> [g.cell() for g in load_grades(tempfile.mkdtemp(), [("ann", "v1")], cfg)]
    ['not graded yet']
    """
    from .runner import BotSpec

    folder = Path(folder)
    if cfg is None:
        cfg, _ = load_config(folder)
    path = folder / GRADES_DB
    if not cfg.grading or not students:
        return []
    specs = [s if isinstance(s, BotSpec) else BotSpec(s[0], s[1], "file", "") for s in students]
    return [g for g, *_ in _grades(_stored(path) if path.exists() else {}, cfg, specs, batch, cap)]


def _stored(path: Path) -> Stored:
    """The games stored in ``grades.sqlite`` (read only; a damaged store raises the store's error naming it)."""
    from .store import _problems, _reader

    with _problems(path):
        con = _reader(path)
        try:
            return _read(con)
        finally:
            con.close()


def _columns(cfg: TournamentConfig) -> list[str]:
    cols = ["bot", "file"]
    for bar in cfg.grading:
        cols.append(f"vs_{bar}")
        for entry in graded_presets(cfg):
            p = _label(entry, cfg).replace(" ", "_")
            cols += [f"vs_{bar}_{p}", f"vs_{bar}_{p}_score", f"vs_{bar}_{p}_elo", f"vs_{bar}_{p}_games",
                     f"vs_{bar}_{p}_faults"]
    return cols


def write_grades_csv(folder: str | Path, grades: Sequence[Grade], students: Sequence[tuple[str, str]],
                     cfg: TournamentConfig, rejected: Sequence[tuple[str, str]] = ()) -> Path:
    """``DIR/grades.csv``: one row per file; per bar its overall grade, and per preset the grade, the score
    share with its interval, the Elo difference with its interval, the games and the games lost to the
    file's own faults. A file the tournament rejected gets a row that says ``rejected``.

    Every cell goes through :func:`~cabo_kit.tournament.csvsafe.safe_cell`: a file named ``=1+2.py`` and an
    Elo cell such as ``+85 [+40, +130]`` are written with a ``'`` in front, so a spreadsheet shows them as
    text and never runs them (counts such as ``32`` are numbers and stay as they are)."""
    from .csvsafe import safe_cell
    from .runner import _written

    path = Path(folder) / GRADES_CSV
    by = {(g.bot, g.bar, g.preset): g for g in grades}
    rows = []
    for name, file in students:
        row = [name, file]
        for bar in cfg.grading:
            row.append(_overall(grades, name, bar))
            for entry in graded_presets(cfg):
                g = by.get((name, bar, _label(entry, cfg)))
                row += ([g.verdict, g.share_text(), g.elo_text(), str(g.games), str(g.faults)] if g
                        else ["", "", "", "0", "0"])
        rows.append(row)
    for file, _ in rejected:
        rows.append([Path(file).stem, file] + ["rejected", *["rejected", "", "", "0", "0"] * len(graded_presets(cfg))]
                    * len(cfg.grading))
    rows.sort(key=lambda r: r[1])
    tmp = path.with_name(path.name + ".tmp")
    with _written(path):
        with open(tmp, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(_columns(cfg))
            w.writerows([safe_cell(c) for c in row] for row in rows)
        os.replace(tmp, path)
    return path


def format_grades(grades: Sequence[Grade]) -> str:
    """The grades as a plain-text table, one line per file, bar and preset, then each file's overall grade.

    >>> print(format_grades([Grade("ann", "GreedyBot", "rush", "above", 32, 0.75, 0.73, 0.61, 0.85)]))
    bot  vs         preset  grade  score share        Elo difference    games
    ---  ---------  ------  -----  -----------------  ----------------  -----
    ann  GreedyBot  rush    above  0.75 [0.61, 0.85]  +191 [+78, +301]     32
    overall (above or below only when every preset says so): ann above GreedyBot
    """
    head = ["bot", "vs", "preset", "grade", "score share", "Elo difference", "games"]
    rows = [[g.bot, g.bar, g.preset, g.verdict or "-", g.share_text(), g.elo_text(), str(g.games)] for g in grades]
    if not rows:
        return "no grades: no bot files, or grading is not set in tournament.toml"
    if any(g.faults for g in grades):  # games the file lost to its own faults (each a loss)
        head.append("faults")
        for row, g in zip(rows, grades):
            row.append(str(g.faults))
    widths = [max(len(x[i]) for x in [head, *rows]) for i in range(len(head))]

    def line(cells: list[str]) -> str:
        return "  ".join(c.rjust(w) if i >= 6 else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    pairs = list(dict.fromkeys((g.bot, g.bar) for g in grades))
    summary = "; ".join(f"{b} {_overall(grades, b, bar) or 'not graded yet'}"
                        f"{' with' if _overall(grades, b, bar) == 'level' else ''} {bar}" for b, bar in pairs)
    return "\n".join([line(head), line(["-" * w for w in widths]), *[line(r) for r in rows],
                      f"overall (above or below only when every preset says so): {summary}"])


def grade_columns(folder: str | Path, board: "pd.DataFrame", seats: "pd.DataFrame",
                  cfg: TournamentConfig | None = None) -> "pd.DataFrame":
    """The leaderboard with a column ``vs BAR`` per grading bot (the row's preset's grade of each file).

    The files' versions are those of the rated games (``seats``); the reference bots' cells are empty, and
    so are those of a preset not graded (for 3 or more players). Without ``grading``, or with a
    ``tournament.toml`` that does not load, the board is returned unchanged. ``cfg``: the folder's configuration
    if already loaded.
    """
    from .config import ConfigError

    folder = Path(folder)
    if cfg is None:
        try:
            cfg, _ = load_config(folder)
        except ConfigError:  # `tournament run` and `tournament grades` name the problem; the report shows the ratings
            return board
    if not cfg.grading or not len(board):
        return board
    files = seats[~seats["bot"].isin(cfg.reference)].drop_duplicates("bot")
    grades = load_grades(folder, list(zip(files["bot"], files["version"])), cfg)
    board = board.copy()
    for bar in cfg.grading:
        cells: dict[tuple[str, str], list[Grade]] = {}
        for entry in graded_presets(cfg):
            for g in grades:
                if g.bar == bar and g.preset == _label(entry, cfg):
                    cells.setdefault((g.bot, entry.preset), []).append(g)
        board[f"vs {bar}"] = [_cell(cells.get((str(b), str(p)), [])) for b, p in zip(board["bot"], board["preset"])]
    return board


def _cell(grades: Sequence[Grade]) -> str:
    if not grades:
        return ""
    if len(grades) == 1:
        return grades[0].cell()
    return overall([g.verdict for g in grades]) or "not graded yet"  # a preset played with two sets of overrides
