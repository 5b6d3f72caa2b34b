"""The rush preset, rule by rule (RULES.md §2, §3, §5, §6, §7), on stacked decks and layouts."""

from __future__ import annotations

import pytest

import cabo_kit as ck
from cabo_kit import IllegalActionError

from rulecase import conserved, hand, kinds, layout, new_game, pass_window, pile, run, seen, snap, top, up

# seat 0: 2S 3S 4S 5S, seat 1: 2H 3H 4H 9S, first discard 5D, then the draws
DECK = "2S 3S 4S 5S  2H 3H 4H 9S  5D  7C KS 6H 8D"
A = ["2S", "3S", "4S", "5S"]
B = ["2H", "3H", "4H", "9S"]


def rush(hands: list[list[str]], discard: list[str], deck: list[str], **kw: object) -> ck.Game:
    return layout("rush", hands, discard, deck, **kw)


# ---------------------------------------------------------------- §3 set-up

def test_set_up_peeks_the_last_two_and_opens_the_first_snap_window() -> None:
    # §2 rush: the 2 nearest (the last 2 positions); §3: the first discard's snap window opens at once
    game = new_game("rush", DECK, skip_first_window=False)
    assert game.phase == "snap" and game.to_move == (0, 1)
    assert seen(game, 0, 0) == ["??", "??", "4S", "5S"] and seen(game, 0, 1) == ["??"] * 4
    assert seen(game, 1, 1) == ["??", "??", "4H", "9S"] and seen(game, 1, 0) == ["??"] * 4
    assert pile(game) == ["5D"] and len(game.deck) == 52 - 9
    assert set(game.legal_actions(1)) == {ck.Pass()} | {ck.Snap(s, p) for s in (0, 1) for p in range(4)}
    pass_window(game)
    assert game.phase == "choose" and game.current == 0
    assert game.legal_actions() == (ck.DrawDeck(), ck.DrawDiscard(), ck.CallCabo())


def test_first_discard_can_be_snapped() -> None:
    game = new_game("rush", DECK, skip_first_window=False)
    snap(game, {0: "0:3"})   # 5S matches 5D
    assert hand(game, 0) == ["2S", "3S", "4S"] and pile(game) == ["5D", "5S"]
    assert game.phase == "choose" and game.current == 0   # a snapped card opens no window


# ---------------------------------------------------------------- §3 turns

def test_draw_and_plain_discard_opens_a_snap_window() -> None:
    # §2 rush: a plain discard of a card without power is allowed (Decided here); §5 its window opens
    game = new_game("rush", DECK + " 6C")
    run(game, "deck")
    assert game.observation(0).drawn.text == "7C" and game.observation(1).drawn.text == "??"
    game2 = new_game("rush", "2S 3S 4S 5S  2H 3H 4H 9S  5D  6C")
    run(game2, "deck", "discard")
    assert game2.phase == "snap" and game2.to_move == (0, 1) and top(game2) == "6C"
    pass_window(game2)
    assert game2.current == 1 and game2.phase == "choose"


def test_exchange_one_card_opens_a_window_for_the_card_that_left() -> None:
    game = new_game("rush", DECK)
    run(game, "deck", "exchange 1")
    assert hand(game, 0) == ["2S", "7C", "4S", "5S"] and up(game, 0) == [False] * 4
    assert top(game) == "3S" and game.phase == "snap"
    assert seen(game, 0, 0)[1] == "7C" and seen(game, 1, 0)[1] == "??"
    assert len(game.legal_actions(0)) == 1 + 8   # pass, or claim any face-down card


def test_only_single_exchanges_in_rush() -> None:
    # §2 exchange row: rush exchanges one card
    game = new_game("rush", DECK)
    run(game, "deck")
    assert ck.Exchange((0, 1)) not in game.legal_actions()
    with pytest.raises(IllegalActionError, match="phase 'drawn'"):
        run(game, "exchange 0,1")


