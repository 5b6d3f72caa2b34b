"""Measure one bot: its win rate against chosen opponents, with a 95% interval, and its faults.

``duel(bot, "GreedyBot", games=200)`` plays seeded games of the bot against the opponents
named (built-in bots or difficulty levels) and returns a :class:`DuelResult`. The games come
in duplicate deals: each deal is played once per seat rotation, so the bot holds every seat
of the same cards and neither the deal nor the seat favours anyone.

- A bot *file* (a path) is loaded and played isolated, exactly as a tournament plays it (its
  own process, the same limits); a :class:`~cabo_kit.Bot` class or instance runs in this
  process (trusted code: a notebook's bot), without time limits.
- **Win** means the bot's share of the game's win: 1 when it alone has the lowest final
  total, ``1/m`` when ``m`` players tie for it (the rules' tie-break by the last round
  applies first), 0 otherwise. An even bot at a table of ``k`` wins ``1/k``.
- A game in which the bot faults (raises, answers an illegal action, is too slow, or its
  process dies) stops there and counts as a loss (share 0).
- The interval is the Wilson score interval of the win share over the games played
  (:func:`wilson_interval`, pure Python, so no numpy is needed).

>>> import cabo_kit as ck
>>> result = duel(ck.bots.GreedyBot, "RandomBot", games=6, seed=1)
>>> result.games, result.table_size, result.faults
(6, 2, {})
>>> result.low <= result.rate <= result.high
True
"""

from __future__ import annotations

import copy
import hashlib
import html
import math
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from ..bot import Bot
from ..game import Game
from ..play import bot_random
from ..rules import Rules, RulesError
from .isolation import IsolatedBot, Limits, Submission, load_submission
from .runner import play_one  # the tournament's own game loop: seat notes, hook names, faults

__all__ = ["DuelError", "DuelResult", "duel", "duel_seed", "opponent_names", "resolve_opponent", "wilson_interval"]

Z95 = 1.959963984540054
"""The normal quantile of a two-sided 95% interval (as in outcomes.py, which needs numpy)."""

AUTO_PROGRESS_GAMES = 100
"""With ``progress=None``, runs of at least this many games show a progress bar."""


class DuelError(ValueError):
    """A duel that cannot be played as asked (unknown opponent, wrong table size, no such file)."""


