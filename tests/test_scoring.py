"""Scoring: round scores, the scorepad and the next start player (RULES.md §2 table, §6, rule T)."""

from __future__ import annotations

from typing import Sequence

import pytest

from cabo_kit import Card, Rules, ScoreSheet, ScoreSheetError, next_start_player, round_details, score_round

from rulecase import layout, run


def H(*hands: str) -> list[list[Card]]:
    """Hands from texts: H("1 2", "5 5") or H("KS KC QD QH", "5S")."""
    return [[Card.parse(c) for c in h.split()] for h in hands]


# ---------------------------------------------------------------- §6 steps 3-4: caller win/loss per preset

CALLER_TABLE = [
    # preset, hands, caller, ended_by, scores                       rule
    ("deluxe", ("1 2", "5 5", "0 13"), 0, "cabo", [0, 10, 13]),      # caller wins: 0
    ("deluxe", ("1 2", "5 5", "0 13"), 1, "cabo", [3, 20, 13]),      # caller beaten: total + 10
    ("deluxe", ("1 2", "3 0", "9"), 0, "cabo", [0, 3, 9]),           # tie goes to the caller
    ("deluxe", ("1 2", "3 0", "9"), 1, "cabo", [3, 0, 9]),           # tie goes to the caller (other seat)
    ("deluxe", ("1 2", "5 5"), None, "deck", [3, 10]),               # no caller: everybody their total
    ("rush", ("AS 2S", "5H 5D", "KH KS"), 0, "cabo", [-3, 10, 13]),  # caller wins: -3
    ("rush", ("AS 2S", "5H 5D", "KH KS"), 1, "cabo", [3, 15, 13]),   # caller beaten: total + 5
    ("rush", ("AS 2S", "3H KD"), 1, "cabo", [3, -3]),                # tie -> caller; red king counts 0
    ("rush", ("AS 2S", "3H KD"), 1, "empty_hand", [3, -3]),          # rush keeps the bonus on an empty hand
    ("traveller", ("AS 2S", "5H 5D", "9C"), 0, "cabo", [-2, 10, 9]),  # caller wins: total - 5
    ("traveller", ("AS 2S", "5H 5D", "9C"), 1, "cabo", [3, 10, 9]),   # caller beaten: total
    ("traveller", ("AS 2S", "3H", "9C"), 1, "cabo", [3, -2, 9]),      # tie -> caller
    ("traveller", ("JOKER AS", "5H", "9C"), 0, "cabo", [-5, 5, 9]),   # joker -1
    ("traveller", ("AS 2S", "5H 5D", "9C"), 0, "empty_hand", [3, 10, 9]),  # no bonus when ended by empty hand
    ("traveller", ("AS 2S", "5H 5D", "9C"), 0, "turn_limit", [-2, 10, 9]),
]


@pytest.mark.parametrize("preset, hands, caller, ended_by, scores", CALLER_TABLE)
def test_caller_scoring(preset: str, hands: tuple[str, ...], caller: int | None, ended_by: str, scores: list[int]) -> None:
    assert score_round(Rules.preset(preset), H(*hands), caller, ended_by) == scores
    details = round_details(Rules.preset(preset), H(*hands), caller, ended_by)
    assert list(details.scores) == scores
    assert details.totals == tuple(sum(c.value for c in h) for h in H(*hands))  # type: ignore[misc]


@pytest.mark.parametrize("preset", ["deluxe", "rush", "traveller"])
def test_tie_goes_to_caller_unless_the_option_is_off(preset: str) -> None:
    hands = H("5", "5") if preset == "deluxe" else H("5S", "5H")
    assert round_details(Rules.preset(preset), hands, 0, "cabo").caller_won is True
    assert round_details(Rules.preset(preset, ties_to_caller=False), hands, 0, "cabo").caller_won is False
    assert round_details(Rules.preset(preset), hands, None, "cabo").caller_won is None


# ---------------------------------------------------------------- §6 step 2: Kamikaze (deluxe)

