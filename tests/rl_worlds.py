"""Other worlds a seat cannot tell apart: the leak property of the RL encodings (issue 21, RULES.md section 7).

A world is a layout of the round's cards. :func:`twin_worlds` plays a game to some point, finds
every card one seat has seen on the way (its own looks, peeks, spies and draws, and every card
shown to all), shuffles the faces of all the other cards among their places (hands, deck), and
deals that second world with the engine (``Game.from_layout``, or a stacked first deck for the
set-up). Replaying the same actions in both worlds, the seat's observations must encode the same
at every step: whatever differs was read from a card the seat never saw.

:func:`differences` runs that check for any ``read(game, seat)`` (an encoding, an env's
``observe``...), so the same worlds test the numpy encoding, the PettingZoo env and OpenSpiel's
information states.

>>> import cabo_kit as ck
>>> from cabo_kit.rl import encode
>>> pair = twin_worlds(ck.Rules.preset("rush"), 3, seat=1, seed=4)
>>> pair.changed > 0                              # some faces the seat never saw differ
True
>>> differences(pair, lambda game, seat: encode(game.observation(seat)))
[]
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from cabo_kit import CallCabo, Card, Game, Rules
from cabo_kit.rl.encoding import action_index

__all__ = ["Worlds", "twin_worlds", "differences", "seen_by"]


@dataclass
class Worlds:
    """Two games one seat cannot tell apart over ``actions``, with a maker for each (fresh games on every call)."""

    seat: int
    make_a: Callable[[], Game]
    make_b: Callable[[], Game]
    actions: list[int]  # the action index's numbers, in order, each for the seat to move then
    changed: int  # how many card places hold another face in world b
    where: str = ""
    rounds: int = 0  # how many round ends the replay crosses
    notes: list[str] = field(default_factory=list)


def seen_by(game: Game, seat: int) -> set[int]:
    """The ids of the cards ``seat`` knows now, and of every card shown to everybody (engine internals, tests only)."""
    know = game.know
    out = {cid for cid, card in enumerate(know.seen[seat]) if card.known}
    out.update(cid for cid, flag in enumerate(know.public) if flag)
    out.update(cid for cid, flag in enumerate(know.up) if flag)
    out.update(know.pile)
    if game.drawn is not None and (game.drawn_from == "discard" or (game.drawn_from == "deck" and game.current == seat)):
        out.add(game.drawn)  # the drawn card: its drawer saw it (one taken from the pile, everybody)
    return out


def _random_layout(rules: Rules, n: int, rng: random.Random) -> dict[str, Any]:
    """A layout at the start of a turn, mid-game: dealt hands (some grown or shrunk), a pile, peeks remembered."""
    full = list(rules.full_deck(n))
    rng.shuffle(full)
    hands = []
    for _ in range(n):
        size = max(1, rules.hand_size + rng.choice([0, 0, 0, 1, -1, 2]))
        hands.append([full.pop() for _ in range(size)])
    discard = [full.pop() for _ in range(rng.randint(1, 6))]
    known = []
    for s in range(n):
        mine = [(s, p) for p in range(len(hands[s])) if rng.random() < 0.4]
        others = [(t, p) for t in range(n) if t != s for p in range(len(hands[t])) if rng.random() < 0.1]
        known.append(mine + others)
    face_up = [[rng.random() < 0.1 for _ in h] for h in hands]
    current = rng.randrange(n)
    caller = rng.choice([None, None, None, (current + 1) % n]) if rules.cabo_timing == "instead" else None
    return {"hands": hands, "discard": discard, "deck": full, "current": current, "start_player": rng.randrange(n),
            "scores": [rng.randrange(0, 90) for _ in range(n)], "round": rng.randrange(0, 4), "turn": rng.randrange(0, 9),
            "caller": caller, "face_up": face_up, "known": known}


def _order(layout: dict[str, Any]) -> list[Card]:
    """The cards of a layout by id, as ``Game.from_layout`` numbers them: hands, the pile, the deck top first."""
    return [c for h in layout["hands"] for c in h] + list(layout["discard"]) + list(layout["deck"])


def _relaid(layout: dict[str, Any], order: list[Card]) -> dict[str, Any]:
    out = dict(layout)
    at = 0
    hands = []
    for h in layout["hands"]:
        hands.append(order[at:at + len(h)])
        at += len(h)
    out["hands"] = hands
    out["discard"] = order[at:at + len(layout["discard"])]
    at += len(layout["discard"])
    out["deck"] = order[at:]
    return out


def twin_worlds(rules: Rules, n: int, seat: int, seed: int, memory: str = "engine", steps: int = 80,
                setup: bool = False, across_rounds: bool = False) -> Worlds:
    """Two worlds ``seat`` cannot tell apart over up to ``steps`` random decisions (module docstring).

    ``setup=False``: a random mid-game layout (``Game.from_layout``); ``setup=True``: a fresh deal
    (a stacked first deck), so the set-up look and the first snap window are covered. The actions
    are drawn (seeded) among the legal ones in the action index. The replay stops before the round
    ends (its end shows every hand), unless ``across_rounds``: then it goes on through round ends
    into the next rounds, and only cards that stay deep in the first round's deck to its end (never
    shown, not the deck's top four: a last step may draw or give a penalty card) differ between the
    worlds; later rounds are dealt from the game's seed, the same in both, as a world the seat cannot
    tell apart may have them.
    """
    rng = random.Random(f"rl-worlds:{seed}")
    index = action_index(rules, n)
    if setup:
        order = list(rules.full_deck(n))
        rng.shuffle(order)
        game_seed = f"w{seed}"

        def make(cards: list[Card]) -> Callable[[], Game]:
            return lambda: Game(rules, game_seed, n, deck=cards, memory=memory)
        make_a = make(order)
    else:
        layout = _random_layout(rules, n, rng)
        order = _order(layout)

        def make(cards: list[Card]) -> Callable[[], Game]:
            relaid = _relaid(layout, cards)
            return lambda: Game.from_layout(rules, seed=f"w{seed}", memory=memory, **relaid)
        make_a = make(order)
    game = make_a()
    start_round = game.round
    seen = seen_by(game, seat)
    crossed = 0
    actions: list[int] = []
    while len(actions) < steps and not game.is_over:
        mover = game.to_move[0]
        legal = index.legal_indices(game.legal_actions(mover), mover)
        choice = int(legal[rng.randrange(len(legal))])
        if index.action(choice, mover) == CallCabo() and len(legal) > 1 and rng.random() < (0.5 if across_rounds else 0.9):
            choice = int(rng.choice([i for i in legal if i != choice]))  # play on: a round's end stops the replay
        trial = game.clone()
        trial.apply(index.action(choice, mover), mover)
        if trial.round != game.round or trial.is_over:
            if not across_rounds or trial.is_over:
                break  # the round's end shows every hand: stop before it
            if game.round == start_round:  # the first round ends: all but the deck's deep cards count as seen
                deep = set(game.deck[:-4])
                seen |= {cid for cid in range(len(order)) if cid not in deep}
            crossed += 1
        elif game.round == start_round:
            seen |= seen_by(trial, seat)
        game = trial
        actions.append(choice)
    hidden = [cid for cid in range(len(order)) if cid not in seen]
    faces = [order[cid] for cid in hidden]
    rng.shuffle(faces)
    other = list(order)
    for cid, face in zip(hidden, faces):
        other[cid] = face
    changed = sum(1 for a, b in zip(order, other) if a is not b)
    where = f"{rules.name} n={n} seat={seat} seed={seed} memory={memory} {'setup' if setup else 'layout'}"
    return Worlds(seat, make_a, make(other), actions, changed, where, rounds=crossed)


def differences(worlds: Worlds, read: Callable[[Game, int], Any], limit: int = 5) -> list[str]:
    """Where ``read(game, seat)`` differs between the two worlds, step by step (empty: the seat cannot tell them apart)."""
    a, b = worlds.make_a(), worlds.make_b()
    index = action_index(a.rules, a.n)
    out: list[str] = []
    for step in range(len(worlds.actions) + 1):
        if not _same(read(a, worlds.seat), read(b, worlds.seat)):
            out.append(f"{worlds.where}: step {step} (phase {a.phase}) reads differently in a world it cannot tell apart")
            if len(out) >= limit:
                break
        if step == len(worlds.actions):
            break
        mover = a.to_move[0]
        action = index.action(worlds.actions[step], mover)
        a.apply(action, mover)
        b.apply(action, mover)  # the same action is legal in both: legality is public
    return out


def _same(x: Any, y: Any) -> bool:
    if isinstance(x, dict):
        return isinstance(y, dict) and x.keys() == y.keys() and all(_same(x[k], y[k]) for k in x)
    if isinstance(x, (tuple, list)):
        return isinstance(y, (tuple, list)) and len(x) == len(y) and all(_same(p, q) for p, q in zip(x, y))
    if isinstance(x, np.ndarray):
        return isinstance(y, np.ndarray) and x.dtype == y.dtype and x.shape == y.shape and bool(np.array_equal(x, y))
    return bool(x == y)

