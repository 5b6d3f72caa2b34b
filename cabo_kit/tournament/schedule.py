"""The fair schedule: which bots meet on which deal, for one preset and one table size.

Every bot plays the same number of games against a balanced mix of opponents:

- **all combinations** of ``k`` bots (``k`` = table size), repeated as often as needed, when
  every bot's share of them fits in the games asked for;
- otherwise a **balanced random design** in rounds: each round puts the bots in an order
  drawn from the seed (each bot's place comes from a hash of its own name, so adding a bot
  leaves the others' order alone) and seats every run of ``k`` neighbours in that circle at
  one table. Each bot sits at exactly ``k`` tables a round; a late bot changes only the
  ``k - 1`` tables around its place in each round.

Each match (a deal and its bots) is played as a duplicate: the same deal once per seat
rotation, so every bot holds every seat of it. A deal's seed derives from the tournament
seed, the preset and its rules, the table size and the deal's key, so results repeat.

>>> ms = make_schedule(["a", "b", "c", "d", "e"], "rush", "{}", 4, games=12, seed=1)
>>> len(ms), sorted(games_per_bot(ms).values())
(5, [16, 16, 16, 16, 16])
>>> all(len(set(m.lineup)) == 4 for m in ms)
True
"""

from __future__ import annotations

import hashlib
import itertools
import math
import random
from collections import Counter
from dataclasses import dataclass
from typing import Mapping, Sequence

__all__ = [
    "Match", "make_schedule", "adaptive_matches", "deal_seed", "rotation", "games_per_bot", "MAX_COMBINATIONS",
    "speed_classes", "stored_deal_keys",
]

MAX_COMBINATIONS = 20_000
"""More distinct tables than this and the random design is used whatever the game count."""


@dataclass(frozen=True)
class Match:
    """One deal and the bots that play it (``lineup``: seat order of rotation 0)."""

    preset: str
    rules: str
    table_size: int
    deal_key: str
    deal_seed: int
    lineup: tuple[str, ...]
    order_key: str

    def seats(self, rot: int) -> tuple[str, ...]:
        """The bots by seat in rotation ``rot``."""
        return rotation(self.lineup, rot)


def rotation(lineup: Sequence[str], rot: int) -> tuple[str, ...]:
    """Seat ``s`` of rotation ``rot`` holds ``lineup[(s + rot) % k]``.

    >>> rotation(("a", "b", "c"), 1)
    ('b', 'c', 'a')
    """
    k = len(lineup)
    return tuple(lineup[(s + rot) % k] for s in range(k))


def _digest(*parts: object) -> bytes:
    return hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()


def deal_seed(seed: int, preset: str, rules: str, table_size: int, deal_key: str) -> int:
    """The game seed of a deal (a 63-bit integer).

    >>> deal_seed(0, "rush", "{}", 4, "r0:a") == deal_seed(0, "rush", "{}", 4, "r0:a")
    True
    >>> deal_seed(0, "rush", "{}", 4, "r0:a") != deal_seed(1, "rush", "{}", 4, "r0:a")
    True
    """
    return int.from_bytes(_digest("deal", seed, preset, rules, table_size, deal_key)[:8], "big") >> 1


def make_schedule(
    bots: Sequence[str], preset: str, rules: str, table_size: int, games: int, seed: int,
    max_combinations: int = MAX_COMBINATIONS,
) -> list[Match]:
    """The matches of one preset and table size, so that each bot plays at least ``games`` games.

    ``bots`` are distinct names (their order does not matter). Fewer bots than seats gives
    no matches. Each match is ``table_size`` games (one per rotation).

    >>> full = make_schedule(["a", "b", "c"], "deluxe", "{}", 2, games=4, seed=0)
    >>> sorted(tuple(sorted(m.lineup)) for m in full)
    [('a', 'b'), ('a', 'c'), ('b', 'c')]
    """
    names = sorted(set(bots))
    if len(names) != len(bots):
        raise ValueError(f"bot names must be distinct, got {list(bots)!r}")
    n, k = len(names), table_size
    if k < 2:
        raise ValueError(f"table_size must be at least 2, got {k}")
    if n < k or games < 1:
        return []
    per_bot = math.ceil(games / k)  # matches each bot must sit in
    share = math.comb(n - 1, k - 1)  # tables each bot is in, in one pass over all combinations
    matches: list[Match] = []
    if share <= per_bot and math.comb(n, k) <= max_combinations:
        for rep in range(math.ceil(per_bot / share)):
            for combo in itertools.combinations(names, k):
                lineup = tuple(sorted(combo, key=lambda b: _digest("seat", seed, preset, rules, k, rep, b)))
                key = f"c{rep}:{'+'.join(combo)}"
                matches.append(Match(preset, rules, k, key, deal_seed(seed, preset, rules, k, key), lineup,
                                     f"{rep:05d}:{'+'.join(combo)}"))
        return matches
    for rnd in range(math.ceil(per_bot / k)):
        circle = sorted(names, key=lambda b: _digest("circle", seed, preset, rules, k, rnd, b))
        for j, first in enumerate(circle):
            lineup = tuple(circle[(j + i) % n] for i in range(k))
            key = f"r{rnd}:{first}"
            matches.append(Match(preset, rules, k, key, deal_seed(seed, preset, rules, k, key), lineup,
                                 f"{rnd:05d}:{_digest('circle', seed, preset, rules, k, rnd, first).hex()[:16]}"))
    return matches


