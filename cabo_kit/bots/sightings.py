"""Who has seen which card on the table, read from the round's public events.

A player keeps the cards they like. So a card an opponent has looked at (an initial peek,
a card they drew and put in, a peek power) is probably low, even when we never saw it:
in counting-bot games such a card is worth about 4.2-4.5 on average against 6.2-6.6 for
one they have not seen (docs/bots.md). The events say *where* they looked, never what they saw,
so this is fair to use. The same events say where they spied, so we also know which of
*our* cards an opponent knows.

Named for what it reads, the sightings of cards in the events (it was ``bots/knowledge.py``): not the engine's
:mod:`cabo_kit.knowledge`, the game's true record of which seat knows which card, which no bot can read; this is
what any player can work out from the public events of its own observation.

>>> import cabo_kit as ck
>>> game = ck.Game(ck.Rules.preset("rush"), seed=3, n_players=3)
>>> their_knowledge(game.observation(0))   # rush: everyone saw the last two positions
[[False, False, True, True], [False, False, True, True], [False, False, True, True]]
>>> who_saw(game.observation(0))[1]        # seat 1's cards: bit s set if seat s has seen it
[0, 0, 2, 2]
"""

from __future__ import annotations

from ..observation import EventKind, Observation

__all__ = ["their_knowledge", "who_saw"]


def who_saw(obs: Observation) -> list[list[int]] | None:
    """For each seat and position, the seats that have seen the card there, as bits (``None`` if the events do not add up).

    Bit ``s`` of ``who_saw(obs)[t][p]`` is set when seat ``s`` has seen seat ``t``'s card at
    position ``p``. Cards move in plain sight, so the bits follow them: a swap or a give
    carries the card's bits along, a multi-exchange or a snap closes the gap, a penalty card
    lands unseen; a card turned up for all (a snap, a failed multi-exchange, a card taken from
    the discard pile) is seen by everyone.
    """
    events = obs.events  # made from the observation's chain ends each time it is read
    if not events or events[0].kind != EventKind.ROUND:
        return None  # not the whole round (no memory)
    if obs.rules.initial_peeks and not any(event.kind == EventKind.LOOK for event in events):
        return None  # a game built from a layout: who knows what is not in the events
    everyone = (1 << obs.n_players) - 1
    size = obs.rules.hand_size
    seen = [[0] * size for _ in range(obs.n_players)]
    picked: tuple[int, ...] = ()
    matched = False
    drawn_mask = 0  # who has seen the card in the current player's hand
    try:
        for event in events:
            kind, seat, target = event.kind, event.seat, event.target
            if kind == EventKind.ROUND:
                seen = [[0] * size for _ in range(obs.n_players)]
            elif seat is None:
                continue
            elif kind == EventKind.LOOK:
                for p in target:
                    seen[seat][p] |= 1 << seat
            elif kind == EventKind.DRAW:
                drawn_mask = 1 << seat
            elif kind == EventKind.TAKE:
                drawn_mask = everyone
            elif kind == EventKind.EXCHANGE:
                seen[seat][target[0]] = drawn_mask
            elif kind == EventKind.PEEK:
                seen[seat][target[0]] |= 1 << seat
            elif kind == EventKind.SPY:
                other, p = target
                seen[other][p] |= 1 << seat
            elif kind == EventKind.SWAP:  # blind: the cards change places, and what anyone knew goes with them
                own, other, p = target
                seen[seat][own], seen[other][p] = seen[other][p], seen[seat][own]
            elif kind == EventKind.MULTI:
                picked, matched = tuple(target), event.info == "ok"
                for p in target:  # turned up for everyone
                    seen[seat][p] = everyone
            elif kind == EventKind.PLACE:
                index = target[0]
                if matched and picked:  # the other picked cards leave, the hand closes up
                    row = [m for p, m in enumerate(seen[seat]) if p not in picked or p == index]
                    row[index - sum(1 for p in picked if p < index)] = drawn_mask
                    seen[seat] = row
                else:  # the drawn card at one end
                    seen[seat].insert(index, drawn_mask)
                picked, matched = (), False
            elif kind == EventKind.PENALTY:
                seen[seat].insert(target[0], 0)
            elif kind == EventKind.SNAP:
                other, p = target
                if event.info == "match":
                    seen[other].pop(p)
                else:  # shown to everyone and put back
                    seen[other][p] = everyone
            elif kind == EventKind.GIVE:
                own, other, p = target
                seen[other].insert(p, seen[seat].pop(own))
    except (IndexError, TypeError, ValueError):
        return None
    if [len(k) for k in seen] != [len(hand) for hand in obs.hands]:
        return None
    return seen


def their_knowledge(obs: Observation) -> list[list[bool]] | None:
    """For each seat and position, whether that seat has seen its own card there (``None`` if the events do not add up)."""
    seen = who_saw(obs)
    if seen is None:
        return None
    return [[bool(mask >> seat & 1) for mask in row] for seat, row in enumerate(seen)]
