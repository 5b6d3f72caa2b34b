"""The fair schedule: equal games, balanced opponents, all combinations when feasible, stable seeds."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import pytest

from cabo_kit.tournament.schedule import Match, deal_seed, games_per_bot, make_schedule, rotation

NAMES = [f"bot{i:02d}" for i in range(30)]


@pytest.mark.parametrize("n,k,games", [(2, 2, 10), (3, 2, 4), (5, 3, 9), (5, 4, 12), (7, 4, 30), (30, 4, 64), (11, 3, 20), (13, 5, 40)])
def test_every_bot_plays_the_same_number_of_games_and_at_least_the_asked_number(n: int, k: int, games: int) -> None:
    ms = make_schedule(NAMES[:n], "deluxe", "{}", k, games, seed=3)
    counts = games_per_bot(ms)
    assert set(counts) == set(NAMES[:n])
    assert len(set(counts.values())) == 1
    got = next(iter(counts.values()))
    assert games <= got < games + k * k * math.comb(n - 1, k - 1)
    for m in ms:
        assert len(m.lineup) == k == len(set(m.lineup)) == m.table_size


def test_all_combinations_when_feasible_each_the_same_number_of_times() -> None:
    ms = make_schedule(NAMES[:6], "rush", "{}", 3, games=60, seed=0)
    per_combo = Counter(tuple(sorted(m.lineup)) for m in ms)
    assert set(per_combo) == set(itertools.combinations(NAMES[:6], 3))
    assert set(per_combo.values()) == {2}  # 60 games = 20 matches/bot = 2 passes over its 10 combinations
    assert len({m.deal_seed for m in ms}) == len(ms)


def test_random_design_mixes_opponents_in_balance() -> None:
    ms = make_schedule(NAMES, "deluxe", "{}", 4, games=256, seed=1)  # 16 rounds: 30 x 29 x 28 x 27 / 24 tables is too many
    met: dict[str, Counter[str]] = {b: Counter() for b in NAMES}
    for m in ms:
        for a, b in itertools.permutations(m.lineup, 2):
            met[a][b] += 1
    for b in NAMES:
        assert sum(met[b].values()) == 64 * 3  # 64 matches, 3 opponents each
        assert len(met[b]) >= 20  # spread over most of the class, not a fixed group
    pairs = Counter(tuple(sorted(m.lineup)) for m in ms)
    assert max(pairs.values()) <= 2


def test_random_design_is_stable_when_a_bot_is_added() -> None:
    old = make_schedule(NAMES[:20], "traveller", "{}", 4, games=64, seed=5)
    new = make_schedule(NAMES[:20] + ["latecomer"], "traveller", "{}", 4, games=64, seed=5)
    old_set = set(old)
    kept = [m for m in new if m in old_set]  # same deal key, seed, lineup and seat order
    rounds = 64 // 16
    assert len(kept) >= len(old) - rounds * 3  # only the k-1 tables around the newcomer change per round
    assert all("latecomer" not in m.lineup for m in kept)
    assert sum("latecomer" in m.lineup for m in new) == rounds * 4


def test_full_design_keeps_every_old_match_when_a_bot_is_added() -> None:
    old = make_schedule(NAMES[:5], "rush", "{}", 2, games=24, seed=2)  # 3 passes either way
    new = make_schedule(NAMES[:6], "rush", "{}", 2, games=24, seed=2)
    assert set(old) <= set(new)


def test_schedule_is_deterministic_and_ignores_input_order() -> None:
    a = make_schedule(NAMES[:9], "deluxe", "{}", 4, 32, seed=7)
    b = make_schedule(list(reversed(NAMES[:9])), "deluxe", "{}", 4, 32, seed=7)
    assert a == b
    assert a != make_schedule(NAMES[:9], "deluxe", "{}", 4, 32, seed=8)


def test_deal_seeds_depend_on_seed_preset_rules_table_and_deal() -> None:
    base = deal_seed(0, "rush", "{}", 4, "r0:a")
    others = {deal_seed(1, "rush", "{}", 4, "r0:a"), deal_seed(0, "deluxe", "{}", 4, "r0:a"),
              deal_seed(0, "rush", '{"hand_size":6}', 4, "r0:a"), deal_seed(0, "rush", "{}", 3, "r0:a"),
              deal_seed(0, "rush", "{}", 4, "r1:a")}
    assert base not in others and len(others) == 5
    assert 0 <= base < 2**63


def test_rotations_give_every_bot_every_seat_of_a_deal() -> None:
    m = Match("rush", "{}", 4, "r0:a", 1, ("a", "b", "c", "d"), "0")
    seats = [m.seats(r) for r in range(4)]
    for s in range(4):
        assert sorted(row[s] for row in seats) == ["a", "b", "c", "d"]
    assert rotation(("a", "b"), 1) == ("b", "a")


def test_too_few_bots_for_the_table_gives_no_matches_and_duplicates_are_refused() -> None:
    assert make_schedule(["a", "b"], "deluxe", "{}", 4, 8, 0) == []
    with pytest.raises(ValueError, match="distinct"):
        make_schedule(["a", "a", "b"], "deluxe", "{}", 2, 8, 0)


def _ratings(n_field: int = 12, n_weak: int = 3, half: float = 80.0, games: int = 32) -> dict[str, tuple[float, float, int]]:
    r = {f"f{i:02d}": (900.0 + 20.0 * i, half, games) for i in range(n_field)}
    r.update({f"w{i}": (-400.0, float("nan"), games) for i in range(n_weak)})
    return r


def test_adaptive_batches_are_deterministic_and_skip_one_sided_bots() -> None:
    from cabo_kit.tournament.schedule import adaptive_matches

    r = _ratings()
    a = adaptive_matches(r, "rush", "{}", 4, seed=3, batch=2, target=50, max_games=1000)
    assert a == adaptive_matches(dict(reversed(list(r.items()))), "rush", "{}", 4, seed=3, batch=2, target=50, max_games=1000)
    assert a != adaptive_matches(r, "rush", "{}", 4, seed=3, batch=3, target=50, max_games=1000)
    assert all(len(set(m.lineup)) == 4 and not any(b.startswith("w") for b in m.lineup) for m in a)
    assert len({m.deal_key for m in a}) == len(a) and all(m.order_key.startswith("a00002:") for m in a)
    assert all(m.deal_seed == deal_seed(3, "rush", "{}", 4, m.deal_key) for m in a)
    # (80/50)^2 - 1 = 1.56 times its games, capped at doubling: every bot gets at least 32 more.
    counts = games_per_bot(a)
    assert min(counts.values()) >= 32 and sum(counts.values()) == 4 * 4 * len(a)  # 4 seats, 4 rotations


def test_adaptive_batches_stop_at_the_target_and_at_the_budget() -> None:
    from cabo_kit.tournament.schedule import adaptive_matches

    assert adaptive_matches(_ratings(half=49.0), "rush", "{}", 4, 0, 1, target=50, max_games=1000) == []
    assert adaptive_matches(_ratings(games=1000), "rush", "{}", 4, 0, 1, target=50, max_games=1000) == []
    near = adaptive_matches(_ratings(games=990), "rush", "{}", 4, 0, 1, target=50, max_games=1000)
    assert 0 < max(games_per_bot(near).values()) <= 16  # 10 games left each: about two matches, not 32 games


def test_adaptive_tables_favour_bots_of_similar_strength() -> None:
    from cabo_kit.tournament.schedule import adaptive_matches

    # One bot far above an even field of 11: a comparison with it tells little, so it is rarely drawn.
    r = {f"f{i:02d}": (1000.0, 80.0, 32) for i in range(11)}
    r["top"] = (1800.0, 40.0, 32)
    ms = adaptive_matches(r, "rush", "{}", 4, seed=1, batch=1, target=50, max_games=1000)
    assert games_per_bot(ms).get("top", 0) <= 8 < min(v for b, v in games_per_bot(ms).items() if b != "top")


def test_no_bot_is_seated_past_the_budget() -> None:
    from cabo_kit.tournament.schedule import adaptive_matches

    r = _ratings(n_field=5, n_weak=0, half=200.0, games=20)
    r["f00"] = (900.0, 200.0, 29)  # one match of 4 games would take it past 30
    ms = adaptive_matches(r, "rush", "{}", 4, 0, 1, target=50, max_games=30)
    counts = games_per_bot(ms)
    assert "f00" not in counts and ms and all(20 + n <= 30 for n in counts.values())


def test_a_slow_bot_is_drawn_less_and_plays_no_more_than_its_interval_needs() -> None:
    """Issue 18, must 2: a table's cost in time against what it teaches."""
    from cabo_kit.tournament.schedule import adaptive_matches

    r = {f"f{i:02d}": (1000.0 + 10.0 * i, 80.0, 32) for i in range(10)}
    r["slow"] = (1040.0, 40.0, 32)  # its own interval is fine: it wants no games
    equal = games_per_bot(adaptive_matches(r, "rush", "{}", 4, seed=2, batch=1, target=50, max_games=1000))
    assert equal.get("slow", 0) >= 16  # a good partner in strength: drawn often when time is free
    costly = adaptive_matches(r, "rush", "{}", 4, seed=2, batch=1, target=50, max_games=1000, costs={"slow": 10.0})
    assert "slow" not in games_per_bot(costly)
    # Wide itself, it gets what it lacks (a batch at most doubles its games), not more.
    r["slow"] = (1040.0, 80.0, 32)
    own = games_per_bot(adaptive_matches(r, "rush", "{}", 4, seed=2, batch=1, target=50, max_games=1000,
                                         costs={"slow": 10.0}))["slow"]
    assert 32 <= own <= 32 + 4
    # Equal costs give exactly the batch without costs.
    assert adaptive_matches(r, "rush", "{}", 4, 2, 1, 50, 1000, costs={b: 1.0 for b in r}) == \
        adaptive_matches(r, "rush", "{}", 4, 2, 1, 50, 1000)


