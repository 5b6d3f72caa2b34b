"""Why an answer is not legal now, in the rules' words: for the checker's and the bots' error messages.

:func:`why_illegal` reads the observation the bot was given (the phase, the drawn card and
where it came from, the hands' sizes and faces, the caller) and says what rule the answer
breaks, then which moves were legal. It is only called on the error path.

>>> import cabo_kit as ck
>>> game = ck.Game(ck.Rules.preset("deluxe"), seed=3, n_players=2)
>>> for seat in (0, 1):
...     _ = game.apply(ck.InitialPeek((0, 1)), seat=seat)
>>> _ = game.apply(ck.DrawDiscard())
>>> obs = game.observation(game.to_move[0])
>>> print(why_illegal(obs, obs.legal_actions, ck.Discard()))
you took this card from the discard pile, so you must keep it: exchange it for one of your cards (legal now: exchange 0, exchange 1, exchange 2, exchange 3, exchange 0,1, exchange 0,2, exchange 0,3, exchange 1,2, exchange 1,3, exchange 2,3, exchange 0,1,2, exchange 0,1,3, ...)
"""

from __future__ import annotations

from typing import Any, Sequence

from .actions import (
    Action, CallCabo, Discard, DrawDeck, DrawDiscard, Exchange, Give, InitialPeek, Pass, Peek, Place, Snap, Spy, Swap,
)
from .observation import Phase
from .rules import Power

__all__ = ["why_illegal", "legal_text", "not_an_action", "not_legal"]

MOMENT = {
    Phase.LOOK: "the look at your cards before the round: answer which of your cards you look at",
    Phase.CHOOSE: "the start of your turn: draw from the deck ('deck'), take the discard pile's top card ('take')"
              " or call Cabo ('cabo') where allowed",
    Phase.DRAWN: "the moment to keep the card you drew ('exchange' it for one of your cards) or to 'discard' it",
    Phase.SNAP: "a snap window: claim one face-down card ('snap seat:position') or 'pass'",
    Phase.PLACE: "after exchanging several cards: say where the card goes ('place index')",
    Phase.END_TURN: "the end of your turn: call Cabo ('cabo') or 'pass'",
}
"""What each moment asks, in the rules' words; the power, swap and give moments depend on the rules (:func:`_moment`)."""

_POWER_NAME = {Power.PEEK: "peek", Power.SPY: "spy", Power.SWAP: "swap", Power.PEEK_SWAP: "peek-then-swap",
               Power.SPY_SWAP: "spy-then-swap"}
_POWER_USE = {
    Power.PEEK: "peek at one of your face-down cards ('peek position')",
    Power.SPY: "spy on a face-down card of another player ('spy seat:position')",
    Power.SWAP: "swap one of your cards with another player's ('swap own seat:position')",
    Power.PEEK_SWAP: "first peek at one of your face-down cards ('peek position'), then you may swap",
    Power.SPY_SWAP: "first spy on a face-down card of another player ('spy seat:position'), then you may swap it",
}


def _moment(phase: Phase, obs: Any) -> str | None:
    """What this moment asks of the player, for the rules and the power in play (``docs/rules.md``, "A turn",
    steps 4 to 6)."""
    rules, power = obs.rules, obs.power
    if phase == Phase.POWER:
        card = "drew" if rules.power_timing == "before_discard" else "discarded"
        return (f"the {_POWER_NAME.get(power, power)} power of the card you {card}: "
                f"{_POWER_USE.get(power, 'use it')} or 'pass'")
    if phase == Phase.SWAP:
        if power == Power.SPY_SWAP:
            return ("the swap of a spy-then-swap: you have already spied; now swap the card you spied on with one of "
                    "yours ('swap own seat:position') or 'pass'")
        return ("the swap of a peek-then-swap: you have already peeked; now 'swap own seat:position' (any card of "
                "another player) or 'pass'")
    if phase == Phase.GIVE:
        if rules.snap_give == "optional":
            return ("after snapping another player's card: give them one of your cards ('give position') or 'pass' "
                    "(giving is optional in these rules)")
        return ("after snapping another player's card: the card you give them ('give position'; in these rules you "
                "must give one)")
    return MOMENT.get(phase)


