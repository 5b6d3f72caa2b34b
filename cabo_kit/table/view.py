"""The card table without widgets: which click is which legal action, what the person is told,
and the table drawn as HTML from what one seat may know.

Everything here is plain Python over an :class:`~cabo_kit.observation.Observation` (or, for a
spectator, the open hands), so it is tested without a browser; :mod:`cabo_kit.table.widget`
only moves the results to the page. Legality always comes from the engine's legal actions:
a click is looked up among them, never judged by rules written here.

Positions are shown to people counting from 1 ("your card 3" is position 2); the actions
and the stable CSS hooks (``cabo-s{seat}-p{position}``) count from 0, as the engine does.

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

from dataclasses import dataclass, field
from html import escape
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

from ..actions import (
    Action, CallCabo, Discard, DrawDeck, DrawDiscard, Exchange, Give, InitialPeek, Pass, Peek, Place, Snap, Spy, Swap,
)
from ..cards import Card
from ..observation import Event, Observation
from ..render import _POWER_WORDS, card_html

if TYPE_CHECKING:
    from ..game import RoundResult
    from ..rules import Rules

__all__ = [
    "NAMES", "RULES_URL", "Chooser", "Frame", "TableState", "button_label", "describe", "layout_slots", "legend_html",
    "render_table", "round_summary_html", "rules_link", "scores_html", "seat_names", "status_text",
    "targets_of",
]

#: Names for the seats that bots play (the person is "You").
NAMES = ("Ada", "Bea", "Cy", "Dee", "Eli", "Flo", "Gus", "Hal")

#: Where the table's "Rules" link points: docs/rules.md of a checkout, relative to a notebook in notebooks/
#: (JupyterLab opens it). A course that publishes the docs elsewhere sets its own address here;
#: ``None`` leaves the link out (the page of ``cabo-kit play``, whose server cannot serve the file).
RULES_URL: str | None = "../docs/rules.md"

#: Buttons by target, in the order they are shown.
BUTTONS = ("btn:cabo", "btn:discard", "btn:confirm", "btn:left", "btn:right", "btn:pass")


def seat_names(n: int, person: int | None) -> list[str]:
    """The names the table uses: "You" for the person's seat, a short name for each other seat.

    >>> seat_names(3, 0), seat_names(2, None)
    (['You', 'Bea', 'Cy'], ['Ada', 'Bea'])
    """
    return ["You" if s == person else NAMES[s % len(NAMES)] for s in range(n)]


def _card(seat: int, position: int) -> str:
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
        return frozenset(_card(me, p) for p in action.positions)  # type: ignore[attr-defined]
    if kind is Peek or kind is Give:
        return frozenset((_card(me, action.position),))  # type: ignore[attr-defined]
    if kind is Spy or kind is Snap:
        return frozenset((_card(action.seat, action.position),))  # type: ignore[attr-defined]
    if kind is Swap:
        return frozenset((_card(me, action.own), _card(action.seat, action.position)))  # type: ignore[attr-defined]
    if kind is Place:
        index = action.index  # type: ignore[attr-defined]
        if obs.exchange_ok:  # after a successful multi-exchange: the drawn card takes one of the picked places
            return frozenset((_card(me, index),))
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
        self._aliases = {"discard": "btn:discard"} if obs.phase == "drawn" and Discard() in legal else {}

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


_SINGLE_BUTTONS = frozenset(BUTTONS) - {"btn:confirm"}


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
        return {"snap": "Pass", "power": "Skip", "swap": "Don't swap", "give": "Give nothing", "end_turn": "End turn"}.get(
            obs.phase, "Pass"
        )
    return target


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
    >>> describe(Event("spy", 1, (0, 2), (UNKNOWN,)), 0, names)
    'Bea spies on your card 3.'
    >>> describe(Event("peek", 0, (1,), (Card.parse("8"),)), 0, names)
    'You peek at your card 2: 8.'
    >>> describe(Event("swap", 2, (0, 1, 3)), 0, names)
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

    if kind == "round":
        return f"Round {t[0] + 1} begins: {names[t[1]]} {'start' if t[1] == viewer else 'starts'}."
    if kind == "look":
        what = seen(cards)
        return f"{who} {verb('look')} at {'your' if you else 'their'} cards {_list([str(p + 1) for p in t])}" + (
            f": {what}." if what else "."
        )
    if kind == "flip":
        what = seen(cards)
        return "The first card is turned up to start the discard pile" + (f": {what}." if what else ".")
    if kind == "draw":
        what = seen(cards)
        return f"{who} {verb('draw')} {what + ' ' if what else ''}from the deck."
    if kind == "take":
        what = seen(cards)
        return f"{who} {verb('take')} {what or 'the top card'} from the discard pile."
    if kind == "cabo":
        return f"{who} {verb('call')} Cabo!"
    if kind == "discard":
        what = seen(cards)
        return f"{who} {verb('discard')} {what or 'the drawn card'}."
    if kind == "exchange":
        out, new = seen(cards[:-1]), seen(cards[-1:])
        kept = f" ({new})" if new else ""
        return f"{who} {verb('exchange')} {own(t[0])} for the drawn card{kept}" + (f"; {out} goes to the pile." if out else ".")
    if kind == "multi":
        what = seen(cards)
        verdict = "all equal: they go to the pile" if info == "ok" else "not all equal: they stay, face up"
        return f"{who} {verb('try', 'tries')} to exchange cards {_list([str(p + 1) for p in t])} at once" + (
            f" ({what})" if what else ""
        ) + f": {verdict}."
    if kind == "place":
        return f"{who} {verb('put')} the drawn card at {own(t[0])}."
    if kind == "penalty":
        return f"{who} {verb('take')} a penalty card, unseen, as {own(t[0])}."
    if kind == "peek":
        what = seen(cards)
        return f"{who} {verb('peek')} at {own(t[0])}" + (f": {what}." if what else ".")
    if kind == "spy":
        what = seen(cards)
        return f"{who} {verb('spy', 'spies')} on {whose(t[0], t[1])}" + (f": {what}." if what else ".")
    if kind == "swap":
        return f"{who} {verb('swap')} {own(t[0])} with {whose(t[1], t[2])}."
    if kind == "skip":
        return f"{who} {verb('do', 'does')} not use the power."
    if kind == "snap":
        what = seen(cards)
        verdict = "a match!" if info == "match" else "no match, so a penalty"
        return f"{who} {verb('snap')} {whose(t[0], t[1])}" + (f": {what}," if what else ":") + f" {verdict}"
    if kind == "give":
        target = "you" if t[1] == viewer else names[t[1]]
        return f"{who} {verb('give')} {own(t[0])} to {target}."
    if kind == "reshuffle":
        return f"The discard pile is shuffled into a new deck ({t[0]} cards)."
    if kind == "end":
        reason = {"cabo": "Cabo was called", "deck": "the deck ran out", "empty_hand": "a hand is empty",
                  "turn_limit": "the turn limit was reached"}.get(info, info.replace("_", " "))
        return f"The round ends: {reason}."
    return str(event)  # pragma: no cover - every kind is above


def status_text(obs: Observation, names: Sequence[str], chooser: Chooser | None) -> str:
    """What is happening now, and what the person may do, in words."""
    phase = obs.phase
    me = obs.seat
    if phase == "over":
        return "The game is over."
    if chooser is None or me not in obs.to_move:
        movers = [s for s in obs.to_move if s != me]
        if not movers:
            return "Waiting…"
        if phase == "snap":
            return "A snap window is open."
        called = f"{names[obs.caller]} called Cabo: " if obs.caller is not None else ""
        return f"{called}{names[movers[0]]} to play…"
    legal = [a for a, _ in chooser.options]
    can_cabo = any(type(a) is CallCabo for a in legal)
    power = obs.power or ""
    chosen = len(chooser.selected)
    if phase == "look":
        k = len(legal[0].positions) if legal else 0  # type: ignore[attr-defined]
        return f"Choose {k} of your cards to look at" + (f" ({chosen} of {k} chosen)." if chosen else ".")
    last = ""
    if obs.caller is not None and obs.caller != me and obs.current == me:
        last = f"{names[obs.caller]} called Cabo: this is your last turn. "
    if phase == "choose":
        return last + ("Your turn: click" if not last else "Click") + " the deck or the discard pile to draw" + (
            ", or call Cabo." if can_cabo else ".")
    if phase == "drawn":
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
    if phase == "power":
        if power.startswith("peek"):
            return last + "Power: peek — click one of your face-down cards to look at it, or Skip."
        if power.startswith("spy"):
            return last + "Power: spy — click another player's face-down card to look at it, or Skip."
        if chosen:
            own = any(t.startswith(f"card:{me}:") for t in chooser.selected)
            other = "one of another player's cards" if own else "one of your cards"
            return last + f"Power: swap — 1 of 2 chosen: now click {other} (or the chosen card again to unchoose it), or Skip."
        return last + "Power: swap — click one of your cards and one of another player's (0 of 2 chosen), or Skip."
    if phase == "swap":
        return last + "Swap the card you saw with one of yours? Click your card, or Don't swap."
    if phase == "place":
        if obs.exchange_ok:
            return "They match: click which of the emptied places the drawn card takes."
        if obs.drawn_from == "penalty":
            return "Penalty card: put it at the left or right end of your hand."
        return "Not all equal: put the drawn card at the left or right end of your hand."
    if phase == "snap":
        top = obs.top.pretty if obs.top is not None else "?"
        return f"Snap? The pile shows {top}: click a card you think matches it, or Pass."
    if phase == "give":
        optional = any(type(a) is Pass for a in legal)
        to = obs.give_to[0] if obs.give_to else None
        whom = names[to] if to is not None else "them"
        return f"Your snap matched: click one of your cards to give to {whom}" + (", or Give nothing." if optional else ".")
    if phase == "end_turn":
        return last + "End of your turn: call Cabo, or End turn."
    return f"Your move ({phase})."



# ------------------------------------------------------------------ help


def rules_link() -> str | None:
    """The address of the rules: :data:`RULES_URL` at the presets' table (a column per preset; the
    decisions cabo-kit made follow on the same page), or ``None`` (no link) when ``RULES_URL`` is
    ``None``. Read when a table is drawn, so a course may set ``RULES_URL`` at any time.

    >>> rules_link()
    '../docs/rules.md#the-three-presets-at-a-glance'
    """
    return f"{RULES_URL}#the-three-presets-at-a-glance" if RULES_URL is not None else None


def _sample(card: "Card | str", mark: str = "", *, up: bool = False, power: str | None = None) -> str:
    """A sample card for the legend: drawn as a card, but no card of the game (no ``data-card``, no
    ``cabo-card``/``cabo-clickable`` class: tests and tools that read the table never count it)."""
    card = Card.parse(card) if isinstance(card, str) else card
    return card_html(card, up, power=power, inline=False, classes=f"cabo-sample {mark}".strip(), ident=False)


def _value_name(value: int, standard: bool) -> str:
    return {11: "J", 12: "Q", 13: "black K"}.get(value, str(value)) if standard else str(value)


_LEGENDS: dict[tuple[object, ...], str] = {}  # by what the legend depends on: the deck, jokers, powers


def legend_html(rules: "Rules | None") -> str:
    """What the table's marks mean, with a sample of each, for the deck and powers of ``rules``.

    >>> import cabo_kit as ck
    >>> html = legend_html(ck.Rules.preset("deluxe"))
    >>> "▴" in html, "last move" in html, "0 to 4" in html
    (True, True, True)
    >>> "peek (7, 8), spy (9, 10), swap (11, 12)" in html, "peek+swap" in html
    (True, False)
    >>> "peek+swap (black K)" in legend_html(ck.Rules.preset("rush"))
    True
    """
    key = (rules.deck, rules.jokers, rules.powers) if rules is not None else None
    html = _LEGENDS.get(key) if key is not None else None
    if html is None:
        html = _legend(rules)
        if key is not None:
            _LEGENDS[key] = html
    return html


def _legend(rules: "Rules | None") -> str:
    standard = rules is not None and rules.deck == "standard"
    rows = [
        (_sample("??", "cabo-sample-clickable"), "a white glow: you may click it now"),
        (_sample("??", "cabo-sample-selected"), "a gold glow, raised: a card you have chosen (click it again to unchoose it)"),
        (_sample("??", "cabo-sample-highlight"), "an orange-red frame: a card or pile the last move touched"),
        ('<span class="cabo-legend-seat">Bea</span>', "an orange frame around a seat: that player decides now"),
        (_sample("QS" if standard else "12", up=True),
         "a gold frame and ▴: the card lies face up, everyone sees it"),
    ]
    if rules is not None and rules.powers:
        by_power: dict[str, list[str]] = {}
        for value, power in rules.powers:
            by_power.setdefault(_POWER_WORDS.get(power, power), []).append(_value_name(value, standard))
        deck = rules.full_deck(rules.min_players)
        first = rules.powers[0][0]
        card = next(c for c in deck if c.value == first and rules.power_of(c) is not None)
        words = ", ".join(f"{word} ({', '.join(values)})" for word, values in by_power.items())
        rows.append((_sample(card, power=rules.powers[0][1]),
                     f"{words}: the power of a card discarded after drawing it from the deck"))
    rows.append(('<span class="cabo-tag cabo-tag-cabo">called Cabo</span>',
                 "this player called Cabo: everyone else has one last turn"))
    if standard:
        colours = (f'{_sample("5H")}{_sample("5S")}', "red and black suits; A = 1, J = 11, Q = 12, black K = 13, red K = 0"
                   + ("; a joker (purple) counts -1" if rules is not None and rules.jokers else ""))
    else:
        colours = (f'{_sample("2")}{_sample("6")}{_sample("11")}',
                   "numbers by how good they are to hold: green 0 to 4, blue 5 to 9, pink 10 to 13")
    rows.append(colours)
    items = "".join(f'<li><span class="cabo-legend-sample">{sample}</span><span>{escape(text)}</span></li>'
                    for sample, text in rows)
    return f'<ul class="cabo-legend">{items}</ul>'


# ------------------------------------------------------------------ drawing


def layout_slots(n: int) -> list[str]:
    """Where each seat sits (2 to 6 seats), counted from the person's seat clockwise: grid areas of the table.

    >>> layout_slots(4)
    ['b', 'l', 't', 'r']
    """
    return {
        1: ["b"], 2: ["b", "t"], 3: ["b", "tl", "tr"], 4: ["b", "l", "t", "r"], 5: ["b", "l", "tl", "tr", "r"],
        6: ["b", "l", "tl", "t", "tr", "r"],
    }[n]


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


@dataclass
class Frame:
    """One picture of the table as the page gets it: HTML, and how long to show it before the next."""

    html: str
    busy: bool = False
    hold: float = 0.0
    expire: float = 0.0  # seconds after which the page asks for the same table without the cards flashed from memory

    def to_dict(self) -> dict[str, object]:
        return {"html": self.html, "busy": self.busy, "hold": self.hold, "expire": self.expire}


def _attrs(target: str, label: str, clickable: bool) -> str:
    if not clickable:
        return f' aria-label="{escape(label)}"'
    return f' data-click="{escape(target)}" tabindex="0" role="button" aria-label="{escape(label)}"'


def _card_label(state: TableState, seat: int, p: int, card: Card, up: bool) -> str:
    owner = "your" if seat == state.seat else f"{state.names[seat]}'s"
    face = card.pretty if card.known else "face down, unknown"
    return f"{owner} card {p + 1}: {face}" + (" (face up)" if up and card.known else "")


def _render_card(state: TableState, seat: int, p: int) -> str:
    card = state.hands[seat][p]
    up = state.face_up[seat][p] if p < len(state.face_up[seat]) else False
    target = _card(seat, p)
    classes = [f"cabo-card cabo-s{seat}-p{p}", "cabo-known" if card.known else "cabo-hidden"]
    clickable = target in state.clickable
    if clickable:
        classes.append("cabo-clickable")
    if target in state.selected:
        classes.append("cabo-selected")
    if target in state.highlight:
        classes.append("cabo-highlight")
    power = state.powers.get(card.text) if card.known else None
    return card_html(
        card, up, power=power, inline=False, classes=" ".join(classes),
        attrs=_attrs(target, _card_label(state, seat, p, card, up), clickable),
    )


def _pile_html(state: TableState) -> str:
    deck_click = "deck" in state.clickable
    disc_click = "discard" in state.clickable
    deck_cls = "ck-card ck-back cabo-deck" + (" cabo-clickable" if deck_click else "") + (
        " cabo-highlight" if "deck" in state.highlight else "")
    deck = (
        f'<div class="cabo-pile"><span class="{deck_cls}" data-card="??"'
        f'{_attrs("deck", f"the deck, {state.deck_size} cards", deck_click)}></span>'
        f'<div class="cabo-pile-label">deck <span class="cabo-deck-count">{state.deck_size}</span></div></div>'
    )
    extra = " cabo-discard" + (" cabo-clickable" if disc_click else "") + (" cabo-highlight" if "discard" in state.highlight else "")
    if state.discard_top is not None:
        label = f"the discard pile, top card {state.discard_top.pretty}"
        top = card_html(state.discard_top, power=None, inline=False, classes=extra.strip(), attrs=_attrs("discard", label, disc_click))
    else:
        top = f'<span class="ck-card ck-empty{extra}" data-card=""{_attrs("discard", "the discard pile, empty", disc_click)}></span>'
    disc = f'<div class="cabo-pile">{top}<div class="cabo-pile-label">discard pile ({state.pile_size})</div></div>'
    drawn = ""
    if state.drawn is not None and state.drawn_by is not None:
        who = "you" if state.drawn_by == state.seat else state.names[state.drawn_by]
        held = card_html(state.drawn, power=state.powers.get(state.drawn.text) if state.drawn.known else None,
                         inline=False, classes="cabo-drawn" + (" cabo-highlight" if "drawn" in state.highlight else ""))
        drawn = f'<div class="cabo-pile">{held}<div class="cabo-pile-label">drawn by {escape(who)}</div></div>'
    return f'<div class="cabo-centre-piles">{deck}{disc}{drawn}</div>'


def scores_html(names: Sequence[str], totals: Sequence[int], rounds: Sequence[Sequence[int]], *, seat: int | None = None) -> str:
    """The scorepad: one row per round, the game totals last.

    >>> html = scores_html(["You", "Bea"], [12, 30], [[5, 20], [7, 10]])
    >>> html.count("<tr"), "cabo-scores" in html
    (4, True)
    """
    head = "".join(f'<th class="{"cabo-you" if s == seat else ""}">{escape(n)}</th>' for s, n in enumerate(names))
    rows = [f"<tr><th>round</th>{head}</tr>"]
    for r, scores in enumerate(rounds):
        rows.append(f"<tr><td>{r + 1}</td>" + "".join(f"<td>{v}</td>" for v in scores) + "</tr>")
    rows.append("<tr class=\"cabo-total\"><td>total</td>" + "".join(f"<td>{v}</td>" for v in totals) + "</tr>")
    return f'<table class="cabo-scores">{"".join(rows)}</table>'


def round_summary_html(result: "RoundResult", names: Sequence[str], powers: Mapping[str, str | None], *, over: bool,
                       winners: Sequence[int] = (), rules: "Rules | None" = None) -> str:
    """The end of a round explained: every hand turned up, the sums, the caller's win or loss,
    Kamikaze and Royal Roulette, resets to 50; then the game's result when it is over."""
    lines = []
    if result.caller is not None:
        caller = names[result.caller]
        if result.kamikaze:
            verdict = "but a Kamikaze decides the round"
        elif result.caller_won:
            verdict = "and won: the lowest hand" + (" (a tie counts for the caller)" if sum(
                1 for t in result.totals if t == result.totals[result.caller]) > 1 else "")
        else:
            ties = rules is None or rules.ties_to_caller
            penalty = rules.caller_loss_penalty if rules is not None else 0
            scores = "you score" if caller == "You" else f"{caller} scores"
            what = f"the hand plus {penalty}" if penalty else "the hand"
            verdict = f"and lost: another hand was {'lower' if ties else 'as low or lower'}, so {scores} {what}"
        lines.append(f"{escape(caller)} called Cabo {verdict}.")
    else:
        lines.append({"deck": "The deck ran out.", "empty_hand": "A hand was emptied.",
                      "turn_limit": "The turn limit was reached."}.get(result.ended_by, "The round ended."))
    for s in result.kamikaze:
        lines.append(f"Kamikaze! {escape(names[s])} holds 12, 12, 13, 13: 0 points, everyone else 50.")
    for s in result.royal_roulette:
        lines.append(f"Royal Roulette! {escape(names[s])} holds both black kings and two queens: -50.")
    for s in result.resets:
        lines.append(f"{escape(names[s])} hit exactly 100 and goes back to 50.")
    rows = []
    for s, hand in enumerate(result.final_hands):
        cards = "".join(card_html(c, power=powers.get(c.text), inline=False, classes="cabo-final") for c in hand) or "(no cards)"
        mark = " cabo-caller" if s == result.caller else ""
        rows.append(
            f'<tr class="cabo-final-row{mark}"><td class="cabo-name">{escape(names[s])}</td>'
            f'<td class="cabo-final-hand"><div class="cabo-final-cards">{cards}</div></td>'
            f"<td>sum {result.totals[s]}</td><td>scores <b>{result.scores[s]}</b></td><td>total {result.game_totals[s]}</td></tr>"
        )
    title = f"Round {result.index + 1} is over"
    if over:
        who = _list([names[s] for s in winners])
        title = f"Game over: {escape(who)} {'win' if len(winners) > 1 or (winners and names[winners[0]] == 'You') else 'wins'}!"
    return (
        f'<div class="cabo-summary"><h3>{title}</h3><p>{"<br>".join(lines)}</p>'
        f'<table class="cabo-final">{"".join(rows)}</table></div>'
    )


