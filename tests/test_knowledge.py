"""The engine's Knowledge: knowledge follows the card (RULES.md section 7), and its views are always current.

The views observations hand out are kept by the Knowledge methods themselves; these tests drive a
Knowledge through random sequences of its operations and compare its views, after every one, with
views rebuilt from scratch from the hands and what each seat saw.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cabo_kit.cards import UNKNOWN, Card
from cabo_kit.knowledge import Knowledge

FACES = [Card.parse(str(v % 14)) for v in range(40)]


def fresh(n: int = 3, k: int = 4, memory: bool = True) -> Knowledge:
    """A round's Knowledge: seats 0..n-1 dealt k cards each (ids 0..n*k-1); ids from n*k on are in the deck."""
    know = Knowledge(list(FACES), [list(range(s * k, (s + 1) * k)) for s in range(n)], memory)
    return know


def up_faces(know: Knowledge) -> list[Card]:
    """What ``Knowledge.up_faces`` stands for (it is kept, not derived): a card's face where it lies face up."""
    return [face if up else UNKNOWN for face, up in zip(know.faces, know.up)]


def rebuilt(know: Knowledge, seat: int) -> tuple[tuple[Card, ...], ...]:
    source = know.seen[seat] if know.memory else up_faces(know)
    return tuple(tuple(source[c] for c in hand) for hand in know.hands)


def check(know: Knowledge) -> None:
    for seat in range(know.n):
        assert know.views[seat] == rebuilt(know, seat)
    assert know.up_view == tuple(tuple(know.up[c] for c in hand) for hand in know.hands)
    assert know.up_faces == up_faces(know)
    assert know.discard == tuple(know.faces[c] for c in know.pile)
    for seat, hand in enumerate(know.hands):
        assert all(know.owner[c] == seat for c in hand)
    held = [c for hand in know.hands for c in hand] + know.pile
    assert len(held) == len(set(held)), "a card is in two places"


def test_knowledge_follows_the_card_through_a_swap_and_a_blind_swap_teaches_nothing() -> None:
    know = fresh()
    know.see(0, 1)  # seat 0 peeks at its card 1
    before = know.views[0]
    know.swap(0, 1, 2, 3)  # its card 1 and seat 2's card 3 change places, unseen
    assert know.views[0][2][3] == FACES[1] and know.views[0][0][1] == UNKNOWN
    assert know.views[2][2][3] == UNKNOWN, "the receiver learns nothing from a blind swap"
    assert before[0][1] == FACES[1], "a view an observation holds never changes"
    check(know)


def test_a_card_on_the_pile_is_known_to_all_and_a_gathered_pile_is_forgotten() -> None:
    know = fresh()
    old = know.exchange(1, 0, 20, face_up=False, seer=1)  # seat 1 keeps drawn card 20 in place of its card 4
    assert all(know.seen[s][old] == FACES[old] for s in range(3)) and know.public[old]
    assert know.views[1][1][0] == FACES[20] and know.views[0][1][0] == UNKNOWN
    know.land(21)
    moved = know.gather()  # everything but the top becomes the new deck: nobody knows those cards
    assert moved == [old] and know.pile == [21] and know.discard == (FACES[21],)
    assert all(know.seen[s][old] == UNKNOWN for s in range(3)) and not know.public[old]
    check(know)


def test_a_card_turned_up_is_known_to_all_and_stays_known_when_turned_down() -> None:
    know = fresh()
    know.turn(5, True)
    assert know.up_view[1][1] and all(know.views[s][1][1] == FACES[5] for s in range(3))
    know.turn(5, False)
    assert not know.up_view[1][1] and all(know.views[s][1][1] == FACES[5] for s in range(3))
    check(know)


def test_without_memory_a_seat_sees_face_up_cards_only() -> None:
    know = fresh(memory=False)
    know.see(0, 0)
    assert know.views[0][0][0] == UNKNOWN
    know.turn(0, True)
    assert know.views[1][0][0] == FACES[0]
    check(know)


OPERATIONS = st.lists(
    st.tuples(st.sampled_from(["see", "reveal", "turn", "put", "insert", "remove", "swap", "land", "take", "gather",
                               "replace", "look", "reveal_all", "turn_up"]),
              st.integers(0, 2), st.integers(0, 9), st.integers(0, 2), st.integers(0, 9), st.booleans()),
    max_size=40,
)


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(OPERATIONS, st.booleans())
def test_every_operation_keeps_the_views_equal_to_ones_rebuilt_from_scratch(ops: list, memory: bool) -> None:
    know = fresh(memory=memory)
    deck = list(range(12, 40))  # ids not dealt: the deck
    for name, seat, pos, other, pos2, flag in ops:
        hand = know.hands[seat]
        if name == "see" and hand:
            know.see(other, hand[pos % len(hand)])
        elif name == "reveal" and hand:
            know.reveal(hand[pos % len(hand)])
        elif name == "look" and hand:
            cards = sorted({hand[pos % len(hand)], hand[pos2 % len(hand)]})
            assert know.look(other, seat, cards) == tuple(know.faces[c] for c in cards)
            assert all(know.seen[other][c] is know.faces[c] for c in cards)
        elif name == "turn_up" and hand:
            cards = sorted({hand[pos % len(hand)], hand[pos2 % len(hand)]})
            know.turn_up(seat, cards)
            assert all(know.up[c] and know.public[c] for c in cards)
        elif name == "reveal_all":
            know.reveal_all()
            assert all(know.public[c] for h in know.hands for c in h)
        elif name == "turn" and hand:
            know.turn(hand[pos % len(hand)], flag)
        elif name == "put" and hand and deck:
            know.exchange(seat, pos % len(hand), deck.pop(), face_up=flag, seer=other if flag else -1)
        elif name == "insert" and deck:
            know.insert(seat, pos % (len(hand) + 1), deck.pop())
        elif name == "remove" and hand:
            know.land(know.remove(seat, pos % len(hand)))
        elif name == "swap" and hand and know.hands[other]:
            know.swap(seat, pos % len(hand), other, pos2 % len(know.hands[other]))
        elif name == "land" and deck:
            know.land(deck.pop())
        elif name == "take" and know.pile:
            deck.append(know.take())
        elif name == "gather" and len(know.pile) > 1:
            deck.extend(know.gather())
        elif name == "replace" and hand:
            kept = [c for i, c in enumerate(hand) if i != pos % len(hand)]
            gone = [c for c in hand if c not in kept]
            know.replace_hand(seat, kept)
            for c in gone:
                know.land(c)
        check(know)
        copy = know.copy()
        check(copy)
        assert copy.views == know.views and copy.hands == know.hands and copy.hands is not know.hands


def test_a_copy_of_knowledge_dealt_with_tuple_hands_is_independent() -> None:
    know = Knowledge([Card.parse(t) for t in "3 5 9 12".split()], hands=[(0, 1), (2, 3)])  # type: ignore[list-item]
    twin = know.copy()
    twin.hands[0].append(9)
    assert twin.hands == [[0, 1, 9], [2, 3]] and list(map(list, know.hands)) == [[0, 1], [2, 3]]


def test_a_look_at_a_card_that_is_not_there_teaches_nothing() -> None:
    know = Knowledge([Card.parse(t) for t in "3 5 9 12".split()], hands=[[0, 1], [2, 3]])
    with pytest.raises(IndexError):
        know.look(0, 0, [0, 99])
    assert know.seen[0] == [UNKNOWN] * 4 and know.views[0][0] == (UNKNOWN, UNKNOWN)
