"""The deluxe preset, rule by rule (RULES.md §2-§4, §6, §7), on stacked decks and layouts."""

from __future__ import annotations

from itertools import combinations

import pytest

import cabo_kit as ck
from cabo_kit import IllegalActionError

from rulecase import conserved, hand, kinds, layout, new_game, pile, run, seen, top, up

# seat 0: 1 2 3 4, seat 1: 5 6 7 8, first discard 9, then the draws
DECK = "1 2 3 4  5 6 7 8  9  10 11 12 0 13"


# ---------------------------------------------------------------- §3 set-up

def test_set_up_initial_peek_is_chosen_by_each_player() -> None:
    # §2: initial peek: any 2 of your own, player's choice (the "look" phase, all seats at once)
    game = new_game("deluxe", DECK, looks=None)
    assert game.phase == "look" and game.to_move == (0, 1)
    assert set(game.legal_actions(0)) == {ck.InitialPeek(c) for c in combinations(range(4), 2)}
    assert game.know.pile == []  # the first discard comes after the peeks
    run(game, "1: look 1,2")
    assert game.to_move == (0,)
    run(game, "0: look 0,3")
    assert seen(game, 0, 0) == ["1", "??", "??", "4"]
    assert seen(game, 1, 1) == ["??", "6", "7", "??"]
    assert seen(game, 0, 1) == ["??"] * 4 and seen(game, 1, 0) == ["??"] * 4
    # §7: that an opponent looked, and where, is known; what they saw is not
    look1 = [e for e in game.observation(0).events if e.kind == "look" and e.seat == 1]
    assert look1[0].target == (1, 2) and [c.text for c in look1[0].cards] == ["??", "??"]


@pytest.mark.parametrize("bad", ["look 0", "look 0,1,2", "look 0,4", "deck"])
def test_set_up_look_must_name_exactly_the_peek_count(bad: str) -> None:
    game = new_game("deluxe", DECK, looks=None)
    with pytest.raises(IllegalActionError, match="phase 'look'"):
        run(game, f"0: {bad}")


def test_set_up_first_discard_and_first_turn() -> None:
    # §3: the top card of the deck is turned face up as the discard pile; no snap window in deluxe
    game = new_game("deluxe", DECK, start=1)
    assert game.phase == "choose" and game.to_move == (1,) and game.current == 1
    assert pile(game) == ["9"]
    assert len(game.deck) == 52 - 9
    assert all(not u for s in range(2) for u in up(game, s))
    assert game.legal_actions() == (ck.DrawDeck(), ck.DrawDiscard(), ck.CallCabo())
    assert conserved(game)


# ---------------------------------------------------------------- §3 turns

def test_draw_from_deck_is_seen_by_the_drawer_alone_then_discard() -> None:
    game = new_game("deluxe", DECK)
    run(game, "deck")
    assert game.observation(0).drawn.text == "10" and game.observation(1).drawn.text == "??"
    run(game, "discard", "pass")   # 10 = spy; skipped
    assert top(game) == "10" and game.current == 1 and game.phase == "choose"
    assert hand(game, 0) == ["1", "2", "3", "4"]


def test_exchange_one_card_from_the_deck() -> None:
    # §3.2: the drawn card takes the exchanged card's place face down; the old card goes face up to the pile
    game = new_game("deluxe", DECK)
    run(game, "deck", "exchange 2")
    assert hand(game, 0) == ["1", "2", "10", "4"] and up(game, 0) == [False] * 4
    assert top(game) == "3" and game.current == 1
    assert seen(game, 0, 0)[2] == "10" and seen(game, 1, 0)[2] == "??"
    assert conserved(game)


def test_card_from_discard_pile_must_be_exchanged_and_lies_face_up() -> None:
    # §2 deluxe: drawn from discard: must exchange; the new card lies face up
    game = new_game("deluxe", DECK)
    run(game, "take")
    assert ck.Discard() not in game.legal_actions()
    assert game.observation(1).drawn.text == "9"   # every player saw it
    run(game, "exchange 1")
    assert hand(game, 0) == ["1", "9", "3", "4"] and up(game, 0) == [False, True, False, False]
    assert seen(game, 1, 0)[1] == "9" and top(game) == "2"


def test_drawing_from_an_empty_discard_pile_is_not_legal() -> None:
    game = layout("deluxe", [[1, 2, 3, 4], [5, 6, 7, 8]], [], [10, 11])
    assert game.legal_actions() == (ck.DrawDeck(), ck.CallCabo())