def test_card_from_the_discard_pile_must_be_exchanged_and_lies_face_down_but_public() -> None:
    # §2 rush: must exchange; the new card lies face down (Decided here); §3.3 its value stays public knowledge
    game = new_game("rush", DECK)
    run(game, "take")
    assert ck.Discard() not in game.legal_actions()
    run(game, "exchange 0")
    assert hand(game, 0) == ["5D", "3S", "4S", "5S"] and up(game, 0) == [False] * 4
    assert seen(game, 1, 0)[0] == "5D" and seen(game, 0, 0)[0] == "5D"
    assert top(game) == "2S" and game.phase == "snap"


# ---------------------------------------------------------------- §3.4 powers: before the discard's snap window

@pytest.mark.parametrize("card, power", [("7C", "peek"), ("8H", "peek"), ("9D", "spy"), ("10C", "spy"),
                                         ("JD", "swap"), ("QS", "swap"), ("KS", "peek_swap"), ("KC", "peek_swap")])
def test_power_comes_before_the_snap_window(card: str, power: str) -> None:
    game = rush([A, B], ["5D"], [card, "6C", "6D"])
    run(game, "deck", "discard")
    assert game.phase == "power" and game.power == power and top(game) == card
    run(game, "pass")
    assert game.phase == "snap"          # the window opens after the power
    pass_window(game)
    assert game.current == 1


@pytest.mark.parametrize("card", ["KH", "KD", "AS", "6C"])
def test_cards_without_power(card: str) -> None:
    game = rush([A, B], ["5D"], [card, "6D"])
    run(game, "deck", "discard")
    assert game.phase == "snap" and game.power is None


def test_peek_spy_and_swap() -> None:
    game = rush([A, B], ["5D"], ["7C", "9D", "JD", "6D"], known=[[], [(1, 3)]])
    run(game, "deck", "discard", "peek 1", "window")
    assert seen(game, 0, 0)[1] == "3S" and seen(game, 1, 0)[1] == "??"
    run(game, "1: deck", "1: discard", "1: spy 0:0", "window")
    assert seen(game, 1, 0)[0] == "2S" and seen(game, 0, 1) == ["??", "??", "??", "??"]
    run(game, "0: deck", "0: discard", "0: swap 1 1:3", "window")
    assert hand(game, 0) == ["2S", "9S", "4S", "5S"] and hand(game, 1) == ["2H", "3H", "4H", "3S"]
    # knowledge follows the cards: seat 0 knew 3S, seat 1 knew 9S; nobody learns a new face
    assert seen(game, 0, 1)[3] == "3S" and seen(game, 0, 0)[1] == "??"
    assert seen(game, 1, 0)[1] == "9S" and seen(game, 1, 1)[3] == "??"
    assert conserved(game)


def test_black_king_peek_then_swap_any_own_with_any_other() -> None:
    # §3.4 rush black king: peek at one of your own cards, then optionally swap ANY own card with any other's
    game = rush([A, B, ["6S", "7S", "8S", "9C"]], ["5D"], ["KS", "6D"])
    run(game, "deck", "discard")
    assert game.power == "peek_swap"
    assert set(game.legal_actions()) == {ck.Pass()} | {ck.Peek(p) for p in range(4)}
    run(game, "peek 0")
    assert game.phase == "swap" and seen(game, 0, 0)[0] == "2S"
    legal = game.legal_actions()
    assert ck.Pass() in legal and len(legal) == 1 + 4 * 8   # any own card with any card of any other player
    run(game, "swap 3 2:1")   # not the peeked card
    assert hand(game, 0) == ["2S", "3S", "4S", "7S"] and hand(game, 2)[1] == "5S"
    assert game.phase == "snap"


def test_black_king_peek_then_decline_the_swap() -> None:
    game = rush([A, B], ["5D"], ["KC", "6D"])
    run(game, "deck", "discard", "peek 1", "pass")
    assert hand(game, 0) == A and game.phase == "snap"
    assert seen(game, 0, 0)[1] == "3S"