@pytest.mark.parametrize(
    "hands, caller, scores, kamikaze",
    [
        (("12 12 13 13", "1 0", "3"), None, [0, 50, 50], (0,)),
        (("12 12 13 13", "1 0", "3"), 1, [0, 50, 50], (0,)),      # the caller too scores 50
        (("12 13 12 13", "1 0", "3"), 0, [0, 50, 50], (0,)),      # order does not matter; caller holder 0
        (("12 12 13 13", "1", "13 12 13 12", "5", "6", "7"), 4, [0, 50, 0, 50, 50, 50], (0, 2)),  # two decks, two hands
        (("12 12 13 13 0", "1 0"), None, [50, 1], ()),            # exactly four cards, else just the total
        (("12 12 13", "1 0"), 1, [37, 0], ()),
        (("12 12 13 11", "1 0"), 1, [48, 0], ()),
    ],
)
def test_kamikaze(hands: tuple[str, ...], caller: int | None, scores: list[int], kamikaze: tuple[int, ...]) -> None:
    details = round_details(Rules.preset("deluxe"), H(*hands), caller, "cabo")
    assert list(details.scores) == scores
    assert details.kamikaze == kamikaze


@pytest.mark.parametrize("preset", ["rush", "traveller"])
def test_no_kamikaze_outside_deluxe(preset: str) -> None:
    hands = H("QS QH KS KD", "AS")   # red king: not a Royal Roulette either
    assert score_round(Rules.preset(preset), hands, None, "cabo") == [37, 1]


# ---------------------------------------------------------------- §6 step 2: Royal Roulette (traveller)

@pytest.mark.parametrize(
    "hands, caller, scores, roulette, caller_won",
    [
        (("KS KC QD QH", "5S"), None, [-50, 5], (0,), None),
        (("KS KC QD QH", "5S"), 1, [-50, 0], (0,), True),         # caller 5 < 50: wins, total - 5
        (("KS KC QD QH", "5S"), 0, [-50, 5], (0,), False),        # holder called and is beaten: still -50
        (("KS KC QD QH", "JS QC JH JD 9D"), 0, [-50, 54], (0,), True),   # holder called and won: -50, not 45
        (("QS KC KS QC", "9S 9H 9D 9C 10S 5H"), 1, [-50, 51], (0,), False),  # caller 51 > 50: beaten (+0 in traveller)
        (("KS KC QD QH", "9S 9H 9D 9C 10S 4H"), 1, [-50, 45], (0,), True),   # caller 50 ties 50: wins
        (("KS KH QD QH", "5S"), None, [37, 5], (), None),         # a red king is not a black king
        (("KS KC QD JH", "5S"), None, [49, 5], (), None),
        (("KS KC QD QH 2S", "5S"), None, [52, 5], (), None),      # exactly four cards
    ],
)
def test_royal_roulette(hands: tuple[str, ...], caller: int | None, scores: list[int], roulette: tuple[int, ...],
                        caller_won: bool | None) -> None:
    details = round_details(Rules.preset("traveller"), H(*hands), caller, "cabo")
    assert list(details.scores) == scores
    assert details.royal_roulette == roulette
    assert details.caller_won is caller_won


def test_royal_roulette_is_traveller_only() -> None:
    assert score_round(Rules.preset("rush"), H("KS KC QD QH", "5S"), None, "cabo") == [50, 5]


@pytest.mark.parametrize("bad", [dict(ended_by="tea"), dict(caller=5)])
def test_round_details_rejects_bad_arguments(bad: dict[str, object]) -> None:
    kw: dict[str, object] = dict(caller=None, ended_by="cabo") | bad
    with pytest.raises(ValueError):
        round_details(Rules.preset("deluxe"), H("1", "2"), **kw)  # type: ignore[arg-type]


# ---------------------------------------------------------------- §6 steps 5-6: the scorepad

def sheet_after(preset: str, rounds: Sequence[Sequence[int]], **overrides: object) -> ScoreSheet:
    sheet = ScoreSheet(Rules.preset(preset, **overrides), len(rounds[0]))
    for r in rounds:
        sheet.add_round(r)
    return sheet