# ---------------------------------------------------------------- §4 multi-exchange

@pytest.mark.parametrize(
    "cards, picks, place, after, pile_after",
    [
        ([5, 5, 3, 4], "0,1", 1, ["9", "3", "4"], ["2", "5", "5"]),
        ([5, 5, 3, 4], "0,1", 0, ["9", "3", "4"], ["2", "5", "5"]),
        ([3, 5, 4, 5], "1,3", 3, ["3", "4", "9"], ["2", "5", "5"]),
        ([5, 5, 5, 4], "0,1,2", 2, ["9", "4"], ["2", "5", "5", "5"]),
        ([7, 7, 7, 7], "0,1,2,3", 1, ["9"], ["2", "7", "7", "7", "7"]),
    ],
)
def test_multi_exchange_success(cards: list[int], picks: str, place: int, after: list[str], pile_after: list[str]) -> None:
    # §4 all of equal value: all picked cards go to the pile; the drawn card takes one picked place; the hand
    # shrinks; the drawn card's own value need not match
    game = layout("deluxe", [cards, [1, 1, 1, 1]], [2], [9, 10])
    run(game, "deck", f"exchange {picks}")
    assert game.phase == "place" and game.exchange_ok is True
    assert set(game.legal_actions()) == {ck.Place(int(p)) for p in picks.split(",")}
    assert game.observation(1).picked == tuple(map(int, picks.split(",")))
    run(game, f"place {place}")
    assert hand(game, 0) == after and pile(game) == pile_after
    assert up(game, 0) == [False] * len(after)  # from the deck: face down
    assert seen(game, 0, 0)[after.index("9")] == "9" and "9" not in seen(game, 1, 0)
    assert game.current == 1 and conserved(game)


def test_multi_exchange_success_from_the_discard_pile_lies_face_up() -> None:
    game = layout("deluxe", [[6, 6, 3, 4], [1, 1, 1, 1]], [2, 9], [10])
    run(game, "take", "exchange 0,1", "place 0")
    assert hand(game, 0) == ["9", "3", "4"] and up(game, 0) == [True, False, False]
    assert pile(game) == ["2", "6", "6"]


@pytest.mark.parametrize("place, after, drawn_at", [(0, ["9", "5", "6", "3", "4"], 0), (4, ["5", "6", "3", "4", "9"], 4)])
def test_failed_multi_exchange_keeps_picked_face_up_and_drawn_at_either_end(place: int, after: list[str],
                                                                             drawn_at: int) -> None:
    # §4 not all equal: picked cards stay in place, face up; the drawn card goes to either end; 2 picked: no penalty
    game = layout("deluxe", [[5, 6, 3, 4], [1, 1, 1, 1]], [2], [9, 10, 11])
    run(game, "deck", "exchange 0,1")
    assert game.exchange_ok is False
    assert game.legal_actions() == (ck.Place(0), ck.Place(4))
    assert seen(game, 1, 0)[:2] == ["5", "6"]   # turned up for everyone
    run(game, f"place {place}")
    assert hand(game, 0) == after
    assert [c for c, u in zip(hand(game, 0), up(game, 0)) if u] == ["5", "6"]
    assert not up(game, 0)[drawn_at]            # from the deck: face down
    assert seen(game, 0, 0)[drawn_at] == "9"
    assert pile(game) == ["2"] and len(game.deck) == 2   # nothing to the pile, no penalty card
    assert game.current == 1 and conserved(game)


@pytest.mark.parametrize("first, second, after", [
    (4, 0, ["11", "5", "6", "3", "4", "9"]),
    (0, 5, ["9", "5", "6", "3", "4", "11"]),
    (4, 5, ["5", "6", "3", "4", "9", "11"]),
])
def test_failed_multi_exchange_of_three_or_more_draws_a_penalty_card(first: int, second: int, after: list[str]) -> None:
    # §4: three or more picked (Japanese reading: counts the picked cards) -> top card of the deck, unseen, face down,
    # at either end
    game = layout("deluxe", [[5, 6, 3, 4], [1, 1, 1, 1]], [2], [9, 11, 10])
    run(game, "deck", "exchange 0,1,2", f"place {first}")
    assert game.phase == "place" and game.current == 0
    assert game.legal_actions() == (ck.Place(0), ck.Place(5))
    assert game.observation(0).drawn.text == "??"   # unseen, even by the player
    run(game, f"place {second}")
    assert hand(game, 0) == after
    pen = after.index("11")
    assert seen(game, 0, 0)[pen] == "??" and not up(game, 0)[pen]
    assert [c for c, u in zip(after, up(game, 0)) if u] == ["5", "6", "3"]
    assert len(game.deck) == 1 and game.current == 1 and conserved(game)