def test_a_card_from_the_discard_pile_or_an_exchanged_card_gives_no_power() -> None:
    game = rush([A, B], ["5D", "JD"], ["KS", "6D"])
    run(game, "take", "exchange 0")
    assert game.phase == "snap" and top(game) == "2S"
    pass_window(game)
    run(game, "1: deck", "1: exchange 0")   # KS exchanged: the card that leaves (2H) and KS give nothing
    assert game.phase == "snap" and game.power is None


# ---------------------------------------------------------------- §5 snapping

def test_snap_own_card_right() -> None:
    game = rush([A, B], ["5D"], ["4C", "6D"])
    run(game, "deck", "discard")
    snap(game, {0: "0:2"})   # 4S matches 4C
    assert hand(game, 0) == ["2S", "3S", "5S"] and pile(game) == ["5D", "4C", "4S"]
    ev = [e for e in game.observation(1).events if e.kind == "snap"][0]
    assert (ev.seat, ev.target, ev.cards[0].text, ev.info) == (0, (0, 2), "4S", "match")
    assert game.phase == "choose" and game.current == 1   # no window for the snapped card
    assert conserved(game)


def test_snap_others_card_right_then_mandatory_give() -> None:
    # §5: the snapped card goes to the pile; rush: the snapper must give one of their cards into the gap, unseen
    game = rush([A, B], ["5D"], ["4C", "6D"], known=[[], [(1, 3)]])
    run(game, "deck", "discard")
    snap(game, {1: "0:2"})
    assert game.phase == "give" and game.to_move == (1,)
    assert game.legal_actions(1) == tuple(ck.Give(p) for p in range(4))   # no pass: mandatory
    assert game.observation(0).give_to == (0, 2)
    with pytest.raises(IllegalActionError, match="phase 'give'"):
        run(game, "1: pass")
    run(game, "1: give 3")   # 9S, which seat 1 knows
    assert hand(game, 0) == ["2S", "3S", "9S", "5S"] and hand(game, 1) == ["2H", "3H", "4H"]
    assert up(game, 0) == [False] * 4
    assert seen(game, 0, 0)[2] == "??" and seen(game, 1, 0)[2] == "9S"
    assert game.current == 1 and game.phase == "choose" and conserved(game)


@pytest.mark.parametrize("claim, snapper", [("0:1", 0), ("1:1", 0), ("0:1", 1), ("1:1", 1)])
def test_wrong_snap_costs_one_penalty_card(claim: str, snapper: int) -> None:
    # §5 no match: the card goes back, face down, seen by everyone; rush: 1 penalty card at the end, unseen
    game = rush([A, B], ["5D"], ["6C", "8D", "6D"])
    run(game, "deck", "discard")
    snap(game, {snapper: claim})
    ts, tp = map(int, claim.split(":"))
    assert len(hand(game, snapper)) == 5 and hand(game, snapper)[-1] == "8D"
    assert not up(game, ts)[tp]
    for viewer in (0, 1):
        assert seen(game, viewer, ts)[tp] == hand(game, ts)[tp]
        assert seen(game, viewer, snapper)[-1] == "??"
    assert top(game) == "6C" and game.current == 1 and conserved(game)


@pytest.mark.parametrize("pile_top, card, match", [
    ("KH", "KD", True),    # red kings: both 0
    ("KS", "KC", True),
    ("KH", "KS", False),   # a red king (0) never matches a black king (13)
    ("KS", "KD", False),
    ("10S", "10H", True),
    ("JD", "QD", False),
    ("AD", "AC", True),
])
def test_match_by_value(pile_top: str, card: str, match: bool) -> None:
    # §5: it matches if its value equals the value of the pile's top card
    game = rush([[card, "2S", "3S", "4S"], B], ["5D"], [pile_top, "6D", "7D"])
    run(game, "deck", "discard")
    if game.phase == "power":
        run(game, "pass")
    snap(game, {0: "0:0"})
    assert (card in pile(game)) is match
    assert len(hand(game, 0)) == (3 if match else 5)


