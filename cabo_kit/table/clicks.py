"""What a click on the card table means: each click is looked up among the engine's legal actions.

A person's clicks name **targets**: a card ``card:{seat}:{position}``, the ``deck``, the ``discard`` pile or a
button ``btn:{name}``. :func:`targets_of` gives the targets of each legal action; :class:`Chooser` turns clicks
into the one legal action they complete. Legality always comes from the engine's legal actions: a click is looked
up among them, never judged by rules written here. What is shown is :mod:`cabo_kit.table.picture`; how it is
drawn, :mod:`cabo_kit.table.draw`.

Positions are shown to people counting from 1 ("your card 3" is position 2); the actions and the targets
count from 0, as the engine does.

>>> import cabo_kit as ck
>>> game = ck.Game(ck.Rules.preset("deluxe"), seed=1, n_players=2)
>>> chooser = Chooser(game.observation(0))
>>> sorted(chooser.clickable())                 # the set-up look: any of your four cards
['card:0:0', 'card:0:1', 'card:0:2', 'card:0:3']
>>> chooser.click("card:0:3") is None           # one chosen, one more to go
True
>>> chooser.click("card:0:1")
InitialPeek(positions=(1, 3))
"""

from __future__ import annotations

from ..actions import (
    Action, CallCabo, Discard, DrawDeck, DrawDiscard, Exchange, Give, InitialPeek, Pass, Peek, Place, Snap, Spy, Swap,
)
from ..observation import Observation, Phase

__all__ = ["BUTTONS", "Chooser", "card_target", "shows", "targets_of"]

#: Buttons by target, in the order they are shown.
BUTTONS = ("btn:cabo", "btn:discard", "btn:confirm", "btn:left", "btn:right", "btn:pass")
_SINGLE_BUTTONS = frozenset(BUTTONS) - {"btn:confirm"}


def card_target(seat: int, position: int) -> str:
    """The target of a card on the table (and the stable CSS hook ``cabo-s{seat}-p{position}`` of its picture).

    >>> card_target(1, 3)
    'card:1:3'
    """
    return f"card:{seat}:{position}"


def targets_of(action: Action, me: int, obs: Observation) -> frozenset[str]:
    """What a person clicks to take ``action``: card targets ``card:{seat}:{position}``, ``deck``,
    ``discard``, or a button ``btn:{name}``.

    >>> import cabo_kit as ck
    >>> obs = ck.Game(ck.Rules.preset("deluxe"), seed=1, n_players=2).observation(0)
    >>> sorted(targets_of(ck.Swap(0, 1, 2), 0, obs)), sorted(targets_of(ck.DrawDeck(), 0, obs))
    (['card:0:0', 'card:1:2'], ['deck'])
    """
    kind = type(action)
    if kind is DrawDeck:
        return frozenset(("deck",))
    if kind is DrawDiscard:
        return frozenset(("discard",))
    if kind is CallCabo:
        return frozenset(("btn:cabo",))
    if kind is Discard:
        return frozenset(("btn:discard",))
    if kind is Pass:
        return frozenset(("btn:pass",))
    if kind is InitialPeek or kind is Exchange:
        return frozenset(card_target(me, p) for p in action.positions)  # type: ignore[attr-defined]
    if kind is Peek or kind is Give:
        return frozenset((card_target(me, action.position),))  # type: ignore[attr-defined]
    if kind is Spy or kind is Snap:
        return frozenset((card_target(action.seat, action.position),))  # type: ignore[attr-defined]
    if kind is Swap:
        return frozenset((card_target(me, action.own), card_target(action.seat, action.position)))  # type: ignore[attr-defined]
    if kind is Place:
        index = action.index  # type: ignore[attr-defined]
        if obs.exchange_ok:  # after a successful multi-exchange: the drawn card takes one of the picked places
            return frozenset((card_target(me, index),))
        return frozenset(("btn:left",)) if index == 0 else frozenset(("btn:right",))
    raise ValueError(f"the table has no click for {action!r}")  # pragma: no cover - every action kind is above