def test_failed_multi_exchange_penalty_with_matching_pairs_still_counts_picked_cards() -> None:
    # §4 / §9.1: three picked, two of them equal: still a failed exchange of three -> penalty
    game = layout("deluxe", [[5, 5, 3, 4], [1, 1, 1, 1]], [2], [9, 11, 10])
    run(game, "deck", "exchange 0,1,2", "place 4", "place 5")
    assert len(hand(game, 0)) == 6


def test_failed_multi_exchange_penalty_skipped_when_the_deck_is_empty() -> None:
    # §4: "If the deck is empty, that penalty card is skipped"; §6 deluxe: the round then ends after this turn
    game = layout("deluxe", [[5, 6, 3, 4], [1, 1, 1, 1]], [2], [9])
    run(game, "deck", "exchange 0,1,2", "place 4")
    result = game.results[0]
    assert result.ended_by == "deck"
    assert [c.text for c in result.final_hands[0]] == ["5", "6", "3", "4", "9"]


def test_penalty_card_that_empties_the_deck_ends_the_round_after_the_turn() -> None:
    game = layout("deluxe", [[5, 6, 3, 4], [1, 1, 1, 1]], [2], [9, 11])
    run(game, "deck", "exchange 0,1,2", "place 4")
    assert game.phase == "place"         # the turn goes on: the penalty card is placed
    run(game, "place 0")
    assert game.results[0].ended_by == "deck"
    assert [c.text for c in game.results[0].final_hands[0]] == ["11", "5", "6", "3", "4", "9"]


def test_failed_multi_exchange_from_the_discard_pile_can_leave_the_pile_empty() -> None:
    # §4 last point: nothing goes to the pile; drawing from the empty pile is then not legal
    game = layout("deluxe", [[5, 6, 3, 4], [1, 1, 1, 1]], [9], [10, 11, 12])
    run(game, "take", "exchange 0,1", "place 0")
    assert hand(game, 0) == ["9", "5", "6", "3", "4"]
    assert up(game, 0) == [True, True, True, False, False]   # from the pile: face up
    assert pile(game) == [] and game.current == 1
    assert ck.DrawDiscard() not in game.legal_actions()
    with pytest.raises(IllegalActionError, match="phase 'choose'"):
        run(game, "take")
    run(game, "deck", "discard")   # 10 = spy
    run(game, "pass")
    assert pile(game) == ["10"] and ck.DrawDiscard() in game.legal_actions()


# ---------------------------------------------------------------- §3.4 powers, before the discard completes the turn

def test_peek_power() -> None:
    # §2: 7-8 peek: look at one of your own face-down cards
    game = layout("deluxe", [[1, 2, 3, 4], [5, 6, 7, 8]], [9], [7, 10], face_up=[[True, False, False, False], []])
    run(game, "deck", "discard")
    assert game.phase == "power" and game.power == "peek"
    assert set(game.legal_actions()) == {ck.Pass(), ck.Peek(1), ck.Peek(2), ck.Peek(3)}  # only face-down cards
    run(game, "peek 2")
    assert seen(game, 0, 0)[2] == "3" and seen(game, 1, 0)[2] == "??"
    peek = [e for e in game.observation(1).events if e.kind == "peek"][0]
    assert peek.target == (2,) and peek.cards[0].text == "??"
    assert game.current == 1 and game.phase == "choose"


def test_spy_power() -> None:
    # §2: 9-10 spy: look at one face-down card of another player
    game = layout("deluxe", [[1, 2, 3, 4], [5, 6, 7, 8], [0, 0, 1, 1]], [9], [10, 11])
    run(game, "deck", "discard")
    assert game.power == "spy"
    assert len(game.legal_actions()) == 1 + 8
    run(game, "spy 2:3")
    assert seen(game, 0, 2) == ["??", "??", "??", "1"]
    assert seen(game, 2, 2) == ["??"] * 4 and seen(game, 1, 2) == ["??"] * 4
    # §7: the others learn that seat 0 spied, and where, not the face
    spy = [e for e in game.observation(2).events if e.kind == "spy"][0]
    assert (spy.seat, spy.target, spy.cards[0].text) == (0, (2, 3), "??")
    assert game.current == 1