@pytest.mark.parametrize(
    "preset, rounds, totals, over",
    [
        ("deluxe", [[60, 10], [40, 5]], [50, 15], False),            # exactly 100 -> 50
        ("deluxe", [[60, 10], [40, 5], [50, 0]], [100, 15], False),  # once per player: the second 100 stays
        ("deluxe", [[60, 10], [40, 5], [50, 0], [1, 0]], [101, 15], True),  # over 100 ends
        ("deluxe", [[99, 0], [2, 0]], [101, 0], True),
        ("deluxe", [[90, 0], [10, 100]], [50, 50], False),           # both reset in the same round
        ("deluxe", [[101, 0]], [101, 0], True),
        ("rush", [[60, 10], [40, 5]], [100, 15], True),              # rush: no reset; reaching 100 ends
        ("rush", [[99, 10]], [99, 10], False),
        ("traveller", [[60, 10], [40, 5]], [100, 15], False),        # traveller: over 100 ends, no reset
        ("traveller", [[60, 10], [40, 5], [1, 0]], [101, 15], True),
        ("traveller", [[-50, 10], [-3, 5]], [-53, 15], False),
    ],
)
def test_reset_and_game_end(preset: str, rounds: list[list[int]], totals: list[int], over: bool) -> None:
    sheet = sheet_after(preset, rounds)
    assert sheet.totals == totals
    assert sheet.game_over is over


def test_reset_is_recorded_per_player_and_round() -> None:
    sheet = sheet_after("deluxe", [[60, 10], [40, 5], [50, 85]])
    assert sheet.resets == [True, True]
    assert sheet.reset_rounds == [[], [0], [1]]


@pytest.mark.parametrize(
    "rounds, over",
    [
        ([[60, 0], [40, 0]], False),                   # first exact 100: reset, game goes on
        ([[60, 0], [40, 0], [50, 0]], True),           # second exact 100 ends the game (French option)
        ([[100, 0], [0, 0], [50, 0]], True),
    ],
)
def test_french_second_exact_100_option(rounds: list[list[int]], over: bool) -> None:
    assert sheet_after("deluxe", rounds, second_exact_100_ends=True).game_over is over
    assert sheet_after("deluxe", rounds).game_over is False  # off in the preset


@pytest.mark.parametrize(
    "rounds, winners",
    [
        ([[101, 20, 30]], [1]),                         # lowest total
        ([[90, 20, 10], [11, 0, 10]], [1]),             # tie 20/20: last round 0 beats 10
        ([[90, 10, 20], [11, 10, 0]], [2]),
        ([[90, 15, 15], [11, 5, 5]], [1, 2]),           # still tied: shared win
        ([[20, 101, 20]], [0, 2]),
    ],
)
def test_winners_tie_break_by_last_round(rounds: list[list[int]], winners: list[int]) -> None:
    for preset in ("deluxe", "rush", "traveller"):
        sheet = sheet_after(preset, rounds)
        assert sheet.game_over
        assert sheet.winners == winners


def test_no_winner_before_the_end_and_no_round_after_it() -> None:
    sheet = sheet_after("deluxe", [[10, 20]])
    assert sheet.winners == []
    sheet.add_round([95, 0])
    assert sheet.game_over
    with pytest.raises(ScoreSheetError, match="game is over"):
        sheet.add_round([0, 0])
    with pytest.raises(ScoreSheetError, match="needs 2 scores"):
        ScoreSheet(Rules.preset("deluxe"), 2).add_round([1, 2, 3])


def test_round_limit_ends_the_game() -> None:
    sheet = sheet_after("rush", [[1, 2], [3, 4], [5, 6]], max_rounds=3)
    assert sheet.game_over and sheet.winners == [0]
    assert not sheet_after("rush", [[1, 2], [3, 4]], max_rounds=3).game_over


# ---------------------------------------------------------------- §2 next start player and rule T

@pytest.mark.parametrize(
    "scores, previous, expected",
    [
        ([5, 3, 9], 0, 1),            # lowest round score starts
        ([3, 9, 3, 3], 2, 3),         # rule T: from the left neighbour of the previous start player
        ([3, 9, 3, 5], 2, 0),         # wraps around clockwise
        ([3, 3, 9, 9], 0, 1),         # the previous start player is checked last
        ([2, 5, 2, 5], 0, 2),
        ([2, 5, 5, 5], 0, 0),         # ... but still starts if alone at the lowest
        ([4, 4, 4], 2, 0),
        ([4, 4, 4], 1, 2),
        ([-3, 0, -3, 8, 1], 3, 0),
    ],
)
def test_rule_t(scores: list[int], previous: int, expected: int) -> None:
    for preset in ("deluxe", "rush", "traveller"):
        assert next_start_player(Rules.preset(preset), scores, previous) == expected


