"""A round's bookkeeping: its stats dicts, the set-up look's positions, the score sheet's copies, the next start player."""
import cabo_kit as ck
from cabo_kit.actions import InitialPeek
from cabo_kit.game import Game, _ZERO_STATS
from cabo_kit.play import Stepper, bot_random


class Spoiler(ck.bots.RandomBot):
    """Scribbles over every RoundResult's stats it is handed (a user may)."""

    def on_round_end(self, result: ck.RoundResult) -> None:
        for d in result.stats:
            for key in d:
                d[key] += 1000


def _rounds(bots: list[ck.Bot], seed: int) -> list[list[dict[str, int]]]:
    game = Game(ck.Rules.preset("deluxe").replace(max_rounds=4), seed, 3)
    for s, b in enumerate(bots):
        b.random = bot_random(seed, s)
    Stepper(game, bots).run()
    return [r.stats for r in game.results]


def test_each_rounds_stats_are_its_own_dicts_a_user_may_change() -> None:
    clean = _rounds([ck.bots.RandomBot() for _ in range(3)], 7)
    spoilt = _rounds([Spoiler(), ck.bots.RandomBot(), ck.bots.RandomBot()], 7)
    assert len(clean) > 1
    # every round's counters start at zero: the hook scribbled over the rounds before, by +1000 each time
    assert [[{k: v % 1000 for k, v in d.items()} for d in r] for r in spoilt] == clean
    assert all(v < 1000 for d in clean[0] for v in d.values())
    dicts = [d for r in spoilt for d in r]
    assert len({id(d) for d in dicts}) == len(dicts)
    assert set(_ZERO_STATS.values()) == {0}


def test_a_set_up_look_given_as_a_list_is_logged_as_a_tuple() -> None:
    # (InitialPeek makes its positions a tuple: _look's own conversion is not reached this way)
    rules = ck.Rules.preset("deluxe").replace(peek_choice=True, initial_peeks=2)
    as_list, as_tuple = Game(rules, 1, 2), Game(rules, 1, 2)
    as_list.apply(InitialPeek([0, 1]), 0)  # type: ignore[arg-type]
    as_tuple.apply(InitialPeek((0, 1)), 0)
    assert as_list.log[-1] == as_tuple.log[-1]
    assert [type(e.target) for e in as_list.events_seen(None)][-1] is tuple


def test_the_sheet_keeps_its_own_copy_of_a_rounds_scores() -> None:
    sheet = ck.ScoreSheet(ck.Rules.preset("deluxe"), 2)
    scores = [3, 4]
    sheet.add_round(scores)
    scores[0] = 99
    assert sheet.rounds == [[3, 4]] and sheet.totals == [3, 4]


def test_the_next_start_player_for_any_previous_start_is_taken_round_the_table() -> None:
    rules = ck.Rules.preset("deluxe")
    for previous in range(-8, 9):
        assert ck.next_start_player(rules, [0, 5, 0, 5], previous) == (0 if previous % 4 in (2, 3) else 2)
