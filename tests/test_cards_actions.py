"""Cards, decks, actions and LegalActions (RULES.md §2 deck row, §8 reference numbers)."""

from __future__ import annotations

from collections import Counter

import pytest

import cabo_kit as ck
from cabo_kit import Action, ActionParseError, Card, CardParseError, Exchange, LegalActions, Rules
from cabo_kit.cards import UNKNOWN, deluxe_deck, standard_deck

from rulecase import hand, new_game, run


# ---------------------------------------------------------------- §8 decks

@pytest.mark.parametrize(
    "preset, n_players, size, total",
    [
        ("deluxe", 2, 52, 338),   # §8: deluxe deck 52 cards, sum 338
        ("deluxe", 5, 52, 338),
        ("deluxe", 6, 104, 676),  # §8: two decks for 6 players
        ("rush", 2, 52, 338),     # §8: same values as deluxe, with suits
        ("rush", 6, 52, 338),     # rush never doubles the deck
        ("traveller", 3, 54, 336),  # §8: 52 + 2 jokers (-1 each)
        ("traveller", 6, 54, 336),
    ],
)
def test_full_deck_size_and_sum(preset: str, n_players: int, size: int, total: int) -> None:
    deck = Rules.preset(preset).full_deck(n_players)
    assert len(deck) == size == Rules.preset(preset).deck_size(n_players)
    assert sum(c.value for c in deck) == total
    # §8 mean 6.5 for the 52-card decks
    if size % 52 == 0:
        assert total / size == 6.5


def test_deluxe_deck_value_counts() -> None:
    # §2: values 0 and 13 twice each, 1..12 four times each
    counts = Counter(c.value for c in deluxe_deck())
    assert counts == Counter({0: 2, 13: 2, **{v: 4 for v in range(1, 13)}})
    assert Counter(c.value for c in deluxe_deck(2)) == Counter({k: 2 * v for k, v in counts.items()})


def test_standard_deck_values_match_deluxe_values() -> None:
    # §8: the rush deck has the same values as the deluxe deck
    assert Counter(c.value for c in standard_deck()) == Counter(c.value for c in deluxe_deck())
    assert len(set(standard_deck())) == 52


@pytest.mark.parametrize(
    "text, value, color",
    [
        ("KH", 0, "red"), ("KD", 0, "red"),        # §2: red K = 0
        ("KS", 13, "black"), ("KC", 13, "black"),  # black K = 13
        ("AS", 1, "black"), ("10H", 10, "red"), ("JD", 11, "red"), ("QC", 12, "black"),
        ("JOKER", -1, ""),                          # §2 traveller: jokers -1
        ("0", 0, ""), ("13", 13, ""),
    ],
)
def test_card_values(text: str, value: int, color: str) -> None:
    card = Card.parse(text)
    assert card.value == value and card.color == color and card.known


def test_traveller_deck_has_two_jokers_and_rush_none() -> None:
    assert Counter(c.text for c in Rules.preset("traveller").full_deck(4))["JOKER"] == 2
    assert "JOKER" not in {c.text for c in Rules.preset("rush").full_deck(4)}


# ---------------------------------------------------------------- cards

@pytest.mark.parametrize("card", sorted(set(standard_deck(jokers=1)) | set(deluxe_deck()), key=lambda c: c.text))
def test_card_text_round_trip(card: Card) -> None:
    assert Card.parse(str(card)) is card
    assert Card.parse(card.text.lower()) is card
    assert Card.parse(f"  {card.text} ") is card


@pytest.mark.parametrize("alias, text", [("TS", "10S"), ("th", "10H"), (7, "7"), (0, "0"), ("joker", "JOKER"), ("qd", "QD")])
def test_card_aliases(alias: object, text: str) -> None:
    assert Card.parse(alias) is Card.parse(text)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", ["1X", "14", "-1", "", "11S", "KK", "Q", "10X", "JOKERS", "1 S"])
def test_card_parse_errors_name_the_forms(bad: str) -> None:
    with pytest.raises(CardParseError, match="is not a card") as err:
        Card.parse(bad)
    assert "'QD'" in str(err.value) and "JOKER" in str(err.value)


@pytest.mark.parametrize("bad", [None, 3.5, True, ["QD"]])
def test_card_parse_rejects_non_text(bad: object) -> None:
    with pytest.raises(CardParseError):
        Card.parse(bad)  # type: ignore[arg-type]


