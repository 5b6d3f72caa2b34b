"""The traveller preset, rule by rule (RULES.md §2, §3, §5, §6, §7), on stacked decks and layouts."""

from __future__ import annotations

import pytest

import cabo_kit as ck
from cabo_kit import IllegalActionError

from rulecase import conserved, hand, kinds, layout, new_game, pass_window, pile, run, seen, snap, top, up

A = ["2S", "3S", "4S", "5S"]
B = ["2H", "3H", "4H", "9S"]
C = ["6S", "7S", "8S", "9C"]
DECK = "2S 3S 4S 5S  2H 3H 4H 9S  6S 7S 8S 9C  5D  AD AH"


def trav(hands: list[list[str]], discard: list[str], deck: list[str], **kw: object) -> ck.Game:
    return layout("traveller", hands, discard, deck, **kw)


def end_turn(game: ck.Game, cabo: bool = False) -> None:
    """Traveller's end of turn: say Cabo or pass (RULES.md §3 step 5)."""
    assert game.phase == "end_turn", game.phase
    run(game, "cabo" if cabo else "pass")


# ---------------------------------------------------------------- §3 set-up

def test_set_up_peeks_the_bottom_row_and_opens_the_first_window() -> None:
    game = new_game("traveller", DECK, n=3, skip_first_window=False)
    assert game.phase == "snap" and game.to_move == (0, 1, 2)
    assert seen(game, 0, 0) == ["??", "??", "4S", "5S"]
    assert seen(game, 2, 2) == ["??", "??", "8S", "9C"] and seen(game, 2, 0) == ["??"] * 4
    assert pile(game) == ["5D"] and len(game.deck) == 54 - 13
    snap(game, {0: "0:3"})   # 5S matches 5D
    assert hand(game, 0) == ["2S", "3S", "4S"] and game.phase == "choose" and game.current == 0


def test_two_players_as_a_teaching_option() -> None:
    game = new_game("traveller", "2S 3S 4S 5S  2H 3H 4H 9S  5D", n=2)
    assert game.n == 2 and game.phase == "choose"
    with pytest.raises(ck.RulesError):
        ck.Game(ck.Rules.preset("traveller"), 1, 2)


def test_six_card_layout_peeks_three() -> None:
    # §2: six-card option (2x3); the peek is the bottom row: the last 3 (Decided here)
    deck = "AS 2S 3S 4S 5S 6S  AH 2H 3H 4H 5H 6H  AC 2C 3C 4C 5C 6C  9D"
    game = new_game("traveller", deck, n=3, hand_size=6, initial_peeks=3, skip_first_window=False)
    assert seen(game, 1, 1) == ["??", "??", "??", "4H", "5H", "6H"]
    assert seen(game, 0, 0) == ["??", "??", "??", "4S", "5S", "6S"]
    assert pile(game) == ["9D"] and game.phase == "snap"


# ---------------------------------------------------------------- §3 turns and Cabo at the end of a turn

def test_cabo_is_called_at_the_end_of_the_callers_own_turn() -> None:
    game = trav([A, B, C], ["5D"], ["AC", "AD", "AH", "JOKER"])
    assert game.legal_actions() == (ck.DrawDeck(), ck.DrawDiscard())   # no Cabo instead of a turn
    run(game, "deck", "exchange 3", "window")
    assert game.phase == "end_turn" and game.legal_actions() == (ck.Pass(), ck.CallCabo())
    end_turn(game, cabo=True)
    assert game.caller == 0 and game.current == 1
    run(game, "1: deck", "1: exchange 3", "window")
    assert game.phase == "choose" and game.current == 2   # no end_turn once Cabo is called
    run(game, "2: deck", "2: exchange 3", "window")
    result = game.results[0]
    assert (result.ended_by, result.caller, result.turns) == ("cabo", 0, 3)
    assert result.totals == [10, 10, 22] and result.scores == [5, 10, 22]   # tie -> caller wins: total - 5


def test_card_from_the_discard_pile_exchanged_lies_face_down_but_public() -> None:
    game = trav([A, B, C], ["5D"], ["AC"])
    run(game, "take", "exchange 1")
    assert hand(game, 0)[1] == "5D" and not up(game, 0)[1]
    assert seen(game, 1, 0)[1] == "5D" and seen(game, 2, 0)[1] == "5D"
    assert top(game) == "3S" and game.phase == "snap"