def test_speed_classes_ignore_timing_noise() -> None:
    """CPU times differ from run to run; the classes the schedule sees must not (seeded jitter of +-40%)."""
    import random

    from cabo_kit.tournament.schedule import speed_classes

    base = {**{f"b{i}": 0.02 + 0.002 * i for i in range(12)}, "mc": 1.0, "slowish": 0.06}
    expected = {**{f"b{i}": 1.0 for i in range(12)}, "mc": 10.0, "slowish": 1.0}  # mc: about 30 times the median
    rng = random.Random(3)
    for _ in range(200):
        noisy = {b: c * rng.uniform(0.6, 1.4) for b, c in base.items()}
        assert speed_classes(noisy) == expected
    assert speed_classes({"a": float("nan"), "b": 0.0}) == {"a": 1.0, "b": 1.0}


def test_the_runner_s_speed_classes_come_from_the_seats_cpu_and_are_kept_in_the_store(tmp_path) -> None:
    """Issue 18, must 2 through the runner's part: the seats' ``cpu_s`` give a slow bot its class, which makes it a
    rare partner; the class is stored once per (preset, bot, version) and reused, so timing noise that would cross
    a boundary (here 10x -> 100x the median) does not change a later batch or a rerun."""
    import pandas as pd

    from cabo_kit.tournament.runner import SPEED_CLASSES, BotSpec, _speed_classes
    from cabo_kit.tournament.schedule import adaptive_matches
    from cabo_kit.tournament.store import Store

    names = [f"f{i:02d}" for i in range(10)] + ["slow"]
    by_name = {b: BotSpec(b, "v1", "file", "X") for b in names}

    def seats(slow_cpu: float) -> pd.DataFrame:  # CPU seconds per game: 3 games each
        return pd.DataFrame([{"bot": b, "cpu_s": (slow_cpu if b == "slow" else 0.004 + 0.0001 * i) * (1 + g / 10)}
                             for i, b in enumerate(names) for g in range(3)])

    with Store(tmp_path / "results.sqlite") as store:
        first = _speed_classes(seats(0.09), by_name, store, "rush")  # ~20 times the median: class 10
        assert first == {**{b: 1.0 for b in names[:-1]}, "slow": 10.0}
        assert _speed_classes(seats(0.9), by_name) == {**first, "slow": 100.0}  # recomputed it would change...
        assert _speed_classes(seats(0.9), by_name, store, "rush") == first    # ...the stored class is kept
        changed = {**by_name, "slow": BotSpec("slow", "v2", "file", "X")}   # a new version is classed anew
        assert _speed_classes(seats(0.9), changed, store, "rush")["slow"] == 100.0
        assert _speed_classes(seats(0.9), by_name, store, "deluxe")["slow"] == 100.0  # and per preset
        assert store.meta(SPEED_CLASSES) is not None
    with Store(tmp_path / "results.sqlite") as store:  # a rerun reads them back
        assert _speed_classes(seats(0.001), by_name, store, "rush") == first
    assert _speed_classes(seats(0.09).assign(cpu_s=float("nan")), by_name) == {}  # untimed (schema 1): equal costs
    # The classes as the adaptive batch takes them: the slow bot, whose own interval is fine, is not drawn.
    r = {b: (1000.0 + 10.0 * i, 80.0, 32) for i, b in enumerate(names[:-1])}
    r["slow"] = (1040.0, 40.0, 32)
    assert games_per_bot(adaptive_matches(r, "rush", "{}", 4, 2, 1, 50, 1000)).get("slow", 0) >= 16
    assert "slow" not in games_per_bot(adaptive_matches(r, "rush", "{}", 4, 2, 1, 50, 1000, costs=first))