class Chooser:
    """The person's choice being made with clicks, over the legal actions of one observation.

    Clicks build a selection; as soon as exactly one legal action matches it, :meth:`click`
    returns that action. Where several cards may be exchanged at once (deluxe), an exchange
    waits for ``btn:confirm``, so one card and several cards are chosen the same way.
    In the drawn phase the discard pile is a second way to discard.
    """

    def __init__(self, obs: Observation) -> None:
        me = obs.seat
        legal = obs.legal_actions if me in obs.to_move else ()
        self.options: list[tuple[Action, frozenset[str]]] = [(a, targets_of(a, me, obs)) for a in legal]
        self.confirm = any(type(a) is Exchange and len(a.positions) > 1 for a, _ in self.options)
        self.selected: set[str] = set()
        self.phase = obs.phase
        self._aliases = {"discard": "btn:discard"} if obs.phase == Phase.DRAWN and Discard() in legal else {}

    def _needs_confirm(self, action: Action) -> bool:
        return self.confirm and type(action) is Exchange

    def _candidates(self, selection: set[str]) -> list[tuple[Action, frozenset[str]]]:
        return [(a, t) for a, t in self.options if selection <= t and not (t <= _SINGLE_BUTTONS)]

    def clickable(self) -> set[str]:
        """Every target a click on which means something now (including deselecting a chosen card)."""
        out: set[str] = set(self.selected)
        for action, targets in self.options:
            if targets <= _SINGLE_BUTTONS:
                out |= targets
            elif self.selected <= targets:
                out |= targets
        if self.confirm_action() is not None:
            out.add("btn:confirm")
        for alias, target in self._aliases.items():
            if target in out:
                out.add(alias)
        return out

    def confirm_action(self) -> Action | None:
        """The exchange ``btn:confirm`` would make now, or ``None``."""
        if not self.confirm or not self.selected:
            return None
        for action, targets in self.options:
            if type(action) is Exchange and targets == self.selected:
                return action
        return None

    def click(self, target: str) -> Action | None:
        """Take a click: the action it completes, or ``None`` while a choice is still being made.

        Raises :class:`ValueError` for a target that means nothing now (the table shows
        only clickable targets as such, so that is a stale or forged click).
        """
        target = self._aliases.get(target, target)
        if target == "btn:confirm":
            action = self.confirm_action()
            if action is None:
                raise ValueError("nothing to confirm: choose the cards to exchange first")
            self.selected = set()
            return action
        for action, targets in self.options:
            if targets == {target} and (target in _SINGLE_BUTTONS or target in ("deck", "discard")):
                self.selected = set()
                return action
        if target in self.selected:
            self.selected.discard(target)
            return None
        selection = self.selected | {target}
        candidates = self._candidates(selection)
        if not candidates:
            # A fresh choice: a click that starts over (e.g. another own card for a swap).
            selection = {target}
            candidates = self._candidates(selection)
            if not candidates:
                raise ValueError(f"{target} cannot be chosen now (phase '{self.phase}')")
        self.selected = selection
        exact = [a for a, t in candidates if t == selection]
        if len(candidates) == 1 and exact and not self._needs_confirm(exact[0]):
            self.selected = set()
            return exact[0]
        return None


def shows(button: str, chooser: Chooser) -> bool:
    """Whether a button belongs on the table in this phase (shown, enabled or not).

    >>> import cabo_kit as ck
    >>> chooser = Chooser(ck.Game(ck.Rules.preset("deluxe"), seed=1, n_players=2).observation(0))
    >>> shows("btn:cabo", chooser), shows("btn:confirm", chooser)
    (False, False)
    """
    if button == "btn:confirm":
        return chooser.confirm
    return any(button in targets for _, targets in chooser.options)
