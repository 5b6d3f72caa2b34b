"""What the card table shows, in one place: the picture of one moment (:class:`TableState`) built from the game
as one seat may know it (:func:`table_state`), and the words on it: the log, the status line, the buttons.

The notebook's table and replay (:mod:`cabo_kit.table.widget`) and the portal's replay page all take their
picture from here and draw it with :func:`cabo_kit.table.draw.render_table`; what a click means is
:mod:`cabo_kit.table.clicks`. Everything is plain Python over the engine's public API (observations, the open
hands for a spectator), so it is tested without a browser.

>>> import cabo_kit as ck
>>> game = ck.Game(ck.Rules.preset("rush"), seed=1, n_players=2)
>>> state = table_state(game, 0, seat_names(2, 0), "Your move.")
>>> [card.text for card in state.hands[1]], state.deck_size, state.to_move
(['??', '??', '??', '??'], 43, (0, 1))
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

from ..actions import CallCabo, Discard, Pass
from ..cards import Card
from ..observation import Event, EventKind, Observation, Phase
from ..rules import Power
from .clicks import Chooser, card_target

if TYPE_CHECKING:
    from ..game import Game
    from ..rules import Rules

__all__ = ["NAMES", "TableState", "button_label", "describe", "powers_of", "reveals", "seat_names", "status_text",
           "table_state", "touched"]

#: Names for the seats that bots play (the person is "You").
NAMES = ("Ada", "Bea", "Cy", "Dee", "Eli", "Flo", "Gus", "Hal")


def seat_names(n: int, person: int | None) -> list[str]:
    """The names the table uses: "You" for the person's seat, a short name for each other seat.

    >>> seat_names(3, 0), seat_names(2, None)
    (['You', 'Bea', 'Cy'], ['Ada', 'Bea'])
    """
    return ["You" if s == person else NAMES[s % len(NAMES)] for s in range(n)]


@dataclass
class TableState:
    """What the table shows at one moment, before it is drawn (tests read it; :func:`render_table` draws it).

    ``hands[seat]`` are the faces shown (``??`` where hidden) and ``face_up`` their flags;
    ``clickable`` the targets that mean something now; ``highlight`` the targets the last move touched.
    """

    n: int
    seat: int | None
    names: list[str]
    labels: list[str]
    hands: list[tuple[Card, ...]]
    face_up: list[tuple[bool, ...]]
    discard_top: Card | None
    pile_size: int
    deck_size: int
    drawn: Card | None
    drawn_by: int | None
    current: int | None
    caller: int | None
    to_move: tuple[int, ...]
    scores: tuple[int, ...]
    round_scores: tuple[tuple[int, ...], ...]
    round: int
    status: str
    powers: Mapping[str, str | None] = field(default_factory=dict)
    clickable: set[str] = field(default_factory=set)
    selected: set[str] = field(default_factory=set)
    highlight: set[str] = field(default_factory=set)
    buttons: list[tuple[str, str]] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    notice: str = ""
    overlay: str = ""
    busy: bool = False
    rules: "Rules | None" = None
    seed: int | str | None = None


@functools.lru_cache(maxsize=64)
def powers_of(rules: "Rules", n: int) -> "dict[str, Power | None]":
    """Each card's power under ``rules`` by its text, for a table of ``n`` players (the deck may grow with ``n``).

    >>> import cabo_kit as ck
    >>> powers_of(ck.Rules.preset("deluxe"), 2)["7"]
    <Power.PEEK: 'peek'>
    """
    return {c.text: rules.power_of(c) for c in set(rules.full_deck(n))}


def table_state(game: "Game", seat: int | None, names: Sequence[str], status: str, *,
                labels: Sequence[str] | None = None, ended: bool = False, pile_top_only: bool = False,
                reveal: Mapping[tuple[int, int], Card] | None = None, log: Sequence[str] = (),
                highlight: Iterable[str] = (), clickable: Iterable[str] = (), selected: Iterable[str] = (),
                buttons: Sequence[tuple[str, str]] = (), notice: str = "", overlay: str = "",
                seed: int | str | None = None) -> TableState:
    """The picture of ``game`` now as ``seat`` may know it (``None``: a spectator, every card face up).

    ``ended``: the round that just ended stays on the table, every hand turned up behind its scoring, with its
    piles; ``pile_top_only``: a player keeping no record sees only the pile's top card; ``reveal``: faces the
    seat saw a moment ago, flashed in their places (``{(seat, position): card}``). The rest is shown as given.
    Only the engine's public API is read: the seat's observation, and the open hands for a spectator.
    """
    obs = game.observation(seat if seat is not None else game.current)
    result = game.results[-1] if ended and game.results else None
    top, pile, deck = obs.top, len(obs.discard), obs.deck_size
    drawn: Card | None
    if result is not None:
        hands = [tuple(h) for h in result.final_hands]
        drawn = None
        if game.last_round_piles is not None:
            top, pile, deck = game.last_round_piles
        face_up = [(False,) * len(h) for h in hands]
    else:
        if seat is None:
            hands, drawn = [tuple(h) for h in game.open_hands()], game.drawn_card
        else:
            hands, drawn = [tuple(h) for h in obs.hands], obs.drawn
        face_up = [tuple(f) for f in obs.face_up]
    if pile_top_only and pile:
        pile = 1
    for (s, p), card in (reveal or {}).items():
        if s < len(hands) and p < len(hands[s]):
            hands[s] = hands[s][:p] + (card,) + hands[s][p + 1:]
    still = result is None and not game.is_over
    return TableState(
        n=game.n, seat=seat, names=list(names), labels=list(labels) if labels is not None else ["" for _ in range(game.n)],
        hands=hands, face_up=face_up, discard_top=top, pile_size=pile, deck_size=deck, drawn=drawn,
        drawn_by=obs.current if drawn is not None else None, current=obs.current if still else None,
        caller=result.caller if result is not None else obs.caller,
        to_move=() if result is not None else tuple(game.to_move),
        scores=obs.scores, round_scores=obs.round_scores, round=result.index if result is not None else obs.round,
        status=status, powers=powers_of(game.rules, game.n), clickable=set(clickable), selected=set(selected),
        highlight=set(highlight), buttons=list(buttons), log=list(log), notice=notice, overlay=overlay,
        rules=game.rules, seed=seed,
    )


def touched(events: Iterable[Event]) -> set[str]:
    """The table's places a few events touched, to highlight them.

    >>> sorted(touched([Event(EventKind.SWAP, 0, (1, 1, 2))]))
    ['card:0:1', 'card:1:2']
    """
    out: set[str] = set()
    for kind, seat, t, _, _ in events:
        if kind == EventKind.DRAW:
            out.update(("deck", "drawn"))
        elif kind == EventKind.TAKE or kind == EventKind.DISCARD or kind == EventKind.FLIP:
            out.add("discard")
        elif kind in (EventKind.EXCHANGE, EventKind.PEEK, EventKind.PLACE, EventKind.PENALTY) and seat is not None:
            out.add(card_target(seat, t[0]))
        elif (kind == EventKind.LOOK or kind == EventKind.MULTI) and seat is not None:
            out.update(card_target(seat, p) for p in t)
        elif kind == EventKind.SPY or kind == EventKind.SNAP:
            out.add(card_target(t[0], t[1]))
        elif kind == EventKind.SWAP and seat is not None:
            out.update((card_target(seat, t[0]), card_target(t[1], t[2])))
        elif kind == EventKind.GIVE:
            out.add(card_target(t[1], t[2]))
    return out


def reveals(events: Iterable[Event], viewer: int) -> dict[tuple[int, int], Card]:
    """Faces the viewer saw in these events, by place (look, peek, spy), to flash when playing from memory.

    >>> import cabo_kit as ck
    >>> reveals([Event(EventKind.PEEK, 0, (2,), (ck.Card.parse("7H"),))], viewer=0)
    {(0, 2): Card('7H')}
    """
    out: dict[tuple[int, int], Card] = {}
    for kind, seat, t, cards, _ in events:
        if seat != viewer or not cards or not all(c.known for c in cards):
            continue
        if kind == EventKind.LOOK:
            out.update({(viewer, p): c for p, c in zip(t, cards)})
        elif kind == EventKind.PEEK:
            out[(viewer, t[0])] = cards[0]
        elif kind == EventKind.SPY:
            out[(t[0], t[1])] = cards[0]
    return out


# ------------------------------------------------------------------ words


def _pos(p: int) -> str:
    return f"card {p + 1}"


def _list(items: Sequence[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def describe(event: Event, viewer: int | None, names: Sequence[str], *, faces: bool = True) -> str:
    """One event in plain words with the players' names, as ``viewer`` saw it (``None``: a spectator).

    ``faces=False`` leaves card faces out (a table played from memory keeps no record of them).

    >>> from cabo_kit.cards import Card, UNKNOWN
    >>> names = ["You", "Bea", "Cy"]
    >>> describe(Event(EventKind.SPY, 1, (0, 2), (UNKNOWN,)), 0, names)
    'Bea spies on your card 3.'
    >>> describe(Event(EventKind.PEEK, 0, (1,), (Card.parse("8"),)), 0, names)
    'You peek at your card 2: 8.'
    >>> describe(Event(EventKind.SWAP, 2, (0, 1, 3)), 0, names)
    "Cy swaps their card 1 with Bea's card 4."
    """
    kind, seat, t, cards, info = event
    you = seat is not None and seat == viewer
    who = names[seat] if seat is not None else ""

    def verb(base: str, third: str | None = None) -> str:
        return base if you else (third or base + "s")

    def own(p: int) -> str:
        return f"{'your' if you else 'their'} {_pos(p)}"

    def whose(s: int, p: int) -> str:
        if s == viewer:
            return f"your {_pos(p)}"
        if s == seat:
            return own(p)
        return f"{names[s]}'s {_pos(p)}"

    def face(c: Card) -> str:
        return c.pretty if c.known and faces else ""

    def seen(cs: Iterable[Card]) -> str:
        shown = [face(c) for c in cs]
        return ", ".join(shown) if shown and all(shown) else ""

    if kind == EventKind.ROUND:
        return f"Round {t[0] + 1} begins: {names[t[1]]} {'start' if t[1] == viewer else 'starts'}."
    if kind == EventKind.LOOK:
        what = seen(cards)
        return f"{who} {verb('look')} at {'your' if you else 'their'} cards {_list([str(p + 1) for p in t])}" + (
            f": {what}." if what else "."
        )
    if kind == EventKind.FLIP:
        what = seen(cards)
        return "The first card is turned up to start the discard pile" + (f": {what}." if what else ".")
    if kind == EventKind.DRAW:
        what = seen(cards)
        return f"{who} {verb('draw')} {what + ' ' if what else ''}from the deck."
    if kind == EventKind.TAKE:
        what = seen(cards)
        return f"{who} {verb('take')} {what or 'the top card'} from the discard pile."
    if kind == EventKind.CABO:
        return f"{who} {verb('call')} Cabo!"
    if kind == EventKind.DISCARD:
        what = seen(cards)
        return f"{who} {verb('discard')} {what or 'the drawn card'}."
    if kind == EventKind.EXCHANGE:
        out, new = seen(cards[:-1]), seen(cards[-1:])
        kept = f" ({new})" if new else ""
        return f"{who} {verb('exchange')} {own(t[0])} for the drawn card{kept}" + (f"; {out} goes to the pile." if out else ".")
    if kind == EventKind.MULTI:
        what = seen(cards)
        verdict = "all equal: they go to the pile" if info == "ok" else "not all equal: they stay, face up"
        return f"{who} {verb('try', 'tries')} to exchange cards {_list([str(p + 1) for p in t])} at once" + (
            f" ({what})" if what else ""
        ) + f": {verdict}."
    if kind == EventKind.PLACE:
        return f"{who} {verb('put')} the drawn card at {own(t[0])}."
    if kind == EventKind.PENALTY:
        return f"{who} {verb('take')} a penalty card, unseen, as {own(t[0])}."
    if kind == EventKind.PEEK:
        what = seen(cards)
        return f"{who} {verb('peek')} at {own(t[0])}" + (f": {what}." if what else ".")
    if kind == EventKind.SPY:
        what = seen(cards)
        return f"{who} {verb('spy', 'spies')} on {whose(t[0], t[1])}" + (f": {what}." if what else ".")
    if kind == EventKind.SWAP:
        return f"{who} {verb('swap')} {own(t[0])} with {whose(t[1], t[2])}."
    if kind == EventKind.SKIP:
        return f"{who} {verb('do', 'does')} not use the power."
    if kind == EventKind.SNAP:
        what = seen(cards)
        verdict = "a match!" if info == "match" else "no match, so a penalty"
        return f"{who} {verb('snap')} {whose(t[0], t[1])}" + (f": {what}," if what else ":") + f" {verdict}"
    if kind == EventKind.GIVE:
        target = "you" if t[1] == viewer else names[t[1]]
        return f"{who} {verb('give')} {own(t[0])} to {target}."
    if kind == EventKind.RESHUFFLE:
        return f"The discard pile is shuffled into a new deck ({t[0]} cards)."
    if kind == EventKind.END:
        reason = {"cabo": "Cabo was called", "deck": "the deck ran out", "empty_hand": "a hand is empty",
                  "turn_limit": "the turn limit was reached"}.get(info, info.replace("_", " "))
        return f"The round ends: {reason}."
    return str(event)  # pragma: no cover - every kind is above


def status_text(obs: Observation, names: Sequence[str], chooser: Chooser | None, *, ended: bool = False,
                watching: Sequence[int] | None = None) -> str:
    """What is happening now, and what the person may do, in words. ``ended``: a round's scoring is shown (the
    round or the game is over); ``watching``: nobody at the table is a person, and these seats decide now
    (``Game.to_move``): who plays next is all there is to say.

    >>> import cabo_kit as ck
    >>> game = ck.Game(ck.Rules.preset("deluxe"), seed=1, n_players=2, start_player=1)
    >>> _ = game.apply("look 0,1", seat=0); _ = game.apply("look 0,1", seat=1)
    >>> status_text(game.observation(1), ["Ada", "Bea"], None, watching=game.to_move)
    'Bea to play…'
    >>> status_text(game.observation(1), ["Ada", "Bea"], None, ended=True)
    'The round is over.'
    """
    phase = obs.phase
    me = obs.seat
    if ended:
        return "The game is over." if phase == Phase.OVER else "The round is over."
    if watching is not None:
        return f"{names[watching[0]]} to play…" if watching else "The game is over."
    if phase == Phase.OVER:
        return "The game is over."
    if chooser is None or me not in obs.to_move:
        movers = [s for s in obs.to_move if s != me]
        if not movers:
            return "Waiting…"
        if phase == Phase.SNAP:
            return "A snap window is open."
        called = f"{names[obs.caller]} called Cabo: " if obs.caller is not None else ""
        return f"{called}{names[movers[0]]} to play…"
    legal = [a for a, _ in chooser.options]
    can_cabo = any(type(a) is CallCabo for a in legal)
    power = obs.power
    chosen = len(chooser.selected)
    if phase == Phase.LOOK:
        k = len(legal[0].positions) if legal else 0  # type: ignore[attr-defined]
        return f"Choose {k} of your cards to look at" + (f" ({chosen} of {k} chosen)." if chosen else ".")
    last = ""
    if obs.caller is not None and obs.caller != me and obs.current == me:
        last = f"{names[obs.caller]} called Cabo: this is your last turn. "
    if phase == Phase.CHOOSE:
        return last + ("Your turn: click" if not last else "Click") + " the deck or the discard pile to draw" + (
            ", or call Cabo." if can_cabo else ".")
    if phase == Phase.DRAWN:
        drawn = obs.drawn.pretty if obs.drawn is not None else "a card"
        source = "drew" if obs.drawn_from == "deck" else "took"
        may_discard = any(type(a) is Discard for a in legal)
        if chosen:
            return last + (f"You {source} {drawn}: {chosen} card{'s' if chosen > 1 else ''} chosen — click more equal "
                           "cards (a chosen one again unchooses it), then Exchange") + ("; or Discard." if may_discard else ".")
        how = "click one of your cards to exchange it"
        if chooser.confirm:
            how += "; several equal cards: click them all, then Exchange"
        if not may_discard and obs.drawn_from == "discard":
            how += " (a card taken from the discard pile must be kept)"
        return last + f"You {source} {drawn}: {how}" + ("; or Discard." if may_discard else ".")
    if phase == Phase.POWER:
        if power in (Power.PEEK, Power.PEEK_SWAP):
            return last + "Power: peek — click one of your face-down cards to look at it, or Skip."
        if power in (Power.SPY, Power.SPY_SWAP):
            return last + "Power: spy — click another player's face-down card to look at it, or Skip."
        if chosen:
            own = any(t.startswith(f"card:{me}:") for t in chooser.selected)
            other = "one of another player's cards" if own else "one of your cards"
            return last + f"Power: swap — 1 of 2 chosen: now click {other} (or the chosen card again to unchoose it), or Skip."
        return last + "Power: swap — click one of your cards and one of another player's (0 of 2 chosen), or Skip."
    if phase == Phase.SWAP:
        return last + "Swap the card you saw with one of yours? Click your card, or Don't swap."
    if phase == Phase.PLACE:
        if obs.exchange_ok:
            return "They match: click which of the emptied places the drawn card takes."
        if obs.drawn_from == "penalty":
            return "Penalty card: put it at the left or right end of your hand."
        return "Not all equal: put the drawn card at the left or right end of your hand."
    if phase == Phase.SNAP:
        top = obs.top.pretty if obs.top is not None else "?"
        return f"Snap? The pile shows {top}: click a card you think matches it, or Pass."
    if phase == Phase.GIVE:
        optional = any(type(a) is Pass for a in legal)
        to = obs.give_to[0] if obs.give_to else None
        whom = names[to] if to is not None else "them"
        return f"Your snap matched: click one of your cards to give to {whom}" + (", or Give nothing." if optional else ".")
    if phase == Phase.END_TURN:
        return last + "End of your turn: call Cabo, or End turn."
    return f"Your move ({phase})."


_PASS_WORDS = {Phase.SNAP: "Pass", Phase.POWER: "Skip", Phase.SWAP: "Don't swap", Phase.GIVE: "Give nothing",
               Phase.END_TURN: "End turn"}
"""The pass button's words in each phase where passing is a choice."""


def button_label(target: str, obs: Observation, chooser: Chooser | None = None) -> str:
    """The words on a button, fitting the phase.

    >>> import cabo_kit as ck
    >>> obs = ck.Game(ck.Rules.preset("deluxe"), seed=1, n_players=2).observation(0)
    >>> button_label("btn:cabo", obs)
    'Call Cabo'
    """
    if target == "btn:cabo":
        return "Call Cabo"
    if target == "btn:discard":
        return "Discard"
    if target == "btn:confirm":
        n = len(chooser.selected) if chooser is not None else 0
        return f"Exchange {n} card{'s' if n != 1 else ''}" if n else "Exchange"
    if target == "btn:left":
        return "Left end"
    if target == "btn:right":
        return "Right end"
    if target == "btn:pass":
        return _PASS_WORDS.get(obs.phase, "Pass")
    return target