def test_snap_race_is_seeded_and_losing_claims_are_never_shown() -> None:
    # §5: one claim is carried out; the winner is drawn with the game's seeded generator; losing claims unseen
    winners = set()
    for seed in range(12):
        results = []
        for _ in range(2):
            game = rush([A, B, ["6S", "7S", "8S", "9C"]], ["5D"], ["6C", "8D", "7D", "8C", "9H"], seed=seed)
            run(game, "deck", "discard")
            snap(game, {0: "1:0", 1: "2:0", 2: "0:0"})
            snaps = [[e for e in game.events_seen(s) if e.kind == "snap"] for s in range(3)]
            assert all(len(x) == 1 for x in snaps)
            ev = snaps[0][0]
            results.append((ev.seat, ev.target))
            claimed = {0: (1, 0), 1: (2, 0), 2: (0, 0)}
            assert claimed[ev.seat] == ev.target
            for loser, target in claimed.items():
                if loser != ev.seat:
                    ts, tp = target
                    for viewer in range(3):   # the losing claim's card was not turned up
                        assert seen(game, viewer, ts)[tp] == "??" or viewer == ts and tp >= 2
        assert results[0] == results[1]   # same seed, same winner
        winners.add(results[0][0])
    assert len(winners) > 1


def test_discarder_may_snap_and_a_window_without_claims_changes_nothing() -> None:
    game = rush([A, B], ["5D"], ["3C", "6D"])
    run(game, "deck", "discard")
    assert 0 in game.to_move
    pass_window(game)
    assert hand(game, 0) == A and hand(game, 1) == B and pile(game) == ["5D", "3C"]


def test_wrongly_snapped_card_can_be_claimed_again_later() -> None:
    game = rush([A, B], ["5D"], ["6C", "8D", "3C", "6D"])
    run(game, "deck", "discard")
    snap(game, {1: "0:1"})   # 3S vs 6C: miss, 3S back face down but public
    assert seen(game, 1, 0)[1] == "3S" and not up(game, 0)[1] and game.current == 1
    run(game, "1: deck", "1: discard")   # 3C
    snap(game, {0: "0:1"})
    assert hand(game, 0) == ["2S", "4S", "5S"]


def test_penalty_reshuffles_and_is_skipped_when_nothing_can_be_drawn() -> None:
    # §5: where the deck is empty, reshuffle first; if nothing can be reshuffled, the penalty is skipped
    game = rush([A, B], ["5D"], ["6C"])
    run(game, "deck", "discard")
    snap(game, {0: "1:0"})   # wrong; deck empty, pile is only 5D 6C -> one card below the top
    assert hand(game, 0) == A + ["5D"] and pile(game) == ["6C"]
    assert "reshuffle" in kinds(game.events_seen(1))


# ---------------------------------------------------------------- §6 end of a round

def test_cabo_instead_of_a_turn_then_one_more_turn_each() -> None:
    game = rush([A, B, ["6S", "7S", "8S", "9C"]], ["5D"], ["6C", "2D", "6D", "6H"], current=1)
    run(game, "1: cabo")
    assert game.caller == 1 and game.current == 2 and game.phase == "choose"
    run(game, "2: deck", "2: discard", "window", "0: deck", "0: discard", "window")
    result = game.results[0]
    assert (result.ended_by, result.caller, result.turns) == ("cabo", 1, 3)
    assert result.scores == [14, 23, 30]   # caller 18 beaten by 14: + 5


def test_empty_hand_ends_the_round_at_once() -> None:
    # §6 rush: the moment any hand becomes empty, the round ends; the rest of that turn is not played
    game = rush([["5S"], B], ["9D"], ["5C", "6D", "6H"], current=1)
    run(game, "1: deck", "1: discard")
    snap(game, {0: "0:0"})
    result = game.results[0]
    assert result.ended_by == "empty_hand" and result.final_hands[0] == [] and result.turns == 0
    assert result.scores == [0, 18]