@pytest.mark.parametrize(
    "preset, scores, previous, caller, caller_won, expected",
    [
        ("rush", [0, -3, 0], 2, 1, True, 1),     # rush: the winning caller starts
        ("rush", [0, 7, 2], 0, 1, False, 0),     # beaten caller: lowest score (rule T for ties)
        ("rush", [3, 8, 0], 0, 1, False, 2),
        ("deluxe", [0, 0], 1, 1, True, 0),       # deluxe: a winning caller with a tied score gets no priority
        ("traveller", [0, -4, 1], 0, 1, True, 1),
    ],
)
def test_next_start_player_with_caller(preset: str, scores: list[int], previous: int, caller: int,
                                       caller_won: bool, expected: int) -> None:
    assert next_start_player(Rules.preset(preset), scores, previous, caller, caller_won) == expected


def test_rush_winning_caller_starts_even_when_not_lowest() -> None:
    # §2 rush: "the caller if the caller won" (a winner's -3 is normally lowest, but the rule names the caller)
    assert next_start_player(Rules.preset("rush"), [-3, -3, 5], 0, 0, True) == 0
    assert next_start_player(Rules.preset("rush"), [-3, -3, 5], 0, None, None) == 1


# ---------------------------------------------------------------- the same rules inside a played game

def test_game_applies_reset_and_next_start_player() -> None:
    # Deluxe, seat 1 calls and wins; seat 0 scores exactly 5 on 95 -> 100 -> 50 (§6 step 5).
    game = layout("deluxe", [[1, 1, 1, 2], [0, 0, 1, 2]], [9], [3, 4, 5, 6], scores=[95, 10], current=1,
                  start_player=0)
    run(game, "cabo", "0: deck", "0: discard")
    assert game.phase == "look"  # round 2 set-up
    result = game.results[0]
    assert (result.ended_by, result.caller, result.caller_won) == ("cabo", 1, True)
    assert result.scores == [5, 0]
    assert result.game_totals == [50, 10] and result.resets == [0]
    assert game.start_player == 1   # lowest round score
    assert game.round == 1


def test_game_kamikaze_result() -> None:
    game = layout("deluxe", [[12, 12, 13, 13], [0, 0, 1, 1]], [9], [3, 4, 5], current=1)
    run(game, "cabo", "0: deck", "0: discard")
    result = game.results[0]
    assert result.kamikaze == [0] and result.scores == [0, 50]
    assert game.start_player == 0


def test_game_royal_roulette_result() -> None:
    game = layout("traveller", [["KS", "KC", "QD", "QH"], ["2S", "2H", "3S", "AS"], ["9S", "9H", "9D", "9C"]],
                  ["5D"], ["4S", "4H", "4D", "4C", "6S"], current=0)
    run(game, "deck", "discard", "window", "cabo", "1: deck", "1: discard", "window", "2: deck", "2: discard",
        "window")
    result = game.results[0]
    assert result.ended_by == "cabo" and result.caller == 0 and result.caller_won is False
    assert result.royal_roulette == [0] and result.scores == [-50, 8, 36]


def test_game_over_and_winners() -> None:
    game = layout("rush", [["AS", "2S"], ["9S", "9H"]], ["5D"], ["4S", "4H", "4D"], scores=[10, 90], current=0)
    run(game, "cabo", "1: deck", "1: discard", "window")
    assert game.is_over and game.phase == "over"
    assert game.totals == [7, 108] and game.winners == [0]
    assert game.legal_actions(0) == () and game.to_move == ()


@pytest.mark.parametrize("previous, expected", [(1, 2), (2, 0), (0, 2)])
def test_game_uses_rule_t_for_the_next_start_player(previous: int, expected: int) -> None:
    # seats 0 and 2 tie at 4: the first tied seat clockwise from the previous start player's left neighbour
    game = layout("deluxe", [[1, 1, 1, 1], [5, 5, 5, 5], [2, 2, 0, 0]], [9], [6], current=previous,
                  start_player=previous)
    run(game, f"{previous}: deck", f"{previous}: discard")   # the deck is empty: the round ends after this turn
    assert game.results[0].ended_by == "deck"
    assert [game.results[0].scores[s] for s in (0, 2)] == [4, 4]
    assert game.start_player == expected