def test_card_from_the_discard_pile_may_be_discarded_again_without_power() -> None:
    # §2 traveller: exchange it, or discard it again (no power; a new snap window opens)
    game = trav([A, B, C], ["5D", "JD"], ["AC"])
    run(game, "take")
    assert ck.Discard() in game.legal_actions()
    run(game, "discard")
    assert game.phase == "snap" and top(game) == "JD" and game.power is None
    pass_window(game)
    assert game.phase == "end_turn"   # no swap power
    assert hand(game, 0) == A


# ---------------------------------------------------------------- powers: after the snap window

@pytest.mark.parametrize("card, power", [("7C", "peek"), ("8H", "peek"), ("9D", "spy"), ("10C", "spy"),
                                         ("JD", "swap"), ("QS", "swap"), ("KS", "spy_swap"), ("KC", "spy_swap")])
def test_power_comes_after_the_snap_window(card: str, power: str) -> None:
    # §2 traveller: after the card is discarded and its snap window is over, until the end of the drawer's turn
    game = trav([A, B, C], ["5D"], [card, "6D"])
    run(game, "deck", "discard")
    assert game.phase == "snap" and top(game) == card
    pass_window(game)
    assert game.phase == "power" and game.power == power
    run(game, "pass")
    assert game.phase == "end_turn"


@pytest.mark.parametrize("card", ["KH", "KD", "JOKER", "6C"])
def test_cards_without_power(card: str) -> None:
    game = trav([A, B, C], ["5D"], [card, "6D"])
    run(game, "deck", "discard", "window")
    assert game.phase == "end_turn"


def test_power_survives_a_snap_of_its_card() -> None:
    game = trav([A, B, C], ["5D"], ["7C", "6D"])
    run(game, "deck", "discard")
    snap(game, {2: "2:1"})   # 7S matches 7C
    assert hand(game, 2) == ["6S", "8S", "9C"] and top(game) == "7S"
    assert game.phase == "power" and game.power == "peek" and game.current == 0
    run(game, "peek 0")
    assert seen(game, 0, 0)[0] == "2S"


def test_black_king_spy_then_swap_only_the_spied_card() -> None:
    # §3.4 traveller black king: spy on one card of another player, then optionally swap exactly that card
    game = trav([A, B, C], ["5D"], ["KS", "6D"])
    run(game, "deck", "discard", "window")
    assert game.power == "spy_swap"
    assert ck.Peek(0) not in game.legal_actions() and ck.Spy(2, 3) in game.legal_actions()
    run(game, "spy 2:3")
    assert game.phase == "swap" and seen(game, 0, 2)[3] == "9C" and seen(game, 1, 2)[3] == "??"
    assert set(game.legal_actions()) == {ck.Pass()} | {ck.Swap(o, 2, 3) for o in range(4)}
    with pytest.raises(IllegalActionError, match="phase 'swap'"):
        run(game, "swap 0 1:0")
    run(game, "swap 1 2:3")
    assert hand(game, 0) == ["2S", "9C", "4S", "5S"] and hand(game, 2) == ["6S", "7S", "8S", "3S"]
    assert seen(game, 0, 0)[1] == "9C" and seen(game, 2, 2)[3] == "??"
    assert game.phase == "end_turn"


def test_black_king_spy_then_keep() -> None:
    game = trav([A, B, C], ["5D"], ["KC", "6D"])
    run(game, "deck", "discard", "window", "spy 1:0", "pass")
    assert hand(game, 1) == B and game.phase == "end_turn"


def test_an_exchanged_card_gives_no_power() -> None:
    game = trav([A, B, C], ["5D"], ["JD", "6D"])
    run(game, "deck", "exchange 0", "window")
    assert game.phase == "end_turn" and game.power is None


# ---------------------------------------------------------------- §5 snapping

def test_snap_others_card_right_then_optional_give() -> None:
    game = trav([A, B, C], ["5D"], ["4C", "6D"])
    run(game, "deck", "discard")
    snap(game, {2: "0:2"})   # 4S matches 4C
    assert game.phase == "give" and game.to_move == (2,)
    assert set(game.legal_actions(2)) == {ck.Pass()} | {ck.Give(p) for p in range(4)}   # optional
    run(game, "2: pass")
    assert hand(game, 0) == ["2S", "3S", "5S"] and hand(game, 2) == C
    assert game.phase == "end_turn" and game.current == 0