def render_table(state: TableState) -> str:
    """The whole table as HTML: hands around the felt, the piles in the middle, the status and
    buttons, the log and the scorepad. Only ``state`` is read."""
    slots = layout_slots(state.n)
    start = state.seat if state.seat is not None else 0
    seats = []
    for i in range(state.n):
        s = (start + i) % state.n
        tags = []
        if state.to_move == (s,):  # one seat decides (not a set-up look or a snap window, where all do)
            tags.append(f'<span class="cabo-tag cabo-tag-turn">{"your turn" if s == state.seat else "to play"}</span>')
        if s == state.caller:
            tags.append('<span class="cabo-tag cabo-tag-cabo">called Cabo</span>')
        cards = "".join(_render_card(state, s, p) for p in range(len(state.hands[s]))) or '<span class="cabo-empty-hand">no cards</span>'
        active = " cabo-active" if s in state.to_move else ""
        you = " cabo-you" if s == state.seat else ""
        label = f' <span class="cabo-label">{escape(state.labels[s])}</span>' if state.labels[s] else ""
        seats.append(
            f'<div class="cabo-seat cabo-seat-{s}{active}{you}" style="grid-area:{slots[i]}">'
            f'<div class="cabo-seat-head"><span class="cabo-name">{escape(state.names[s])}</span>{label}'
            f' <span class="cabo-seat-score">{state.scores[s] if s < len(state.scores) else 0}</span>{"".join(tags)}</div>'
            f'<div class="cabo-hand">{cards}</div></div>'
        )
    buttons = []
    for target, text in state.buttons:
        ok = target in state.clickable
        name = target.split(":", 1)[1]
        attrs = f' data-click="{escape(target)}"' if ok else " disabled"
        buttons.append(
            f'<button type="button" class="cabo-btn cabo-btn-{name}{" cabo-clickable" if ok else ""}"{attrs}>{escape(text)}</button>'
        )
    notice = f'<div class="cabo-notice">{escape(state.notice)}</div>' if state.notice else ""
    centre = (
        f'<div class="cabo-centre" style="grid-area:c">{_pile_html(state)}'
        f'<div class="cabo-status" role="status">{escape(state.status)}</div>{notice}'
        f'<div class="cabo-buttons">{"".join(buttons)}</div></div>'
    )
    log = "".join(f"<li>{escape(line)}</li>" for line in state.log[-60:])
    name = state.rules.name if state.rules is not None else ""
    seed = f" · seed {state.seed}" if state.seed is not None else ""
    address = rules_link()
    link = "" if address is None else (
        f'<a class="cabo-rules-link" href="{escape(address)}" target="_blank" rel="noopener"'
        f' title="the rules cabo-kit plays: docs/rules.md">Rules ({escape(name)})</a>')
    header = (
        f'<div class="cabo-header"><span class="cabo-title">Cabo</span>'
        f'<span class="cabo-rules">{escape(name + seed)} · round {state.round + 1}</span>'
        f'{link}'
        f'<details class="cabo-help"><summary class="cabo-help-toggle" title="what the marks on the table mean">'
        f'? Legend</summary>{legend_html(state.rules)}</details></div>'
    )
    side = (
        f'<div class="cabo-side">'
        f'{scores_html(state.names, state.scores, state.round_scores, seat=state.seat)}'
        f'<ol class="cabo-log" aria-label="what happened">{log}</ol></div>'
    )
    overlay = f'<div class="cabo-overlay">{state.overlay}</div>' if state.overlay else ""
    grid = f'<div class="cabo-felt cabo-n{state.n}">{"".join(seats)}{centre}</div>'
    return f'{header}<div class="cabo-layout">{grid}{side}</div>{overlay}'