def test_cards_are_immutable_and_unknown_is_unknown() -> None:
    with pytest.raises(AttributeError):
        Card.parse("QD").value = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        Card()
    assert UNKNOWN.value is None and not UNKNOWN.known and str(UNKNOWN) == "??"


# ---------------------------------------------------------------- actions

ACTIONS = [
    ("look 0,3", ck.InitialPeek((0, 3))),
    ("look 0,1,2", ck.InitialPeek((0, 1, 2))),
    ("deck", ck.DrawDeck()),
    ("take", ck.DrawDiscard()),
    ("cabo", ck.CallCabo()),
    ("discard", ck.Discard()),
    ("exchange 2", Exchange((2,))),
    ("exchange 0,2,3", Exchange((0, 2, 3))),
    ("place 4", ck.Place(4)),
    ("peek 1", ck.Peek(1)),
    ("spy 2:1", ck.Spy(2, 1)),
    ("swap 0 2:1", ck.Swap(0, 2, 1)),
    ("snap 1:3", ck.Snap(1, 3)),
    ("give 3", ck.Give(3)),
    ("pass", ck.Pass()),
]


@pytest.mark.parametrize("text, action", ACTIONS)
def test_action_text_round_trip(text: str, action: Action) -> None:
    assert Action.parse(text) == action
    assert str(action) == text
    assert Action.parse(str(action)) == action
    assert Action.parse("  " + text.upper() + " ") == action
    assert Action.parse(action) is action


@pytest.mark.parametrize("text, action", ACTIONS)
def test_each_action_exists_once_so_equal_is_the_same_object(text: str, action: Action) -> None:
    import copy
    import pickle

    assert Action.parse(text) is action
    assert pickle.loads(pickle.dumps(action)) is action and copy.copy(action) is action
    assert copy.deepcopy(action) is action and hash(action) == hash(Action.parse(text))
    with pytest.raises((AttributeError, TypeError)):  # frozen (dataclasses' slots raise TypeError on 3.11)
        action.position = 9  # type: ignore[attr-defined, misc]


def test_actions_made_by_keyword_or_from_lists_are_the_same_objects() -> None:
    from cabo_kit import Spy, Swap

    assert Swap(own=0, seat=2, position=1) is Swap(0, 2, position=1) is Swap(0, 2, 1)
    assert Exchange([0, 2]) is Exchange((0, 2)) and Exchange(positions=(1,)) is Exchange((1,))
    assert Spy(1, 0) != Spy(0, 1) and Spy(1, 0) == Spy(1, 0)
    with pytest.raises(TypeError, match="unexpected keyword argument 'place'"):
        Spy(1, place=0)  # type: ignore[call-arg]


def test_actions_are_interned_with_plain_ints() -> None:
    from cabo_kit import Peek

    assert Peek(True) is Peek(1) and type(Peek(True).position) is int  # True must not stand for 1 later
    assert type(Exchange([False, True]).positions[1]) is int
    with pytest.raises(TypeError, match="integer"):
        Peek(1.5)  # type: ignore[arg-type]


def test_exchange_positions_are_sorted_when_parsed() -> None:
    assert Action.parse("exchange 3,0") == Exchange((0, 3))


@pytest.mark.parametrize(
    "bad, hint",
    [
        ("fly 3", "starts with one of"),
        ("", "starts with one of"),
        ("peek", "peek 1"),
        ("peek -1", "peek 1"),
        ("peek x", "peek 1"),
        ("spy 1", "spy 2:1"),
        ("spy 1:-2", "spy 2:1"),
        ("swap 0", "swap 0 2:1"),
        ("swap 0 1", "swap 0 2:1"),
        ("exchange 1,1", "exchange"),
        ("exchange", "exchange"),
        ("look a,b", "look 0,1"),
        ("deck 2", "deck"),
        ("pass now", "pass"),
        ("snap 1:2 3", "snap 2:1"),
        ("give", "give 3"),
        ("place -1", "place 0"),
    ],
)
def test_action_parse_errors(bad: str, hint: str) -> None:
    with pytest.raises(ActionParseError, match="is not an action") as err:
        Action.parse(bad)
    assert hint in str(err.value)