def test_swap_power_keeps_face_state_and_teaches_nobody() -> None:
    # §3.4 swap: neither card looked at; each keeps its face-up/down state and takes the other's place; §7 knowledge
    # follows the card and is never created by the move
    game = layout("deluxe", [[1, 2, 3, 4], [5, 6, 7, 8]], [9], [11, 12, 5],
                  face_up=[[False, True, False, False], []], known=[[(0, 0)], [(1, 2)]])
    run(game, "deck", "discard")
    assert game.power == "swap"
    run(game, "swap 0 1:2")
    assert hand(game, 0) == ["7", "2", "3", "4"] and hand(game, 1) == ["5", "6", "1", "8"]
    assert seen(game, 0, 0)[0] == "??" and seen(game, 0, 1)[2] == "1"
    assert seen(game, 1, 0)[0] == "7" and seen(game, 1, 1)[2] == "??"
    run(game, "1: deck", "1: discard", "1: swap 2 0:1")  # a face-up card keeps its face-up state
    assert hand(game, 1)[2] == "2" and up(game, 1) == [False, False, True, False]
    assert hand(game, 0)[1] == "1" and up(game, 0) == [False] * 4
    assert conserved(game)


@pytest.mark.parametrize("value, power", [(7, "peek"), (8, "peek"), (9, "spy"), (10, "spy"), (11, "swap"), (12, "swap")])
def test_power_may_be_skipped(value: int, power: str) -> None:
    game = layout("deluxe", [[1, 2, 3, 4], [5, 6, 0, 8]], [9], [value, 10])
    run(game, "deck", "discard")
    assert game.power == power and ck.Pass() in game.legal_actions()
    run(game, "pass")
    assert kinds(game.observation(1).events)[-1] == "skip" and game.current == 1


@pytest.mark.parametrize("value", [0, 1, 6, 13])
def test_cards_without_power(value: int) -> None:
    game = layout("deluxe", [[1, 2, 3, 4], [5, 6, 0, 8]], [9], [value, 10])
    run(game, "deck", "discard")
    assert game.phase == "choose" and game.current == 1


@pytest.mark.parametrize("value", [7, 9, 11])
def test_an_exchanged_card_never_gives_its_power(value: int) -> None:
    # §3.2 "Its power is not used", whether the drawn card or the card that left has one
    game = layout("deluxe", [[value, 2, 3, 4], [5, 6, 0, 8]], [9], [value, 10])
    run(game, "deck", "exchange 0")
    assert game.phase == "choose" and game.current == 1 and top(game) == str(value)


def test_multi_exchange_of_power_cards_gives_no_power() -> None:
    game = layout("deluxe", [[11, 11, 3, 4], [5, 6, 0, 8]], [9], [12, 10])
    run(game, "deck", "exchange 0,1", "place 0")
    assert game.phase == "choose" and game.current == 1


# ---------------------------------------------------------------- §6 end of a round

def test_cabo_gives_every_other_player_exactly_one_more_turn() -> None:
    game = layout("deluxe", [[1, 1, 1, 1], [5, 6, 7, 8], [3, 3, 2, 2]], [9], [2, 5, 6], current=1,
                  start_player=1)
    run(game, "1: deck", "1: discard")
    run(game, "2: cabo")
    assert game.caller == 2 and game.current == 0 and game.round == 0
    assert ck.CallCabo() not in game.legal_actions()   # at most one caller per round
    run(game, "0: deck", "0: discard")
    assert game.current == 1 and game.round == 0
    run(game, "1: deck", "1: exchange 0")
    assert game.round == 1 and game.phase == "look"
    result = game.results[0]
    assert (result.ended_by, result.caller, result.caller_won, result.turns) == ("cabo", 2, False, 4)
    assert result.scores == [4, 27, 20]   # caller 10 beaten by 4: 10 + 10


def test_cabo_on_the_first_turn() -> None:
    game = layout("deluxe", [[0, 0, 1, 1], [5, 6, 7, 8]], [9], [2, 3])
    run(game, "cabo", "1: deck", "1: discard")
    assert game.results[0].ended_by == "cabo" and game.results[0].scores == [0, 26]


def test_deck_empty_ends_the_round_after_that_turn() -> None:
    # §6 deluxe: after the turn in which the deck became empty (the last card was drawn)
    game = layout("deluxe", [[1, 2, 3, 4], [5, 6, 0, 8]], [9], [1, 7])
    run(game, "deck", "discard", "1: deck")
    assert game.round == 0 and game.phase == "drawn"   # the turn is finished first
    run(game, "1: discard")
    assert game.round == 0 and game.phase == "power"
    run(game, "1: peek 0")
    result = game.results[0]
    assert result.ended_by == "deck" and result.caller is None and result.scores == [10, 19]


