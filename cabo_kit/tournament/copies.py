"""Copies found: which submitted files play move for move like a reference bot or like each other.

Every bot answers the same fixed **probe decisions**: seeded games of the folder's presets and
table sizes, in which seat 0 is played by a reference *driver* (GreedyBot, CountingBot or
RandomBot, in turn) and the other seats by reference opponents. The bot under test shadows
seat 0: it gets every call a bot at that seat gets in a real game (``on_game_start`` with the
seat's seeded ``random``, the round hooks, every ``choose``), its answers are written down, and
the driver's answers are played. So every bot sees exactly the same observations, and two bots
are compared decision by decision, with no game drifting apart. Submitted files answer in the
isolated runner (:class:`~cabo_kit.tournament.isolation.IsolatedBot`), never in this process;
the reference bots (trusted) answer in process.

Many decisions are alike for any sensible bot (pass in a snap window, look at the first cards,
give the highest known card): those are the defaults of :class:`cabo_kit.SimpleBot`, which most
learners' bots inherit. So two bots' **agreement** is counted on the decisions where at least one
of them departs from those defaults (agreeing on a default says nothing). Measured on the default
probes (3 presets, 4 players, 6 deals each: about 1,200 decisions), reference bots that share code
agree on at most about half of them (SearchBot, a subclass of CountingBot, with it: 46%;
GreedyBot and CountingBot 26%), small independent bots on 5-24%; a copy agrees on 100%, and
CountingBot with one method changed (never calls Cabo) on 86%. A pair is flagged at
:data:`THRESHOLD` (80%) or more over at least :data:`MIN_DECISIONS` such decisions: a renamed
copy, a copy with its comments and names changed, or a bot that changes one small part of another.

Answers are cached per file version (its hash) in ``DIR/copies.json``, with the flags of the
last check, which the teacher's page (teacher.html) shows; a rerun only probes new or changed files.

>>> THRESHOLD, MIN_DECISIONS
(0.8, 20)
>>> str(CopyFlag("alice", "CountingBot", True, 150, 150))
'alice.py plays like CountingBot (reference): 100% of 150 decisions'
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from ..actions import Action
from ..bot import Bot
from ..game import Game
from ..play import Stepper, bot_random
from ..rules import Rules
from ..results.copy_flags import COPIES_FILE, CopyFlag, _percent, load_flags  # noqa: F401 - also imported from here
from .config import TournamentConfig, load_config

__all__ = ["CopyFlag", "CopyCheck", "find_copies", "probe_answers", "agreement", "THRESHOLD", "MIN_DECISIONS",
           "REFERENCES", "COPIES_FILE", "load_flags", "probes"]

THRESHOLD = 0.8
"""Flag a pair that agrees on at least this share of the decisions it is compared on."""
MIN_DECISIONS = 20
"""Flag a pair only if it is compared on at least this many decisions (a bot that faults early is not judged)."""
DEALS = 6
"""Probe deals per preset and table size."""
REFERENCES = ("RandomBot", "GreedyBot", "CountingBot", "SearchBot")
"""The reference bots every file is compared with (the repository's ``bots/*.py`` are these classes)."""
BASELINE = "SimpleBot"
"""Whose answers count as the defaults: a decision where two bots both answer as it does is not counted."""
DRIVERS = ("GreedyBot", "CountingBot", "RandomBot")
"""Who plays seat 0 of the probe games, deal after deal (the shadowing bots only answer)."""
OPPONENTS = ("GreedyBot", "CountingBot", "RandomBot")
"""Seats 1, 2, ... of the probe games (cycled for larger tables)."""
PROBE_BUDGET_S = 60.0
"""Seconds a file may think over all its probe games; once they are spent it plays no further probe game
(a bot slower than about 50 ms a decision is judged on fewer games, and the check stays quick)."""
_FORMAT = 1

Answers = list[list["str | None"]]  # per probe game, per decision of seat 0: the action's text (None: no answer)


@dataclass
class CopyCheck:
    """The result of :func:`find_copies`: the flags, every pair's agreement, and what it cost."""

    flags: list[CopyFlag]
    pairs: list[CopyFlag]
    files: list[str]
    rejected: list[tuple[str, str]]
    probed: list[str] = field(default_factory=list)
    decisions: int = 0
    seconds: float = 0.0
    threshold: float = THRESHOLD
    answered: dict[str, int] = field(default_factory=dict)

    def summary(self) -> str:
        """The lines ``cabo-kit tournament copies`` prints."""
        lines = [str(f) for f in self.flags] or [f"No copies found among {len(self.files)} files "
                                                 f"(no pair agrees on {_percent(self.threshold)} or more)."]
        for name, k in sorted(self.answered.items()):
            if k < self.decisions / 2:
                line = (f"{name}.py answered only {k} of {self.decisions} probe decisions (too slow for the probe "
                        "budget, or it faulted): compared on those only")
                mine = [p for p in self.pairs if name in (p.a, p.b) and p.decisions and p.decisions < MIN_DECISIONS]
                best = max(mine, key=lambda p: (p.share, p.decisions), default=None)
                if best is not None and best.share >= self.threshold:
                    other = best.b if best.a == name else best.a
                    line += (f"; too few to judge, but it agrees with {other}{' (reference)' if best.reference else '.py'} "
                             f"on {best.agreed} of {best.decisions}")
                lines.append(line)
        lines += [f"skipped {name}.py: it does not load (see cabo-kit check-bot)" for name, _ in self.rejected]
        cached = len(self.files) - len(self.probed)
        lines.append(f"{len(self.files)} files, {self.decisions} probe decisions each; "
                     f"probed {len(self.probed)} now, {cached} from {COPIES_FILE}, in {self.seconds:.1f} s")
        return "\n".join(lines)


# ------------------------------------------------------------------ the probe games


@dataclass(frozen=True)
class Probe:
    """One probe game: the rules, the table size, the deal's seed and seat 0's driver."""

    rules: dict[str, Any]
    n: int
    seed: int
    driver: str


def probes(cfg: TournamentConfig, deals: int = DEALS) -> list[Probe]:
    """The probe games for a folder's settings: ``deals`` per preset and table size, seeded from ``cfg.seed``.

    >>> [(p.rules["name"], p.driver) for p in probes(TournamentConfig.from_dict({"presets": ["rush", "deluxe"]}), deals=2)]
    [('rush', 'GreedyBot'), ('deluxe', 'GreedyBot'), ('rush', 'CountingBot'), ('deluxe', 'CountingBot')]
    """
    out = []
    for d in range(deals):  # deal by deal, so that a slow file's first games cover every preset
        for i, entry in enumerate(cfg.presets):
            for n in cfg.table_sizes:
                seed = int(hashlib.sha256(f"cabo-kit:copies:{cfg.seed}:{i}:{n}:{d}".encode()).hexdigest()[:12], 16)
                out.append(Probe(entry.rules.to_dict(), n, seed, DRIVERS[d % len(DRIVERS)]))
    return out


class _Shadow(Bot):
    """Seat 0 of a probe game: the driver's answers are played; every shadowing bot is asked too."""

    def __init__(self, seed: int, driver: Bot, shadows: Sequence[Bot], live: Sequence[bool]) -> None:
        super().__init__()
        self.seed = seed
        self.driver = driver
        self.shadows = list(shadows)
        self.answers: list[list[str | None]] = [[] for _ in shadows]
        self.live = list(live)
        self.spent = [0.0] * len(shadows)

    def _each(self, call: Callable[[Bot], Any]) -> None:
        for i, bot in enumerate(self.shadows):
            if self.live[i]:
                try:
                    call(bot)
                except Exception:  # noqa: BLE001 - a faulting bot answers nothing more this game
                    self.live[i] = False

    def choose(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        for i, bot in enumerate(self.shadows):
            text = None
            if self.live[i]:
                t0 = time.perf_counter()
                try:
                    answer = bot.choose(observation, legal_actions)
                    text = str(Action.parse(answer) if isinstance(answer, str) else answer)
                except Exception:  # noqa: BLE001 - as above
                    self.live[i] = False
                self.spent[i] += time.perf_counter() - t0
            self.answers[i].append(text)
        return self.driver.choose(observation, legal_actions)

    def on_game_start(self, seat: int, n_players: int, rules: Any) -> None:
        for bot in (self.driver, *self.shadows):
            bot.random = bot_random(self.seed, seat)  # as a real game seeds that seat: copies of a random bot match
        self.driver.on_game_start(seat, n_players, rules)
        self._each(lambda b: b.on_game_start(seat, n_players, rules))

    def on_round_start(self, observation: Any) -> None:
        self.driver.on_round_start(observation)
        self._each(lambda b: b.on_round_start(observation))

    def on_round_end(self, result: Any) -> None:
        self.driver.on_round_end(result)
        self._each(lambda b: b.on_round_end(result))

    def on_game_end(self, totals: list[int], winners: list[int]) -> None:
        self.driver.on_game_end(totals, winners)
        self._each(lambda b: b.on_game_end(totals, winners))


def _builtin(name: str) -> Bot:
    from .. import bots
    from ..bot import SimpleBot

    bot: Bot = SimpleBot() if name == BASELINE else getattr(bots, name)()
    return bot


def probe_answers(shadows: Sequence[Bot], games: Sequence[Probe], memory: str = "engine") -> list[Answers]:
    """Every bot's answers to every probe game (one list per bot, per game, per decision of seat 0).

    >>> cfg = TournamentConfig.from_dict({"presets": ["rush"], "table_sizes": [2]})
    >>> import cabo_kit as ck
    >>> greedy, also_greedy = probe_answers([ck.bots.GreedyBot(), ck.bots.GreedyBot()], probes(cfg, deals=1))
    >>> greedy == also_greedy, len(greedy[0]) > 10
    (True, True)
    """
    out: list[Answers] = [[] for _ in shadows]
    spent = [0.0] * len(shadows)
    try:
        for probe in games:
            live = [t < PROBE_BUDGET_S for t in spent]
            for bot, ok in zip(shadows, live):
                prestart = getattr(bot, "prestart", None)
                if ok and prestart is not None:  # the isolated bots' fresh processes load side by side
                    try:
                        prestart()
                    except Exception:  # noqa: BLE001 - on_game_start starts it again and notes the fault
                        pass
            seat0 = _Shadow(probe.seed, _builtin(probe.driver), shadows, live)
            others = [_builtin(OPPONENTS[(s - 1) % len(OPPONENTS)]) for s in range(1, probe.n)]
            game = Game(Rules.from_dict(probe.rules), probe.seed, probe.n, memory=memory)
            Stepper(game, [seat0, *others], game_hooks=True).run()
            for i, answers in enumerate(seat0.answers):
                out[i].append(answers)
                spent[i] += seat0.spent[i]
    finally:
        for bot in shadows:
            close = getattr(bot, "close", None)
            if close is not None:
                close()
    return out


def _probe_files(task: tuple[list[tuple[str, str, str, str]], list[Probe], str, dict[str, Any]]) -> list[Answers]:
    """A worker's share: ``(name, path, version, class_name)`` of each file, run isolated."""
    from .isolation import IsolatedBot, Limits, Submission

    files, games, memory, limits = task
    bots = [IsolatedBot(Submission(name, version, Path(path), cls), Limits(**limits)) for name, path, version, cls in files]
    return probe_answers(bots, games, memory)


# ------------------------------------------------------------------ comparing


def agreement(a: Answers, b: Answers, baseline: Answers) -> tuple[int, int]:
    """``(agreed, compared)``: over the decisions both answered, leaving out those where both answered as ``baseline``.

    >>> agreement([["x", "y", "z", None]], [["x", "q", "z", "w"]], [["x", "y", "p", "r"]])
    (1, 2)
    """
    agreed = compared = 0
    for xs, ys, zs in zip(a, b, baseline):
        for x, y, z in zip(xs, ys, zs):
            if x is None or y is None or (x == y == z):
                continue
            compared += 1
            agreed += x == y
    return agreed, compared


# ------------------------------------------------------------------ the folder


def _fingerprint(cfg: TournamentConfig, games: Sequence[Probe]) -> str:
    """What the cached answers depend on: the probe games, the limits, and the code of the engine, the
    reference bots and the isolated runner."""
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256(json.dumps([_FORMAT, cfg.memory, cfg.make_limits().__dict__, [p.__dict__ for p in games]],
                                  sort_keys=True).encode())
    # the isolated runner (harness, wire) is part of what a file answers through
    runner = [root / "tournament" / "harness.py", root / "tournament" / "isolation.py"]
    for path in sorted([*root.glob("*.py"), *(root / "bots").glob("*.py"), *runner]):
        if path.name not in _NOT_PLAYING:
            h.update(path.name.encode() + path.read_bytes())
    return h.hexdigest()[:16]


_NOT_PLAYING = {"cli.py", "report.py", "render.py", "outputs.py", "pages.py"}  # kit modules that change no answer


def _read_cache(path: Path, key: str) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("probes") != key:
        return {}  # other probe games, another kit version: every answer is asked again
    return data


def find_copies(
    folder: str | Path,
    *,
    deals: int = DEALS,
    threshold: float = THRESHOLD,
    workers: int | None = None,
    out: Callable[[str], None] | None = None,
) -> CopyCheck:
    """Compare every file in ``folder/bots`` with the reference bots and with every other file; write
    ``folder/copies.json`` (answers per file version, and the flags) and return the result.

    ``deals`` probe games per preset and table size of the folder's ``tournament.toml``;
    ``threshold``: the share of compared decisions two bots must agree on to be flagged;
    ``workers``: processes that probe files side by side (default: the usable cores).

    >>> import pathlib, shutil, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> (folder / "bots").mkdir()
    >>> _ = (folder / "tournament.toml").write_text('presets = ["rush"]\\ntable_sizes = [3]\\n')
    >>> _ = (folder / "bots" / "mine.py").write_text("import cabo_kit as ck\\n"
    ...     "class Mine(ck.bots.GreedyBot):\\n    pass\\n")
    >>> check = find_copies(folder, deals=1, workers=1)   # one probe game: a quick look
    >>> [(p.b, p.percent) for p in check.pairs]
    [('RandomBot', '2%'), ('GreedyBot', '100%'), ('CountingBot', '21%'), ('SearchBot', '7%')]
    """
    from .runner import collect_entrants

    started = time.perf_counter()
    folder = Path(folder)
    cfg, _ = load_config(folder)
    games = probes(cfg, deals)
    key = _fingerprint(cfg, games)
    cache_path = folder / COPIES_FILE
    cache = _read_cache(cache_path, key)
    known: dict[str, Any] = dict(cache.get("files", {}))
    references: dict[str, Answers] = dict(cache.get("references", {}))

    limits = cfg.make_limits()
    entrants, refused = collect_entrants(folder, cfg)  # the tournament's own loading: same names, same clashes
    rejected = [(Path(file).stem, reason) for file, reason in refused]
    files = [(e.name, str(folder / "bots" / e.filename), e.version, e.class_name) for e in entrants if e.kind == "file"]

    say = out or (lambda _s: None)
    todo = [f for f in files if f[2] not in known]
    missing_refs = [r for r in (*REFERENCES, BASELINE) if r not in references]
    if missing_refs:
        references.update(zip(missing_refs, probe_answers([_builtin(r) for r in missing_refs], games, cfg.memory)))
    if todo:
        say(f"probing {len(todo)} file(s) on {len(games)} games...")
        for f, answers in zip(todo, _run_isolated(todo, games, cfg.memory, limits.__dict__, workers)):
            known[f[2]] = {"name": f[0], "answers": answers}

    baseline = references[BASELINE]
    total = sum(len(g) for g in baseline)
    pairs: list[CopyFlag] = []
    by_name = {name: known[version]["answers"] for name, _, version, _ in files}
    for name, answers in by_name.items():
        for ref in REFERENCES:
            pairs.append(CopyFlag(name, ref, True, *agreement(answers, references[ref], baseline)))
    for (a, x), (b, y) in itertools.combinations(by_name.items(), 2):
        pairs.append(CopyFlag(a, b, False, *agreement(x, y, baseline)))
    flags = _implied_left_out([p for p in pairs if p.decisions >= MIN_DECISIONS and p.share >= threshold])

    keep = {version for _, _, version, _ in files}
    data = {
        "format": _FORMAT, "probes": key, "threshold": threshold,
        "flags": [{"a": f.a, "b": f.b, "reference": f.reference, "agreed": f.agreed, "decisions": f.decisions} for f in flags],
        "checked": sorted(by_name), "decisions": total,
        "files": {v: known[v] for v in sorted(keep)}, "references": references,
    }
    tmp = cache_path.with_name(cache_path.name + ".tmp")
    tmp.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")
    os.replace(tmp, cache_path)
    return CopyCheck(flags, pairs, sorted(by_name), rejected, [f[0] for f in todo], total,
                     time.perf_counter() - started, threshold,
                     {name: sum(a is not None for game in answers for a in game) for name, answers in by_name.items()})


def _implied_left_out(flags: list[CopyFlag]) -> list[CopyFlag]:
    """The flags, best first, without "a plays like b" for two files both flagged with the same reference bot
    (eight copies of CountingBot make eight lines, not 36)."""
    like: dict[str, set[str]] = {}
    for f in flags:
        if f.reference:
            like.setdefault(f.a, set()).add(f.b)
    kept = [f for f in flags if f.reference or not (like.get(f.a, set()) & like.get(f.b, set()))]
    return sorted(kept, key=lambda p: (-p.share, p.a, p.b))


def _run_isolated(files: list[tuple[str, str, str, str]], games: list[Probe], memory: str, limits: dict[str, Any],
                  workers: int | None) -> list[Answers]:
    """The files' answers, probed in up to ``workers`` processes (each plays every probe game with its share)."""
    from .executors import default_workers

    n = max(1, min(workers or default_workers(), len(files)))
    if n == 1:
        return _probe_files((files, games, memory, limits))
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    shares = [files[i::n] for i in range(n)]
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    with ProcessPoolExecutor(n, mp_context=context) as pool:
        results = list(pool.map(_probe_files, [(share, games, memory, limits) for share in shares]))
    answers: list[Answers] = [[] for _ in files]  # back in the files' order
    for i, result in enumerate(results):
        for j, a in enumerate(result):
            answers[i + j * n] = a
    return answers
