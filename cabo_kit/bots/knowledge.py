"""Which cards each player has seen in their own hand, read from the round's public events.

A player keeps the cards they like. So a card an opponent has looked at (an initial peek,
a card they drew and put in, a peek power) is probably low, even when we never saw it:
in counting-bot games such a card is worth about 4.3 on average against 6.3 for one
they have not seen (docs/bots.md). The events say *where* they looked, never what they saw,
so this is fair to use.

>>> import cabo_kit as ck
>>> game = ck.Game(ck.Rules.preset("rush"), seed=3, n_players=3)
>>> their_knowledge(game.observation(0))   # rush: everyone saw the last two positions
[[False, False, True, True], [False, False, True, True], [False, False, True, True]]
"""

from __future__ import annotations

from ..observation import Observation

__all__ = ["their_knowledge"]


def their_knowledge(obs: Observation) -> list[list[bool]] | None:
    """For each seat and position, whether that seat has seen its own card there (``None`` if the events do not add up).

    Cards move in plain sight, so the flags follow them: a swap or a give puts an unseen card
    in the place, a multi-exchange or a snap closes the gap, a penalty card lands unseen.
    """
    if not obs.events or obs.events[0].kind != "round":
        return None  # not the whole round (no memory)
    if obs.rules.initial_peeks and not any(event.kind == "look" for event in obs.events):
        return None  # a game built from a layout: who knows what is not in the events
    size = obs.rules.hand_size
    know = [[False] * size for _ in range(obs.n_players)]
    multi: tuple[tuple[int, ...], bool] | None = None  # picked positions, and whether they matched
    try:
        for event in obs.events:
            kind, seat, target = event.kind, event.seat, event.target
            if kind == "round":
                know = [[False] * size for _ in range(obs.n_players)]
            elif seat is None:
                continue
            elif kind == "look":
                for p in target:
                    know[seat][p] = True
            elif kind in ("exchange", "peek"):
                know[seat][target[0]] = True
            elif kind == "swap":  # blind: neither player has seen the card that arrives
                own, other, p = target
                know[seat][own] = False
                know[other][p] = False
            elif kind == "multi":
                multi = (tuple(target), event.info == "ok")
                if event.info != "ok":  # failed: the picked cards stay, face up
                    for p in target:
                        know[seat][p] = True
            elif kind == "place":
                index = target[0]
                if multi is not None and multi[1]:  # the other picked cards leave, the hand closes up
                    picked = multi[0]
                    know[seat] = [k for p, k in enumerate(know[seat]) if p not in picked or p == index]
                    know[seat][index - sum(1 for p in picked if p < index)] = True
                else:  # the drawn card at one end
                    know[seat].insert(index, True)
                multi = None
            elif kind == "penalty":
                know[seat].insert(target[0], False)
            elif kind == "snap":
                other, p = target
                if event.info == "match":
                    know[other].pop(p)
                else:  # shown to everyone and put back
                    know[other][p] = True
            elif kind == "give":
                own, other, p = target
                know[seat].pop(own)
                know[other].insert(p, False)
    except (IndexError, TypeError, ValueError):
        return None
    if [len(k) for k in know] != [len(hand) for hand in obs.hands]:
        return None
    return know