def test_deck_empty_after_a_cabo_call_ends_by_deck() -> None:
    # §6 deluxe: the deck running out ends the round after that turn, even during the Cabo final turns
    game = layout("deluxe", [[1, 2, 3, 4], [5, 6, 0, 8], [2, 2, 3, 3]], [9], [1], current=0)
    run(game, "cabo", "1: deck", "1: discard")
    assert len(game.results) == 1 and game.results[0].caller == 0
    assert game.results[0].ended_by == "deck" and game.results[0].turns == 2


def test_turn_limit() -> None:
    game = new_game("deluxe", DECK, max_turns=3)
    run(game, "0: deck", "0: exchange 0", "1: deck", "1: exchange 0", "0: deck", "0: exchange 1")
    assert game.results[0].ended_by == "turn_limit" and game.results[0].turns == 3


def test_round_limit_ends_the_game() -> None:
    game = new_game("deluxe", DECK, max_rounds=1)
    run(game, "0: cabo", "1: deck", "1: exchange 0")
    assert game.is_over and len(game.results) == 1


def test_kamikaze_in_a_played_round() -> None:
    # §6: {12, 12, 13, 13}: 0 for the holder, 50 for everybody else, the caller included
    game = layout("deluxe", [[12, 13, 12, 13], [0, 0, 1, 1], [1, 2, 3, 4]], [9], [2, 3, 5], current=1)
    run(game, "1: cabo", "2: deck", "2: exchange 0", "0: deck", "0: discard")
    assert game.results[0].scores == [0, 50, 50] and game.results[0].kamikaze == [0]


# ---------------------------------------------------------------- six-card layout

def test_six_card_layout() -> None:
    deck = "1 2 3 4 5 6  7 8 9 10 11 12  0  13"
    game = new_game("deluxe", deck, looks=None, hand_size=6, initial_peeks=3)
    assert len(game.legal_actions(0)) == 20   # any 3 of 6
    run(game, "0: look 0,2,5", "1: look 3,4,5")
    assert hand(game, 0) == ["1", "2", "3", "4", "5", "6"] and pile(game) == ["0"]
    assert seen(game, 0, 0) == ["1", "??", "3", "??", "??", "6"]
    assert seen(game, 1, 1) == ["??", "??", "??", "10", "11", "12"]
    run(game, "deck")
    assert len(game.legal_actions()) == 1 + 6 + (2**6 - 6 - 1)


# ---------------------------------------------------------------- illegal actions

@pytest.mark.parametrize(
    "steps, bad, seat, phase",
    [
        ((), "discard", 0, "choose"),
        ((), "1: deck", 1, "choose"),
        (("deck",), "take", 0, "drawn"),
        (("deck",), "exchange 4", 0, "drawn"),
        (("deck",), "exchange 0,4", 0, "drawn"),
        (("take",), "discard", 0, "drawn"),
        (("deck", "exchange 0,1"), "place 2", 0, "place"),
        (("deck", "discard"), "peek 4", 0, "power"),
        (("deck", "discard"), "spy 0:1", 0, "power"),
        (("deck", "discard"), "snap 1:0", 0, "power"),
    ],
)
def test_illegal_actions_name_phase_and_seat_and_change_nothing(steps: tuple[str, ...], bad: str, seat: int,
                                                                phase: str) -> None:
    game = layout("deluxe", [[13, 12, 11, 12], [11, 13, 11, 12]], [0], [7, 5])
    run(game, *steps)
    before = (game.phase, [hand(game, s) for s in range(2)], pile(game), len(game.history))
    with pytest.raises(IllegalActionError) as err:
        run(game, bad)
    message = str(err.value)
    assert f"seat {seat}" in message and f"phase {phase!r}" in message
    assert "13" not in message and "12" not in message and "11" not in message   # no hidden card's text
    assert (game.phase, [hand(game, s) for s in range(2)], pile(game), len(game.history)) == before


def test_no_action_after_the_game_is_over() -> None:
    game = layout("deluxe", [[13, 13, 12, 11], [0, 0, 1, 1]], [9], [1, 2], scores=[90, 0])
    run(game, "cabo", "1: deck", "1: discard")
    assert game.is_over
    with pytest.raises(IllegalActionError, match="game is over"):
        run(game, "deck")
