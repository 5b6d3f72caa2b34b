"""Who has seen which card on the table, read from the round's public events.

A player keeps the cards they like. So a card an opponent has looked at (an initial peek,
a card they drew and put in, a peek power) is probably low, even when we never saw it:
in counting-bot games such a card is worth about 4.2-4.5 on average against 6.2-6.6 for
one they have not seen (docs/bots.md). The events say *where* they looked, never what they saw,
so this is fair to use. The same events say where they spied, so we also know which of
*our* cards an opponent knows.

>>> import cabo_kit as ck
>>> game = ck.Game(ck.Rules.preset("rush"), seed=3, n_players=3)
>>> their_knowledge(game.observation(0))   # rush: everyone saw the last two positions
[[False, False, True, True], [False, False, True, True], [False, False, True, True]]
>>> who_saw(game.observation(0))[1]        # seat 1's cards: bit s set if seat s has seen it
[0, 0, 2, 2]
"""

from __future__ import annotations

import math

from ..observation import Observation

__all__ = ["their_knowledge", "who_saw", "value_limits"]


def who_saw(obs: Observation) -> list[list[int]] | None:
    """For each seat and position, the seats that have seen the card there, as bits (``None`` if the events do not add up).

    Bit ``s`` of ``who_saw(obs)[t][p]`` is set when seat ``s`` has seen seat ``t``'s card at
    position ``p``. Cards move in plain sight, so the bits follow them: a swap or a give
    carries the card's bits along, a multi-exchange or a snap closes the gap, a penalty card
    lands unseen; a card turned up for all (a snap, a failed multi-exchange, a card taken from
    the discard pile) is seen by everyone.
    """
    if not obs.events or obs.events[0].kind != "round":
        return None  # not the whole round (no memory)
    if obs.rules.initial_peeks and not any(event.kind == "look" for event in obs.events):
        return None  # a game built from a layout: who knows what is not in the events
    everyone = (1 << obs.n_players) - 1
    size = obs.rules.hand_size
    seen = [[0] * size for _ in range(obs.n_players)]
    picked: tuple[int, ...] = ()
    matched = False
    drawn_mask = 0  # who has seen the card in the current player's hand
    try:
        for event in obs.events:
            kind, seat, target = event.kind, event.seat, event.target
            if kind == "round":
                seen = [[0] * size for _ in range(obs.n_players)]
            elif seat is None:
                continue
            elif kind == "look":
                for p in target:
                    seen[seat][p] |= 1 << seat
            elif kind == "draw":
                drawn_mask = 1 << seat
            elif kind == "take":
                drawn_mask = everyone
            elif kind == "exchange":
                seen[seat][target[0]] = drawn_mask
            elif kind == "peek":
                seen[seat][target[0]] |= 1 << seat
            elif kind == "spy":
                other, p = target
                seen[other][p] |= 1 << seat
            elif kind == "swap":  # blind: the cards change places, and what anyone knew goes with them
                own, other, p = target
                seen[seat][own], seen[other][p] = seen[other][p], seen[seat][own]
            elif kind == "multi":
                picked, matched = tuple(target), event.info == "ok"
                for p in target:  # turned up for everyone
                    seen[seat][p] = everyone
            elif kind == "place":
                index = target[0]
                if matched and picked:  # the other picked cards leave, the hand closes up
                    row = [m for p, m in enumerate(seen[seat]) if p not in picked or p == index]
                    row[index - sum(1 for p in picked if p < index)] = drawn_mask
                    seen[seat] = row
                else:  # the drawn card at one end
                    seen[seat].insert(index, drawn_mask)
                picked, matched = (), False
            elif kind == "penalty":
                seen[seat].insert(target[0], 0)
            elif kind == "snap":
                other, p = target
                if event.info == "match":
                    seen[other].pop(p)
                else:  # shown to everyone and put back
                    seen[other][p] = everyone
            elif kind == "give":
                own, other, p = target
                seen[other].insert(p, seen[seat].pop(own))
    except (IndexError, TypeError, ValueError):
        return None
    if [len(k) for k in seen] != [len(hand) for hand in obs.hands]:
        return None
    return seen