def legal_text(legal: Sequence[Action], limit: int = 12) -> str:
    """The legal actions as text, the first ``limit`` of them.

    >>> legal_text((Pass(), Peek(0), Peek(1)), limit=2)
    'pass, peek 0, ...'
    """
    shown = [str(a) for _, a in zip(range(limit), legal)]
    more = ", ..." if len(legal) > limit else ""
    return ", ".join(shown) + more


def _positions(n: int) -> str:
    if n == 0:
        return "no cards"
    return f"{n} card{'s' if n != 1 else ''} (positions 0 to {n - 1})" if n > 1 else "1 card (position 0)"


def _bad_position(obs: Any, seat: int, position: int, whose: str) -> str | None:
    """A sentence if ``seat``/``position`` names no card on the table, else ``None``."""
    n = obs.n_players
    if not 0 <= seat < n:
        return f"there is no seat {seat}: this table has {n} players (seats 0 to {n - 1})"
    size = len(obs.hands[seat])
    if not 0 <= position < size:
        holder = "you hold" if seat == obs.seat else f"seat {seat} holds"
        return f"there is no position {position} in {whose}: {holder} {_positions(size)}"
    return None


def _bad_positions(positions: Sequence[int], held: int) -> str | None:
    """A sentence if ``positions`` name a card you do not hold, or are not in increasing order, each once."""
    for p in positions:
        if not 0 <= p < held:
            return f"there is no position {p} in your hand: you hold {_positions(held)}"
    if list(positions) != sorted(set(positions)):
        return "list positions in increasing order, each once"
    return None


def _face_up(obs: Any, seat: int, position: int) -> bool:
    try:
        return bool(obs.face_up[seat][position])
    except (IndexError, TypeError):
        return False


def _why(obs: Any, legal: Sequence[Action], action: Action) -> str | None:
    phase = obs.phase
    rules = obs.rules
    me = obs.seat
    mine = len(obs.hands[me]) if obs.hands else 0
    if phase == Phase.CHOOSE:
        if isinstance(action, CallCabo):
            if obs.caller is not None:
                who = "you" if obs.caller == me else f"seat {obs.caller}"
                return f"Cabo was already called this round (by {who}): it can be called only once a round"
            if rules.cabo_timing == "end_of_turn":
                return "in these rules Cabo is called at the end of your own turn, not instead of it: draw first"
            return "Cabo cannot be called now (a hand has become empty this round)"
        if isinstance(action, DrawDiscard):
            if not obs.discard:
                return "the discard pile is empty: draw from the deck"
            if not mine:
                return "you hold no card to exchange it for, and a card taken from the discard pile must be kept"
        if isinstance(action, DrawDeck):
            return "the deck is empty (and nothing can be reshuffled into it)"
    if phase == Phase.DRAWN:
        if isinstance(action, Discard) and obs.drawn_from == "discard":
            return "you took this card from the discard pile, so you must keep it: exchange it for one of your cards"
        if isinstance(action, Exchange):
            if not action.positions:
                return "an exchange names at least one of your cards"
            bad = _bad_positions(action.positions, mine)
            if bad:
                return bad
            if len(action.positions) > 1 and not rules.multi_exchange:
                return "these rules exchange the drawn card for one card only (several cards: deluxe only)"
    if phase == Phase.LOOK and isinstance(action, InitialPeek):
        k = rules.initial_peeks
        bad = _bad_positions(action.positions, mine)
        if bad:
            return bad
        if len(action.positions) != k:
            return f"you look at exactly {k} different card{'s' if k != 1 else ''} of your own"
    if phase == Phase.SNAP and isinstance(action, Snap):
        bad = _bad_position(obs, action.seat, action.position, "that hand")
        if bad:
            return bad
        if _face_up(obs, action.seat, action.position):
            return "that card is face up: a snap claims a face-down card"
    if phase in (Phase.POWER, Phase.SWAP):
        power = obs.power
        if phase == Phase.SWAP and isinstance(action, (Peek, Spy)):
            return f"this is {_moment(phase, obs)}"
        if isinstance(action, Peek):
            if power not in (Power.PEEK, Power.PEEK_SWAP):
                return "peeking at your own card is not this card's power"
            bad = _bad_position(obs, me, action.position, "your hand")
            if bad:
                return bad
            if _face_up(obs, me, action.position):
                return "that card is face up already: peek at one of your face-down cards"
        if isinstance(action, Spy):
            if power not in (Power.SPY, Power.SPY_SWAP):
                return "spying on another player's card is not this card's power"
            if action.seat == me:
                return "spy looks at another player's card, not your own"
            bad = _bad_position(obs, action.seat, action.position, "that hand")
            if bad:
                return bad
            if _face_up(obs, action.seat, action.position):
                return "that card is face up already: spy on a face-down card"
        if isinstance(action, Swap):
            if power in (Power.PEEK, Power.SPY):
                return "this card's power does not swap"
            if phase == Phase.POWER and power in (Power.PEEK_SWAP, Power.SPY_SWAP):
                first = "peek at one of your own cards" if power == Power.PEEK_SWAP else "spy on another player's card"
                return (f"a {_POWER_NAME[power]} swaps only after its first step: {first} first, then you may swap "
                        f"(or 'pass')")
            if action.seat == me:
                return "a swap exchanges one of your cards with another player's, not two of your own"
            bad = _bad_position(obs, me, action.own, "your hand") or _bad_position(
                obs, action.seat, action.position, "that hand")
            if bad:
                return bad
            if obs.target is not None and (action.seat, action.position) != tuple(obs.target):
                s, p = obs.target
                return f"after spying, the swap is with exactly the card you looked at (seat {s}, position {p})"
    if phase == Phase.GIVE:
        if isinstance(action, Give):
            bad = _bad_position(obs, me, action.position, "your hand")
            if bad:
                return bad
        if isinstance(action, Pass) and rules.snap_give == "mandatory":
            return ("in these rules the give after a snap is mandatory: give the player one of your cards "
                    "('give position')")
    if phase == Phase.PLACE and isinstance(action, Place):
        options = [a.index for a in legal if isinstance(a, Place)]
        return f"the card goes at one of positions {', '.join(map(str, options))}"
    moment = _moment(phase, obs)
    if isinstance(action, Pass) and phase in (Phase.DRAWN, Phase.CHOOSE, Phase.LOOK, Phase.PLACE):
        return f"there is no passing now: this is {moment}"
    kinds = {type(a) for a in legal}
    if type(action) not in kinds and moment is not None:
        return f"this is {moment}"
    return None