def wilson_interval(wins: float, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``wins / games`` (``wins`` may be fractional: shared wins).

    The same numbers as :func:`cabo_kit.results.outcomes.wilson`, without numpy.

    >>> [round(x, 4) for x in wilson_interval(0, 10)]
    [0.0, 0.2775]
    >>> [round(x, 4) for x in wilson_interval(5, 10)]
    [0.2366, 0.7634]
    >>> wilson_interval(0, 0)
    (nan, nan)
    """
    if games <= 0:
        return math.nan, math.nan
    p = wins / games
    z2 = z * z
    centre = (p + z2 / (2 * games)) / (1 + z2 / games)
    half = z * math.sqrt(max(p * (1 - p), 0.0) / games + z2 / (4 * games * games)) / (1 + z2 / games)
    return max(centre - half, 0.0), min(centre + half, 1.0)


def duel_seed(seed: int, deal: int) -> int:
    """The game seed of deal ``deal`` of a duel run with ``seed`` (a stable 48-bit hash).

    >>> duel_seed(0, 1) == duel_seed(0, 1), duel_seed(0, 1) == duel_seed(1, 0)
    (True, False)
    """
    digest = hashlib.sha256(f"cabo-kit:duel:{seed}:{deal}".encode()).digest()
    return int.from_bytes(digest[:6], "big")


# ------------------------------------------------------------------ who plays


def _builtin_classes() -> dict[str, type[Bot]]:
    from .. import bots

    return {name.lower(): getattr(bots, name) for name in bots.__all__
            if isinstance(getattr(bots, name), type) and issubclass(getattr(bots, name), Bot)}


def opponent_names() -> str:
    """The opponents :func:`resolve_opponent` accepts, as a sentence for error messages.

    >>> opponent_names()
    'RandomBot, GreedyBot, CountingBot, SearchBot, or a level: 1 (easy), 2 (medium), 3 (tricky), 4 (hard)'
    """
    from ..bots import LEVELS

    names = ", ".join(cls.__name__ for cls in _builtin_classes().values())
    levels = ", ".join(f"{n} ({label})" for n, (label, _) in LEVELS.items())
    return f"{names}, or a level: {levels}"


def resolve_opponent(spec: Any) -> tuple[str, Callable[[], Bot]]:
    """An opponent's display name and a factory of fresh instances, from a bot name (any case), a level
    (``2``, ``"level2"``, ``"medium"``), a :class:`~cabo_kit.Bot` subclass or an instance.

    >>> resolve_opponent("greedybot")[0], resolve_opponent(3)[0], resolve_opponent("hard")[0]
    ('GreedyBot', 'CountingBot', 'SearchBot')
    >>> resolve_opponent("GreedBot")
    Traceback (most recent call last):
    ...
    cabo_kit.tournament.duel.DuelError: unknown opponent 'GreedBot' (did you mean GreedyBot?): choose RandomBot, GreedyBot, CountingBot, SearchBot, or a level: 1 (easy), 2 (medium), 3 (tricky), 4 (hard) (names in any case)
    """
    from ..bots import LEVELS

    if isinstance(spec, type) and issubclass(spec, Bot):
        return spec.__name__, spec
    if isinstance(spec, Bot):
        return spec.name or type(spec).__name__, lambda: copy.deepcopy(spec)
    if isinstance(spec, int) and not isinstance(spec, bool) and spec in LEVELS:
        cls = LEVELS[spec][1]
        return cls.__name__, cls
    if isinstance(spec, str):
        key = spec.strip().lower()
        level = re.fullmatch(r"(?:level)?\s*(\d+)", key)
        labels = {label: n for n, (label, _) in LEVELS.items()}
        if level and int(level.group(1)) in LEVELS:
            key = LEVELS[int(level.group(1))][1].__name__.lower()
        elif key in labels:
            key = LEVELS[labels[key]][1].__name__.lower()
        classes = _builtin_classes()
        if key in classes:
            return classes[key].__name__, classes[key]
        if key.endswith(".py"):
            raise DuelError(f"opponent {spec!r}: opponents are built-in bots ({opponent_names()}); to play two "
                            "bot files against each other, put both in a tournament folder's bots/")
    hint = ""
    if isinstance(spec, str):
        import difflib

        names = [cls.__name__ for cls in _builtin_classes().values()]
        close = difflib.get_close_matches(spec.strip().lower(), [n.lower() for n in names], n=1, cutoff=0.75)
        hint = next((f" (did you mean {n}?)" for n in names if close and n.lower() == close[0]), "")
    raise DuelError(f"unknown opponent {spec!r}{hint}: choose {opponent_names()} (names in any case)")


# ------------------------------------------------------------------ the result


@dataclass
class DuelResult:
    """What :func:`duel` measured. ``rate`` is the bot's mean win share, ``low``/``high`` its 95% interval;
    ``faults`` counts the games lost to each kind of fault, ``first_fault`` holds each kind's first example.
    ``asked`` is the number of games asked for: more than ``games`` when the run was interrupted."""

    bot: str
    opponents: tuple[str, ...]
    rules: Rules
    seed: int
    isolated: bool
    games: int = 0
    wins: float = 0.0
    asked: int = 0
    faults: dict[str, int] = field(default_factory=dict)
    first_fault: dict[str, str] = field(default_factory=dict)

    @property
    def table_size(self) -> int:
        return 1 + len(self.opponents)

    @property
    def even(self) -> float:
        """The win share of a bot exactly as strong as its opponents: ``1 / table_size``."""
        return 1.0 / self.table_size

    @property
    def rate(self) -> float:
        return self.wins / self.games if self.games else math.nan

    @property
    def low(self) -> float:
        return wilson_interval(self.wins, self.games)[0]

    @property
    def high(self) -> float:
        return wilson_interval(self.wins, self.games)[1]

    @property
    def faulted(self) -> int:
        """Games the bot lost to a fault."""
        return sum(self.faults.values())

    @property
    def verdict(self) -> str:
        """One sentence: better, weaker, or not yet told apart from an even match."""
        opp = " and ".join(dict.fromkeys(self.opponents))
        even = f"{self.even:.0%}" if self.table_size == 2 else f"{self.even:.1%}"
        if not self.games:
            return "no games played"
        if self.low > self.even:
            return f"{self.bot} beats {opp} here: the whole interval is above {even}."
        if self.high < self.even:
            return f"{self.bot} is weaker than {opp} here: the whole interval is below {even}."
        return (f"Not told apart from an even match yet: the interval contains {even}. More games narrow it "
                "(4 times the games halve it).")

    def short(self) -> str:
        """The rate and its interval in one line, for a table of results.

        >>> import cabo_kit as ck
        >>> duel(ck.bots.GreedyBot, "RandomBot", games=4).short()
        '100.0% (95% interval 51.0% to 100.0%, 4 games)'
        """
        faults = f", {self.faulted} lost to faults" if self.faults else ""
        return f"{self.rate:.1%} (95% interval {self.low:.1%} to {self.high:.1%}, {self.games} games{faults})"

    def lines(self) -> list[str]:
        k = self.table_size
        deals, extra = divmod(self.games, k)
        dealt = f"{deals} deal{'s' if deals != 1 else ''} x {k} seats" + (f" + {extra} games of one more deal" if extra else "")
        where = "its own process, as in a tournament" if self.isolated else "this process (no time limit)"
        changes = self.rules.differences()
        rules = self.rules.name + (" (" + ", ".join(f"{f}={v!r}" for f, v in changes.items()) + ")" if changes else "")
        head = (f"{self.bot} vs {', '.join(self.opponents)}: {rules}, {k} players, {self.games} games "
                f"({dealt}: the bot plays each deal from every seat), seed {self.seed}; played in {where}")
        if self.games < self.asked:
            head += f"\nInterrupted after {self.games} of the {self.asked} games asked for: the numbers are for those."
        if self.games == 0:
            return [head]
        wins = f"{self.wins:g}" if k == 2 else f"{self.wins:.4g}"
        share = "" if k == 2 else f": 1 a win, 1/m for a win tied between m players; an even player wins {self.even:.1%}"
        out = [head,
               f"win rate {self.rate:.1%} ({wins} wins in {self.games} games{share}), "
               f"95% interval {self.low:.1%} to {self.high:.1%}",
               self.verdict]
        if not self.faults:
            out.append("Faults: none.")
            return out
        kinds = ", ".join(f"{kind} {n}" for kind, n in self.faults.items())
        out.append(f"Faults: {self.faulted} of {self.games} games lost to a fault of the bot ({kinds}); "
                   f"each counts as a loss. First of each kind:")
        for kind, example in self.first_fault.items():
            body = example.rstrip().splitlines()
            if len(body) > 16:  # a long traceback: its end names the student's line
                body = body[:2] + ["  ..."] + body[-13:]
            out.append(f"- {kind}: " + "\n    ".join(body))
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines())

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(str(self))

    def _repr_html_(self) -> str:
        lines = self.lines()
        if len(lines) < 2:
            return f"<pre>{html.escape(lines[0])}</pre>"
        colour = "#1a7f37" if self.low > self.even else "#b42318" if self.high < self.even else "#555"
        rate = (f"<div style='font-size:1.3em'><b>{self.rate:.1%}</b> win rate "
                f"<span style='color:#555'>(95% interval {self.low:.1%} to {self.high:.1%})</span></div>")
        return (f"<div>{html.escape(lines[0])}</div>{rate}<div style='color:{colour}'>{html.escape(lines[2])}</div>"
                f"<pre>{html.escape(chr(10).join(lines[3:]))}</pre>")


# ------------------------------------------------------------------ playing


def _measured(bot: Any, limits: Limits) -> tuple[str, Callable[[], Bot], Submission | None]:
    """The measured bot's name, a factory, and its submission when it is a file."""
    if isinstance(bot, (str, Path)):
        text = str(bot)
        if not text.endswith(".py") and not Path(text).exists():
            try:
                name, make = resolve_opponent(text)  # a built-in bot measured against others, in this process
            except DuelError:
                raise DuelError(f"{text!r} is neither a bot file (.py) nor a built-in bot: give your bot's file, "
                                "e.g. my_bot.py") from None
            return name, make, None
        path = Path(text)
        if not path.is_file():
            raise DuelError(f"{path}: no such file; give the path of your bot file, e.g. bots/my_bot.py")
        sub = load_submission(path, limits)  # SubmissionError names why a tournament would reject it
        return sub.name, lambda: IsolatedBot(sub, limits), sub
    if isinstance(bot, type):
        if not issubclass(bot, Bot):
            raise TypeError(f"{bot!r} is not a cabo_kit.Bot subclass")
        return bot.__name__, bot, None
    if isinstance(bot, Bot):
        return bot.name or type(bot).__name__, lambda: copy.deepcopy(bot), None
    raise TypeError(f"duel() measures a bot file path, a Bot subclass or a Bot instance, not {bot!r}")


def duel(
    bot: "Bot | type[Bot] | str | Path",
    *opponents: Any,
    games: int = 200,
    rules: "Rules | str" = "deluxe",
    seed: int = 0,
    memory: str = "engine",
    limits: Limits | None = None,
    progress: bool | None = None,
) -> DuelResult:
    """Play ``games`` seeded games of ``bot`` against ``opponents`` and measure its win rate and faults.

    ``bot``: a bot file (played isolated, as in a tournament), a :class:`~cabo_kit.Bot` subclass or
    an instance (played in this process). ``opponents``: one per other seat, each a built-in bot
    name (any case), a level (1-4 or easy, medium, tricky, hard), or a Bot class; none means
    ``"GreedyBot"``, the first real bar (RandomBot is beaten by nearly anything). ``rules``: a
    preset name or a :class:`~cabo_kit.Rules`.

    Game ``i`` is deal ``i // k`` (``k`` players, seed :func:`duel_seed` ``(seed, i // k)``) in
    rotation ``i % k``: seat ``s`` holds line-up entry ``(s + i) % k``, the bot being entry 0.
    So over whole deals every player holds every seat of every deal once. Same arguments, same
    result. ``progress``: a progress bar (``None``: for runs of 100 games or more). Interrupted
    (Ctrl+C), it returns what the games played so far measured, and says so.

    >>> import cabo_kit as ck
    >>> print(duel(ck.bots.CountingBot, "GreedyBot", "randombot", games=3, rules="rush"))  # doctest: +ELLIPSIS
    CountingBot vs GreedyBot, RandomBot: rush, 3 players, 3 games (1 deal x 3 seats: ...), seed 0; ...
    win rate ...% (... wins in 3 games: 1 a win, 1/m for a win tied between m players; an even player wins 33.3%), 95% interval ...
    ...
    Faults: none.
    """
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise DuelError(f"games={games!r}: play at least 1 game (a whole number)")
    if isinstance(rules, str):
        rules = Rules.preset(rules)
    limits = limits or Limits()
    lineup = [resolve_opponent(o) for o in (opponents or ("GreedyBot",))]
    k = 1 + len(lineup)
    try:
        rules.check_players(k)
    except RulesError:
        raise DuelError(f"{rules.name} is for {rules.min_players} to {rules.max_players} players, but this duel "
                        f"seats {k} (your bot and {len(lineup)} opponent{'s' if len(lineup) > 1 else ''}): "
                        f"name {rules.min_players - 1} to {rules.max_players - 1} opponents") from None
    name, make, submission = _measured(bot, limits)
    result = DuelResult(name, tuple(n for n, _ in lineup), rules, seed, submission is not None, asked=games)
    show = games >= AUTO_PROGRESS_GAMES if progress is None else progress
    bar = None
    if show:
        from tqdm.auto import tqdm

        bar = tqdm(total=games, unit="game", desc=f"{name} vs {', '.join(result.opponents)}", leave=False,
                   file=sys.stderr)
    measured: Bot | None = None
    try:
        for i in range(games):
            deal, rot = divmod(i, k)
            game_seed = duel_seed(seed, deal)
            if measured is None:
                measured = make()
            order = [(s + rot) % k for s in range(k)]  # seat s holds entry order[s]; entry 0 is the bot
            seats: list[Bot] = [measured if e == 0 else lineup[e - 1][1]() for e in order]
            names = [name if e == 0 else lineup[e - 1][0] for e in order]
            bot_seat = order.index(0)
            _play(result, game_seed, seats, names, bot_seat, i, deal, memory)
            if not isinstance(measured, IsolatedBot):
                measured = None  # a fresh instance per game; an isolated bot starts a fresh process per game
            elif measured.fault is not None:
                measured.close()
            if bar is not None:
                bar.update()
    except KeyboardInterrupt:
        if not result.games:
            raise
        # Ctrl+C (or the notebook's stop button) keeps the games already played.
    finally:
        if isinstance(measured, IsolatedBot):
            measured.close()
        if bar is not None:
            bar.close()
    return result


def _play(result: DuelResult, game_seed: int, seats: list[Bot], names: list[str], bot_seat: int,
          index: int, deal: int, memory: str) -> None:
    """One game, played by the tournament's own loop (:func:`~cabo_kit.tournament.runner.play_one`): a fault of
    the measured bot loses the game and is counted, its reason naming the call that failed."""
    game = Game(result.rules, game_seed, len(seats), memory=memory)
    for s, b in enumerate(seats):
        b.random = bot_random(game_seed, s)
    fault_seat, kind, reason = play_one(game, seats, names)
    if fault_seat is not None and fault_seat != bot_seat:
        # an opponent is trusted code (a built-in bot, or your own class): its bug is not measured
        raise RuntimeError(f"the opponent {names[fault_seat]} (seat {fault_seat}) failed, so this duel stops: "
                           f"{reason}")
    if fault_seat is not None:
        result.games += 1
        result.faults[kind] = result.faults.get(kind, 0) + 1
        result.first_fault.setdefault(
            kind, f"game {index + 1} (deal {deal + 1}, seed {game_seed}, seat {bot_seat}): {reason}")
        return
    winners = list(game.sheet.winners)
    result.games += 1
    if bot_seat in winners:
        result.wins += 1.0 / len(winners)