def stored_deal_keys(order_key: str, seats: Sequence[str]) -> list[str]:
    """The deal keys a stored game's ``order_key`` (as stored: the match's, then ``:rotation``) can stand for.

    ``seats``: the game's bots by seat. A rerun checks a stored game against the current seed with
    them: the game belongs to this tournament only if :func:`deal_seed` of one of these keys is its
    stored deal seed (a game of another seed, or of another kind of schedule, is not reused).

    >>> stored_deal_keys("a00003:00017:5e1f0a:2", ["x", "y", "z"])
    ['a3:17']
    >>> stored_deal_keys("00001:a+b+c:1", ["b", "c", "a"])        # all combinations, or a circle led by 'a'
    ['c1:a+b+c', 'r1:a']
    """
    parts = order_key.split(":")
    if len(parts) < 3 or not parts[-1].isdigit() or not seats:
        return []
    rot = int(parts[-1])
    if parts[0].startswith("a") and parts[0][1:].isdigit() and parts[1].isdigit():
        return [f"a{int(parts[0][1:])}:{int(parts[1])}"]
    if not parts[0].isdigit():
        return []
    rnd, middle = int(parts[0]), ":".join(parts[1:-1])
    return [f"c{rnd}:{middle}", f"r{rnd}:{seats[(-rot) % len(seats)]}"]


