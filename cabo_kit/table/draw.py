"""How the card table is drawn: its picture (:class:`~cabo_kit.table.picture.TableState`) as HTML, with the
legend, the scorepad and the end of a round explained. Only the picture is read; nothing here knows the game.

Cards are drawn by :func:`cabo_kit.render.card_html` (the same faces as a notebook's cards), with stable CSS
hooks ``cabo-s{seat}-p{position}`` and, on what may be clicked now, ``data-click`` targets
(:mod:`cabo_kit.table.clicks`).

>>> import cabo_kit as ck
>>> from cabo_kit.table.picture import seat_names, table_state
>>> game = ck.Game(ck.Rules.preset("rush"), seed=1, n_players=2)
>>> html = render_table(table_state(game, 0, seat_names(2, 0), "Your move."))
>>> "cabo-s1-p3" in html, "Your move." in html, "data-click" in html   # nothing clickable was given
(True, True, False)
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING, Mapping, Sequence

from ..cards import Card
from ..render import _POWER_WORDS, card_html
from .clicks import card_target
from .picture import TableState, _list

if TYPE_CHECKING:
    from ..game import RoundResult
    from ..rules import Rules

__all__ = ["RULES_URL", "Frame", "layout_slots", "legend_html", "render_table", "round_summary_html", "rules_link",
           "scores_html"]

#: Where the table's "Rules" link points: docs/rules.md of a checkout, relative to a notebook in notebooks/
#: (JupyterLab opens it). A course that publishes the docs elsewhere sets its own address here;
#: ``None`` leaves the link out (the page of ``cabo-kit play``, whose server cannot serve the file).
#: Setting ``cabo_kit.table.view.RULES_URL``, its old place, sets this one.
RULES_URL: str | None = "../docs/rules.md"
DEFAULT_RULES_URL = RULES_URL  # what ``del view.RULES_URL`` (and the end of a mock.patch of it) puts back


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
    target = card_target(seat, p)
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
                       winners: Sequence[int] = (), rules: "Rules | None" = None, next_label: str | None = None) -> str:
    """The end of a round explained: every hand turned up, the sums, the caller's win or loss,
    Kamikaze and Royal Roulette, resets to 50; then the game's result when it is over. With ``next_label``,
    it ends with the button that moves on (a click on ``btn:next``), labelled so ("Next round", "New game")."""
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
    button = "" if next_label is None else (
        f'<button type="button" class="cabo-btn cabo-btn-next cabo-clickable" data-click="btn:next">{escape(next_label)}</button>')
    return (
        f'<div class="cabo-summary"><h3>{title}</h3><p>{"<br>".join(lines)}</p>'
        f'<table class="cabo-final">{"".join(rows)}</table>{button}</div>'
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