def test_giving_the_last_card_ends_the_round_at_once() -> None:
    game = rush([["5S"], B], ["9D"], ["2C", "6D", "6H"], current=0)
    run(game, "deck", "discard")
    snap(game, {0: "1:0"})   # 2H matches 2C
    run(game, "0: give 0")
    result = game.results[0]
    assert result.ended_by == "empty_hand" and [c.text for c in result.final_hands[1]] == ["5S", "3H", "4H", "9S"]


def test_reshuffle_of_the_pile_below_its_top() -> None:
    # §2 rush: when a card must be drawn and the deck is empty, the pile except its top is shuffled into a new deck;
    # knowledge of those cards is lost (§7, events: reshuffle)
    game = rush([A, B], ["6C", "7D", "8D", "QC"], [])
    assert ck.DrawDeck() in game.legal_actions()
    run(game, "deck")
    assert pile(game) == ["QC"] and len(game.deck) == 2
    assert "reshuffle" in kinds(game.observation(1).events)
    drawn = game.know.faces[game.drawn].text
    assert drawn in ("6C", "7D", "8D")
    assert game.observation(1).drawn.text == "??"   # it was on the pile, but nobody may follow it any more
    assert game.observation(1).discard == (ck.Card.parse("QC"),)
    assert conserved(game)


def test_cannot_draw_at_all_ends_the_round_after_the_turn() -> None:
    # §6 rush: neither the deck nor the pile below its top holds a card: no draw from the deck; the round ends
    # after the current turn. Seat 1's wrong snap takes the last card there is (QC, reshuffled), so seat 1's
    # turn starts with an empty deck and a one-card pile.
    game = rush([A, B], ["QC"], ["6C"], current=0)
    run(game, "deck", "discard")
    snap(game, {1: "0:0"})
    assert hand(game, 1) == B + ["QC"] and pile(game) == ["6C"] and game.deck == []
    assert game.current == 1 and game.legal_actions() == (ck.DrawDiscard(), ck.CallCabo())
    run(game, "1: take", "1: exchange 0", "window")
    assert game.results[0].ended_by == "deck" and game.results[0].turns == 2


def test_cannot_draw_at_all_in_a_layout_ends_the_round_after_the_turn() -> None:
    # the same rule for a game built with Game.from_layout at the start of such a turn
    game = rush([A, B], ["QC"], [], current=0)
    assert game.legal_actions() == (ck.DrawDiscard(), ck.CallCabo())
    run(game, "take", "exchange 0", "window")
    assert len(game.results) == 1 and game.results[0].ended_by == "deck" and game.results[0].turns == 1


def test_turn_limit() -> None:
    game = new_game("rush", DECK, max_turns=2)
    run(game, "deck", "exchange 0", "window", "1: deck", "1: exchange 0", "window")
    assert game.results[0].ended_by == "turn_limit"


# ---------------------------------------------------------------- six-card layout

def test_six_card_layout_peeks_the_bottom_row() -> None:
    deck = "AS 2S 3S 4S 5S 6S  AH 2H 3H 4H 5H 6H  9D"
    game = new_game("rush", deck, hand_size=6, initial_peeks=3, skip_first_window=False)
    assert game.phase == "snap"
    assert seen(game, 0, 0) == ["??", "??", "??", "4S", "5S", "6S"]
    assert seen(game, 1, 1) == ["??", "??", "??", "4H", "5H", "6H"]
    assert pile(game) == ["9D"]


# ---------------------------------------------------------------- illegal actions