def why_illegal(obs: Any, legal: Sequence[Action], action: Action) -> str:
    """Why ``action`` is not legal for the observation's seat now, then the legal moves.

    Falls back to "it is not one of the legal moves now" when no rule is recognised.

    >>> import cabo_kit as ck
    >>> game = ck.Game(ck.Rules.preset("deluxe"), seed=3, n_players=2)
    >>> for seat in (0, 1):
    ...     _ = game.apply(ck.InitialPeek((0, 1)), seat=seat)
    >>> obs = game.observation(game.to_move[0])
    >>> print(why_illegal(obs, obs.legal_actions, ck.Peek(0)))
    this is the start of your turn: draw from the deck ('deck'), take the discard pile's top card ('take') or call Cabo ('cabo') where allowed (legal now: deck, take, cabo)
    """
    try:
        reason = _why(obs, legal, action)
    except Exception:  # noqa: BLE001 - an explanation must never hide the fault it explains
        reason = None
    return f"{reason or 'it is not one of the legal moves now'} (legal now: {legal_text(legal)})"


def not_an_action(answer: Any, error: Exception | None = None) -> str:
    """What is wrong with a ``choose()`` answer that is no action: ``error`` is why its text did not parse.

    The one wording of this fault, in process, in a bot's own process (``harness.py``) and in the engine's.

    >>> not_an_action(0)
    "choose() returned 0 (int), which is not an action: return one of legal_actions (an Action, or its text such as 'deck'), e.g. legal_actions[0]"
    """
    if isinstance(answer, str) and error is not None:
        return f"choose() returned {answer!r:.120}, which is not an action: {error}"
    return (f"choose() returned {answer!r:.120} ({type(answer).__name__}), which is not an action: return one of "
            "legal_actions (an Action, or its text such as 'deck'), e.g. legal_actions[0]")


def not_legal(action: Action, obs: Any, legal: Sequence[Action]) -> str:
    """What is wrong with a ``choose()`` answer that is an action but not a legal one now, and why (:func:`why_illegal`).

    >>> not_legal(Peek(0), None, (Pass(),))
    "choose() returned 'peek 0', which is not legal now: it is not one of the legal moves now (legal now: pass)"
    """
    return f"choose() returned {str(action)!r:.120}, which is not legal now: {why_illegal(obs, legal, action)}"