def speed_classes(costs: Mapping[str, float], step: float = 10.0) -> dict[str, float]:
    """Each bot's cost class: 1 for a bot within ``step`` times the median bot's cost, ``step`` for one
    ``step`` to ``step**2`` times as costly, ``step**2`` beyond that, and so on.

    ``costs``: a cost per game in any unit (the runner gives each bot's median CPU seconds per
    game); a missing, NaN or non-positive cost is class 1. Why classes and not the costs: CPU times
    differ from run to run, and a schedule planned from raw times would differ with them, so the same
    seed would no longer give the same games. Coarse classes move only when a bot's speed moves by a
    factor of ``step`` around a class boundary, so the schedule can differ between two runs of the
    same files only when a bot sits right at a boundary (about ten times slower than the median).

    >>> speed_classes({"a": 0.02, "b": 0.03, "c": 0.025, "slow": 0.9, "glacial": 40.0})
    {'a': 1.0, 'b': 1.0, 'c': 1.0, 'slow': 10.0, 'glacial': 1000.0}
    """
    good = sorted(c for c in costs.values() if c == c and c > 0)
    if not good:
        return {b: 1.0 for b in costs}
    mid = good[len(good) // 2] if len(good) % 2 else (good[len(good) // 2 - 1] + good[len(good) // 2]) / 2
    out = {}
    for b, c in costs.items():
        ratio = c / mid if c == c and c > 0 else 1.0
        out[b] = step ** math.floor(math.log(ratio, step) + 1e-9) if ratio >= step else 1.0
    return out


def _information(gap: float) -> float:
    """``p (1 - p)`` for a win probability ``p`` of an Elo ``gap``: what one comparison tells about the gap."""
    p = 1.0 / (1.0 + 10.0 ** (-gap / 400.0))
    return p * (1.0 - p)


def _draw(rng: random.Random, pool: list[str], weights: list[float], count: int) -> list[str]:
    """``count`` distinct names from ``pool``, each draw in proportion to its weight (seeded, no numpy)."""
    pool, weights, out = list(pool), [max(w, 1e-12) for w in weights], []
    for _ in range(count):
        x = rng.random() * sum(weights)
        i = 0
        while i < len(pool) - 1 and x >= weights[i]:
            x -= weights[i]
            i += 1
        out.append(pool.pop(i))
        weights.pop(i)
    return out


def games_per_bot(matches: Sequence[Match]) -> dict[str, int]:
    """How many games each bot plays in ``matches`` (a match is one game per rotation)."""
    count: Counter[str] = Counter()
    for m in matches:
        for b in m.lineup:
            count[b] += m.table_size
    return dict(count)


def adaptive_matches(
    ratings: Mapping[str, tuple[float, float, int]], preset: str, rules: str, table_size: int, seed: int, batch: int,
    target: float, max_games: int, share: float = 1.0, costs: Mapping[str, float] | None = None,
) -> list[Match]:
    """The next batch of an adaptive schedule: tables of similar strength for the bots whose intervals are too wide.

    ``ratings``: ``bot -> (elo, half-width, games)`` from the leaderboard so far (a one-sided or
    missing interval has a NaN half-width and never asks for games). A bot whose half-width is
    over ``target`` wants the games that the ``1/sqrt(games)`` law says it lacks, at least one
    match and at most as many again as it has (a batch at most doubles it), never past
    ``max_games``; ``share`` scales that when several table sizes or rule variants share the
    preset's ratings. Then, while some bot still wants games, the one that wants most is seated
    with ``table_size - 1`` others drawn from a seeded stream in proportion to what a comparison
    with each tells, ``p (1 - p)`` for the win probability ``p`` the ratings give: bots of similar
    strength are likely, a bot 700 Elo away almost never (two-sided bots only, while there are
    enough; no bot is seated past ``max_games``). Drawing rather than taking the nearest keeps the tables mixed: seating
    only neighbours by estimate groups the bots that the seeding games happened to overrate,
    measures their common error by the few games across groups, and in simulated classes the
    intervals then covered the truth in only 72% of cases. Each bot at the table counts the match's
    ``table_size`` games (its rotations) against what it wants. The result depends only on the
    arguments: the same ratings give the same batch, which makes a run deterministic and
    resumable. An empty list: nobody needs more games.

    ``costs`` weighs what a game costs in time against what it teaches: ``bot -> cost class``
    (:func:`speed_classes`; missing: 1). A partner's draw weight is ``p (1 - p) / cost``, so a bot
    ten times slower than the class is drawn a tenth as often for the same information, and a bot
    of cost above 1 is seated as a partner only while it still wants games itself (unless the
    table cannot be filled otherwise): a slow bot plays what its own interval needs, not more. With
    every cost 1 (the default) the batch is exactly the one without costs.

    >>> r = {"a": (1100.0, 80.0, 32), "b": (1050.0, 40.0, 32), "c": (950.0, 45.0, 32), "d": (900.0, 70.0, 32),
    ...      "z": (200.0, float("nan"), 32)}
    >>> ms = adaptive_matches(r, "rush", "{}", 4, seed=1, batch=1, target=50, max_games=1000)
    >>> len(ms), sorted(games_per_bot(ms).items())[:2]
    (8, [('a', 32), ('b', 32)])
    >>> all("z" not in m.lineup for m in ms), ms[0].deal_key
    (True, 'a1:0')
    >>> adaptive_matches(r, "rush", "{}", 4, seed=1, batch=1, target=90, max_games=1000)
    []
    """
    k = table_size
    names = sorted(ratings)
    if len(names) < k:
        return []
    want: dict[str, float] = {}
    for b in names:
        elo, half, games = ratings[b]
        if not (half == half) or half <= target or games >= max_games:
            continue
        lacking = games * ((half / target) ** 2 - 1.0) * share
        want[b] = min(max(lacking, k), max(games * share, k), max_games - games)
    matches: list[Match] = []
    if not want:
        return matches
    rng = random.Random(int.from_bytes(_digest("adaptive", seed, preset, rules, k, batch)[:8], "big"))
    elo_of = {b: ratings[b][0] for b in names}
    two_sided = {b for b in names if ratings[b][1] == ratings[b][1]}
    planned = {b: ratings[b][2] for b in names}
    cost = {b: max(float((costs or {}).get(b, 1.0)), 1.0) for b in names}
    while want:
        first = max(sorted(want), key=lambda b: want[b])
        # No bot goes past the budget; one-sided bots sit in only where a table cannot be filled without them.
        room = [b for b in names if b != first and planned[b] + k <= max_games]
        pool = [b for b in room if b in two_sided]
        if len(pool) < k - 1:
            pool = room
        if len(pool) < k - 1 or planned[first] + k > max_games:
            del want[first]
            continue
        # A slow bot sits in only while it wants games itself, unless the table cannot be filled without it.
        cheap = [b for b in pool if cost[b] <= 1.0 or b in want]
        if len(cheap) >= k - 1:
            pool = cheap
        partners = _draw(rng, pool, [_information(elo_of[b] - elo_of[first]) / cost[b] for b in pool], k - 1)
        lineup = [first, *partners]
        rng.shuffle(lineup)
        j = len(matches)
        key = f"a{batch}:{j}"
        matches.append(Match(preset, rules, k, key, deal_seed(seed, preset, rules, k, key), tuple(lineup),
                             f"a{batch:05d}:{j:05d}"))
        for b in lineup:
            planned[b] += k
            if b in want:
                want[b] -= k
                if want[b] <= 0:
                    del want[b]
    return matches