def test_action_parse_rejects_non_text() -> None:
    with pytest.raises(ActionParseError):
        Action.parse(3)  # type: ignore[arg-type]


# ---------------------------------------------------------------- LegalActions (§4 multi-exchange)

def _subsets(m: int) -> list[Exchange]:
    from itertools import combinations

    return [Exchange(c) for k in range(2, m + 1) for c in combinations(range(m), k)]


@pytest.mark.parametrize("m", [2, 3, 4, 6, 8])
def test_legal_actions_enumerates_every_multi_exchange(m: int) -> None:
    fixed = (ck.Discard(),) + tuple(Exchange((p,)) for p in range(m))
    legal = LegalActions(fixed, hand_size=m)
    expected = list(fixed) + _subsets(m)
    assert len(legal) == len(expected) == 1 + m + 2**m - m - 1
    assert list(legal) == expected
    assert [legal[i] for i in range(len(legal))] == expected
    assert [legal[-i] for i in range(1, len(legal) + 1)] == expected[::-1]
    assert all(a in legal for a in expected)
    assert legal.index(expected[-1]) == len(expected) - 1


@pytest.mark.parametrize("m", [0, 1, 2, 5, 11])
def test_legal_actions_len_in_and_index_agree_with_the_full_list(m: int) -> None:
    # len, in and [i] answer an ordinary action from the tuple before anything else: the answers are the full list's,
    # for every index kind a caller may pass (an int, a bool, a numpy-like int) and past the listed sizes (11: unranked)
    import numpy as np

    for fixed in [(), (ck.Discard(),) + tuple(Exchange((p,)) for p in range(m))]:
        legal = LegalActions(fixed, hand_size=m)
        expected = list(fixed) + _subsets(m)
        assert len(legal) == len(expected)
        for i in list(range(-len(expected), len(expected)))[:300]:
            assert legal[i] is expected[i] and legal[np.int64(i)] is expected[i]
        if expected:
            assert legal[True] is expected[1] if len(expected) > 1 else True
            assert legal[False] is expected[0]
        for bad in (len(expected), -len(expected) - 1):
            with pytest.raises(IndexError):
                legal[bad]
        assert all(a in legal for a in expected[:300])
        assert ck.Pass() not in legal and Exchange((m, m + 1)) not in legal


def test_legal_actions_membership_rejects_out_of_hand_and_bad_forms() -> None:
    legal = LegalActions((ck.Discard(), Exchange((0,)), Exchange((1,)), Exchange((2,)), Exchange((3,))), hand_size=4)
    assert Exchange((0, 4)) not in legal
    assert Exchange((3, 1)) not in legal  # positions must be given sorted, as the parser gives them
    assert Exchange((1, 1)) not in legal
    assert Exchange((4,)) not in legal
    assert Exchange((-1, 2)) not in legal  # a negative position is never in the hand
    assert Exchange((0, 3)) in legal and Exchange((1, 2, 3)) in legal
    forged = object.__new__(Exchange)  # positions that are not ints (made without the constructor) are never legal
    object.__setattr__(forged, "positions", (0.0, 2))
    assert forged not in legal
    assert ck.DrawDeck() not in legal
    with pytest.raises(IndexError):
        legal[len(legal)]
    with pytest.raises(IndexError):
        legal[-len(legal) - 1]


def test_deluxe_drawn_phase_offers_every_multi_exchange() -> None:
    # §4: deluxe may exchange two or more cards; the legal set is exact without being built
    game = new_game("deluxe", "1 2 3 4  5 6 7 8  9  10")
    run(game, "deck")
    legal = game.legal_actions()
    assert isinstance(legal, LegalActions)
    assert len(legal) == 1 + 4 + 11
    assert Exchange((0, 1, 2, 3)) in legal and ck.Discard() in legal
    assert hand(game, 0) == ["1", "2", "3", "4"]


def test_legal_actions_take_a_whole_number_hand_size_only() -> None:
    # 11.0 == 11: a float size once took the int's place in the per-size classes, and len() of a real size-11 tuple
    # then failed (review rev4).
    from cabo_kit.actions import LegalActions

    with pytest.raises(TypeError):
        LegalActions((), 11.0)  # type: ignore[arg-type]
    assert len(LegalActions((), 11)) == 2**11 - 11 - 1