def test_snap_others_card_right_then_give() -> None:
    game = trav([A, B, C], ["5D"], ["4C", "6D"], known=[[], [], [(2, 0)]])
    run(game, "deck", "discard")
    snap(game, {2: "0:2"})
    run(game, "2: give 0")
    assert hand(game, 0) == ["2S", "3S", "6S", "5S"] and hand(game, 2) == ["7S", "8S", "9C"]
    assert seen(game, 0, 0)[2] == "??" and seen(game, 2, 0)[2] == "6S"
    assert conserved(game)


@pytest.mark.parametrize("claim, penalties", [("1:1", 1), ("0:1", 2), ("2:3", 2)])
def test_wrong_snap_penalty_one_for_own_two_for_others(claim: str, penalties: int) -> None:
    # §5 traveller: 1 penalty card for a wrong own card, 2 for a wrong card of another player
    game = trav([A, B, C], ["5D"], ["6C", "AC", "AD", "6D"])
    run(game, "deck", "discard")
    snap(game, {1: claim})
    ts, tp = map(int, claim.split(":"))
    assert hand(game, 1) == B + ["AC", "AD"][:penalties]
    assert seen(game, 1, 1)[4:] == ["??"] * penalties
    assert seen(game, 2, ts)[tp] == hand(game, ts)[tp] and not up(game, ts)[tp]   # back face down, public
    assert game.phase == "end_turn" and conserved(game)


def test_snap_with_the_joker() -> None:
    game = trav([["JOKER", "2S", "3S", "4S"], B, C], ["5D"], ["JOKER", "6D"])
    run(game, "deck", "discard")
    snap(game, {0: "0:0"})
    assert hand(game, 0) == ["2S", "3S", "4S"] and pile(game) == ["5D", "JOKER", "JOKER"]


def test_a_snapper_without_cards_gives_nothing() -> None:
    # §5: "A snapper with no card gives nothing"
    game = trav([["5S"], B, C], ["9D"], ["5C", "2C", "6D", "6H"], current=1)
    run(game, "1: deck", "1: discard")
    snap(game, {0: "0:0"})
    assert hand(game, 0) == [] and game.current == 2   # seat 1's turn is over (no Cabo call any more)
    run(game, "2: deck", "2: discard")   # 2C
    snap(game, {0: "1:0"})               # 2H matches: seat 0 has nothing to give
    assert game.phase == "choose" and hand(game, 1) == ["3H", "4H", "9S"] and hand(game, 0) == []


# ---------------------------------------------------------------- §6 end of a round

def test_empty_hand_gives_everyone_one_final_turn_and_no_more_cabo() -> None:
    # §6 traveller: the current turn is completed, then every player, the emptied one included, takes one final
    # turn starting with the next player; Cabo can no longer be called
    game = trav([["5S"], B, C], ["9D"], ["5C", "6D", "6H", "2D", "AC", "AD", "AH"], current=1)
    run(game, "1: deck", "1: discard")
    snap(game, {0: "0:0"})
    assert game.phase == "choose" and game.current == 2   # seat 1's turn completed, no Cabo at its end
    run(game, "2: deck", "2: discard", "window")
    assert game.phase == "choose" and game.current == 0
    run(game, "0: deck")
    assert game.legal_actions() == (ck.Discard(),)        # the emptied player draws and discards
    run(game, "0: discard", "window")
    assert game.current == 1 and game.round == 0
    run(game, "1: deck", "1: discard", "window")
    result = game.results[0]
    assert (result.ended_by, result.caller, result.turns) == ("empty_hand", None, 4)


def test_empty_hand_after_cabo_keeps_the_cabo_final_turns() -> None:
    # §6: "If Cabo had already been called, nothing changes: the Cabo final turns go on and the round ends by Cabo"
    game = trav([A, ["6C"], C], ["9D"], ["AC", "6H", "2D", "3D"], current=0)
    run(game, "deck", "exchange 3", "window")
    end_turn(game, cabo=True)
    run(game, "1: deck", "1: discard")   # 6H
    snap(game, {1: "1:0"})               # seat 1 empties its hand
    assert game.current == 2
    run(game, "2: deck", "2: discard", "window")
    result = game.results[0]
    assert (result.ended_by, result.caller, result.turns) == ("cabo", 0, 3)


def test_no_cabo_once_a_hand_became_empty() -> None:
    # §3.1 traveller: Cabo only if no hand has become empty; the end-of-turn call is not offered
    game = trav([["5S"], B, C], ["9D"], ["5C", "6D", "6H", "2D"], current=1)
    run(game, "1: deck", "1: discard")
    snap(game, {0: "0:0"})
    for seat in (2, 0):
        assert ck.CallCabo() not in game.legal_actions()
        with pytest.raises(IllegalActionError, match=f"seat {seat}"):
            run(game, "cabo")
        run(game, f"{seat}: deck", f"{seat}: discard", "window")
        assert game.phase == "choose" and game.caller is None