@pytest.mark.parametrize(
    "steps, bad, seat, phase",
    [
        (("deck", "discard"), "deck", 0, "snap"),         # several seats decide: the seat must be named
        (("deck", "discard"), "0: snap 0:9", 0, "snap"),
        (("deck", "discard"), "1: discard", 1, "snap"),
        ((), "snap 1:0", 0, "choose"),
        ((), "1: take", 1, "choose"),
        (("deck",), "exchange 0,1", 0, "drawn"),
        (("take",), "discard", 0, "drawn"),
    ],
)
def test_illegal_actions_name_phase_and_seat_without_hidden_cards(steps: tuple[str, ...], bad: str, seat: int,
                                                                  phase: str) -> None:
    game = rush([["QS", "KC", "JD", "QH"], ["KS", "JC", "QD", "JH"]], ["5D"], ["6C", "8D"])
    run(game, *steps)
    before = (game.phase, hand(game, 0), hand(game, 1), pile(game))
    with pytest.raises(IllegalActionError) as err:
        run(game, bad)
    message = str(err.value)
    assert f"phase {phase!r}" in message
    assert f"seat {seat}" in message or bad == "deck"
    for card in hand(game, 0) + hand(game, 1) + ["8D"]:
        assert card not in message
    assert (game.phase, hand(game, 0), hand(game, 1), pile(game)) == before


def test_winning_caller_starts_the_next_round() -> None:
    # §2 rush: next round's start player is the caller if the caller won
    game = rush([["AS", "2S"], ["AH", "KD"], ["9S", "9H"]], ["5D"], ["4S", "4H", "4D", "4C"], current=1,
                start_player=0)
    run(game, "1: cabo", "2: deck", "2: discard", "window", "0: deck", "0: discard", "window")
    result = game.results[0]
    assert (result.caller, result.caller_won, result.scores) == (1, True, [3, -3, 18])
    assert game.round == 1 and game.start_player == 1


def test_beaten_caller_does_not_start_the_next_round() -> None:
    game = rush([["AS", "2S"], ["AH", "5D"], ["9S", "9H"]], ["6D"], ["4S", "4H", "4D", "4C"], current=1,
                start_player=0)
    run(game, "1: cabo", "2: deck", "2: discard", "window", "0: deck", "0: discard", "window")
    assert game.results[0].caller_won is False and game.results[0].scores == [3, 11, 18]
    assert game.start_player == 0


def test_penalty_skipped_when_nothing_can_be_drawn_and_the_round_ends_after_the_turn() -> None:
    # §5 / §6: a penalty card must be drawn, but the deck is empty and the pile holds only its top card
    game = rush([A, B, ["6S", "7S", "8S", "9C"]], ["QC"], [], current=0)
    run(game, "take", "exchange 0")   # 2S lands on the empty pile
    snap(game, {1: "2:0"})             # 6S does not match 2S; no penalty card exists
    result = game.results[0]
    assert [c.text for c in result.final_hands[1]] == B
    assert result.ended_by == "deck" and result.turns == 1


def test_a_seat_that_passed_the_window_cannot_act_again() -> None:
    game = rush([A, B], ["5D"], ["6C", "6D"])
    run(game, "deck", "discard", "0: pass")
    with pytest.raises(IllegalActionError, match="seat 0 cannot act now .*phase 'snap'"):
        run(game, "0: snap 1:0")
    assert game.to_move == (1,)


@pytest.mark.parametrize("seed", range(6))
def test_a_losing_claim_leaves_no_trace_in_any_observation(seed: int) -> None:
    # §5 / §7: losing claims are not carried out and not shown to anyone: every seat's observation and events
    # are exactly those of the same window in which the losers had passed
    def play(claims: dict[int, str]) -> ck.Game:
        game = rush([A, B, ["6S", "7S", "8S", "9C"]], ["5D"], ["6C", "8D", "7D", "8C", "9H"], seed=seed)
        run(game, "deck", "discard")
        snap(game, claims)
        return game

    raced = play({0: "1:0", 1: "2:0", 2: "0:1"})
    winner = [e for e in raced.events_seen(None) if e.kind == "snap"][0].seat
    alone = play({winner: {0: "1:0", 1: "2:0", 2: "0:1"}[winner]})
    for viewer in range(3):
        assert raced.observation(viewer).to_dict() == alone.observation(viewer).to_dict()
        assert raced.events_seen(viewer) == alone.events_seen(viewer)