def value_limits(obs: Observation, take_gain: float = 3.0, info_bonus: float = 3.0) -> list[list[float]] | None:
    """For each seat and position, a value the card there is probably below (``inf``: no idea).

    A player who keeps cards by their points leaves traces in the events. We read them as a
    counting player would have played (``take_gain`` and ``info_bonus`` are its numbers):

    - they put a card drawn from the deck in place of a card worth ``x`` (shown as it left;
      about the average plus ``info_bonus`` if they had not seen it): the new card is below
      ``x``, and every other card they knew was worth at most ``x``;
    - they discarded the card they drew, worth ``v``: every card they knew was worth at most
      ``v`` (1.5 more when the card had a power they wanted);
    - they drew from the deck rather than take a low top card ``t`` (5 or less): every card
      they knew was below ``t`` plus what taking it would have had to gain.

    Limits are facts about cards, so they follow the cards as they move (swaps, gives).

    >>> import cabo_kit as ck
    >>> game = ck.Game(ck.Rules.preset("deluxe"), seed=7, n_players=2, start_player=0, deck="3 5 9 12  1 1 4 6  7  2")
    >>> _ = game.apply("look 0,1", seat=0); _ = game.apply("look 2,3", seat=1)
    >>> _ = game.apply("deck"); _ = game.apply("exchange 1")        # seat 0 keeps the 2 in place of its 5
    >>> value_limits(game.observation(1))[0]                        # so the new card is below 5, the 3 at most 5
    [6.0, 5.0, inf, inf]
    """
    if who_saw(obs) is None:
        return None
    rules = obs.rules
    deck = [c.value for c in rules.full_deck(obs.n_players) if c.value is not None]
    typical = sum(deck) / len(deck) + info_bonus  # what an unseen card of one's own is worth to a counting player
    needed = take_gain + (2 if rules.snapping else 0)
    inf = float("inf")
    n, size, me = obs.n_players, rules.hand_size, obs.seat
    everyone = (1 << n) - 1
    limit = [[inf] * size for _ in range(n)]
    masks = [[0] * size for _ in range(n)]  # who has seen each card, as in who_saw
    pile: list[int] = []
    picked: tuple[int, ...] = ()
    faces: list[int] = []
    matched = False
    drawn_from = ""

    def at_most(seat: int, worth: float) -> None:
        """Every card ``seat`` knows in its hand is worth at most ``worth``."""
        if seat != me:
            below = float(math.floor(worth) + 1)
            for p, mask in enumerate(masks[seat]):
                if mask >> seat & 1:
                    limit[seat][p] = min(limit[seat][p], below)

    try:
        for event in obs.events:
            kind, seat, target = event.kind, event.seat, event.target
            face = event.cards[0].value if event.cards else None
            if kind == "round":
                limit = [[inf] * size for _ in range(n)]
                masks = [[0] * size for _ in range(n)]
                pile = []
            elif kind == "flip" and face is not None:
                pile.append(face)
            elif kind == "reshuffle":
                pile = pile[-1:]
            elif seat is None:
                continue
            elif kind == "look":
                for p in target:
                    masks[seat][p] |= 1 << seat
            elif kind == "draw":
                drawn_from = "deck"
                if pile and pile[-1] <= 5 and masks[seat]:
                    at_most(seat, pile[-1] + needed - 0.5)  # taking it would have gained enough
            elif kind == "take":
                drawn_from = "discard"
                pile.pop()
            elif kind == "discard" and face is not None:
                if drawn_from == "deck":
                    at_most(seat, face + (1.5 if rules.power_of(event.cards[0]) is not None else 0.0))
                pile.append(face)
            elif kind == "exchange":
                p = target[0]
                old = event.cards[0].value
                worth = float(old) if masks[seat][p] >> seat & 1 and old is not None else typical
                if drawn_from == "deck":
                    at_most(seat, worth)  # it replaced its worst card
                masks[seat][p] = (1 << seat) if drawn_from == "deck" else everyone
                limit[seat][p] = worth if drawn_from == "deck" and seat != me else inf
                if old is not None:
                    pile.append(old)
            elif kind == "peek":
                masks[seat][target[0]] |= 1 << seat
            elif kind == "spy":
                masks[target[0]][target[1]] |= 1 << seat
            elif kind == "swap":
                own, other, p = target
                masks[seat][own], masks[other][p] = masks[other][p], masks[seat][own]
                limit[seat][own], limit[other][p] = limit[other][p], limit[seat][own]
            elif kind == "multi":
                picked, matched = tuple(target), event.info == "ok"
                faces = [c.value for c in event.cards if c.value is not None]
                for p in target:
                    masks[seat][p] = everyone
            elif kind == "place":
                index = target[0]
                mask = (1 << seat) if drawn_from == "deck" else everyone
                if matched and picked:  # the picked cards go to the pile, the drawn card takes one place
                    keep = [p for p in range(len(masks[seat])) if p not in picked or p == index]
                    masks[seat] = [masks[seat][p] for p in keep]
                    limit[seat] = [limit[seat][p] for p in keep]
                    at = index - sum(1 for p in picked if p < index)
                    masks[seat][at], limit[seat][at] = mask, inf
                    pile += faces
                else:
                    masks[seat].insert(index, mask)
                    limit[seat].insert(index, inf)
                picked, matched = (), False
            elif kind == "penalty":
                masks[seat].insert(target[0], 0)
                limit[seat].insert(target[0], inf)
            elif kind == "snap":
                other, p = target
                if event.info == "match":
                    masks[other].pop(p)
                    limit[other].pop(p)
                    if face is not None:
                        pile.append(face)
                else:
                    masks[other][p] = everyone
            elif kind == "give":
                own, other, p = target
                masks[other].insert(p, masks[seat].pop(own))
                limit[other].insert(p, limit[seat].pop(own))
    except (IndexError, TypeError, ValueError):
        return None
    if [len(row) for row in limit] != [len(hand) for hand in obs.hands]:
        return None
    return limit


def their_knowledge(obs: Observation) -> list[list[bool]] | None:
    """For each seat and position, whether that seat has seen its own card there (``None`` if the events do not add up)."""
    seen = who_saw(obs)
    if seen is None:
        return None
    return [[bool(mask >> seat & 1) for mask in row] for seat, row in enumerate(seen)]