def test_reshuffle_of_the_pile_below_its_top() -> None:
    # §2 traveller: same as rush (Decided here)
    game = trav([A, B, C], ["6C", "7D", "8D", "QC"], [])
    run(game, "deck")
    assert pile(game) == ["QC"] and len(game.deck) == 2
    assert "reshuffle" in kinds(game.observation(2).events)
    assert game.observation(2).drawn.text == "??"


def test_cannot_draw_at_all_ends_the_round_after_the_turn() -> None:
    # §6 (rush and traveller): nothing to draw from the deck -> no draw from it; the round ends after the turn
    game = trav([A, B, C], ["QC"], ["6C"], current=0)
    run(game, "deck", "discard")
    snap(game, {0: "1:0"})   # wrong: two penalty cards are due, only QC (reshuffled) exists
    assert hand(game, 0) == A + ["QC"] and pile(game) == ["6C"] and game.deck == []
    run(game, "pass")        # seat 0's end of turn: no Cabo
    assert game.results[0].ended_by == "deck" and game.results[0].turns == 1


def test_cannot_draw_at_the_start_of_a_turn() -> None:
    game = trav([A, B, C], ["QC"], [], current=0)
    assert game.legal_actions() == (ck.DrawDiscard(),)
    run(game, "take", "exchange 0", "window", "pass")
    assert game.results[0].ended_by == "deck" and game.results[0].turns == 1


def test_turn_limit() -> None:
    game = new_game("traveller", DECK, n=3, max_turns=1)
    run(game, "deck", "exchange 0", "window", "pass")
    assert game.results[0].ended_by == "turn_limit"


def test_royal_roulette_holder_scores_minus_50_in_play() -> None:
    game = trav([["KS", "KC", "QD", "QH"], B, C], ["5D"], ["AC", "AD", "AH"], current=1)
    run(game, "1: deck", "1: discard", "window")
    end_turn(game, cabo=True)
    run(game, "2: deck", "2: discard", "window", "0: deck", "0: discard", "window")
    assert game.results[0].royal_roulette == [0] and game.results[0].scores[0] == -50
    assert game.results[0].caller_won is True


# ---------------------------------------------------------------- illegal actions

@pytest.mark.parametrize(
    "steps, bad, seat, phase",
    [
        ((), "cabo", 0, "choose"),
        (("deck", "exchange 0", "window"), "deck", 0, "end_turn"),
        (("deck", "discard"), "1: give 0", 1, "snap"),
        (("deck", "discard", "window"), "spy 0:0", 0, "power"),
    ],
)
def test_illegal_actions_name_phase_and_seat_without_hidden_cards(steps: tuple[str, ...], bad: str, seat: int,
                                                                  phase: str) -> None:
    game = trav([["QS", "KC", "JD", "QH"], ["KS", "JC", "QD", "JH"], ["JOKER", "10C", "10D", "10H"]], ["5D"],
                ["9C", "8D"])
    run(game, *steps)
    with pytest.raises(IllegalActionError) as err:
        run(game, bad)
    message = str(err.value)
    assert f"phase {phase!r}" in message and f"seat {seat}" in message
    for s in range(3):
        for card in hand(game, s):
            assert card not in message


def test_drawer_emptying_own_hand_completes_the_turn_then_final_turns() -> None:
    # §6 traveller: the current turn is completed (its power is still offered, with nothing to peek at), then
    # every player, the emptied one included, takes one final turn starting with the next player
    game = trav([["7S"], B, ["6S", "8S", "9C", "10S"]], ["9D"], ["7C", "2D", "3D", "4D", "5D"], current=0)
    run(game, "deck", "discard")
    snap(game, {0: "0:0"})
    assert game.phase == "power" and game.legal_actions() == (ck.Pass(),)
    run(game, "pass")
    assert game.phase == "choose" and game.current == 1   # no end_turn: Cabo can no longer be called
    for seat in (1, 2, 0):
        assert game.round == 0
        run(game, f"{seat}: deck", f"{seat}: discard", "window")
    result = game.results[0]
    assert (result.ended_by, result.turns) == ("empty_hand", 4)
    assert result.scores == [0, 18, 33]
