"""Notebook display: pure functions that turn cards, hands, observations and game records into HTML.

``Card``, ``Observation`` and ``GameRecord`` call these from their ``_repr_html_``, so a
notebook cell that ends with one of them shows it as a small table. The functions only
read what they are given (an observation shows exactly what its seat may know: an unseen
card is drawn as a back, ``??``) and escape every piece of text. Styles are inline, so the
HTML looks the same in JupyterLab, VS Code and a saved notebook, with no widget or script.

>>> from cabo_kit.cards import Card, UNKNOWN
>>> html = hand_html([Card.parse("QD"), UNKNOWN], face_up=[True, False])
>>> 'Q♦' in html, 'data-card="??"' in html
(True, True)
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, Sequence

from .cards import Card
from .observation import Phase
from .rules import Power

if TYPE_CHECKING:
    from .observation import Observation
    from .record import GameRecord

__all__ = ["card_html", "hand_html", "observation_html", "record_html"]

_FONT = "font-family:ui-sans-serif,system-ui,sans-serif;font-size:13px;line-height:1.4"
_CARD = (
    "display:inline-block;min-width:2.2em;padding:.55em .2em;margin:1px 2px;border:1px solid #888;"
    "border-radius:4px;text-align:center;font:600 13px/1.2 ui-monospace,monospace;"
)
_FACE = "background:#fff;color:"
_BACK = "background:repeating-linear-gradient(45deg,#3f51b5 0 4px,#5c6bc0 4px 8px);color:#e8eaf6;border-color:#283593"
_UP = ";box-shadow:0 0 0 2px #f9a825;border-color:#f9a825"
_TABLE = "border-collapse:collapse;margin:4px 0"
_CELL = "border:1px solid #ddd;padding:3px 6px;text-align:left;vertical-align:middle"
_MUTED = "color:#666"


def _tone(card: Card) -> str:
    """The face's colour family: suits red or black; deluxe cards by how good they are to hold."""
    if card.suit in ("H", "D"):
        return "red"
    if card.suit in ("S", "C"):
        return "black"
    if card.rank == "JOKER":
        return "joker"
    value = card.value if card.value is not None else 0
    return "low" if value <= 4 else ("mid" if value <= 9 else "high")


_TONES = {"red": "#c62828", "black": "#212121", "joker": "#6a1b9a", "low": "#2e7d32", "mid": "#1565c0", "high": "#ad1457"}
_POWER_WORDS: dict[str, str] = {Power.PEEK: "peek", Power.SPY: "spy", Power.SWAP: "swap", Power.PEEK_SWAP: "peek+swap",
                                Power.SPY_SWAP: "spy+swap"}  # a card's label
_POWER_STEPS: dict[str, str] = {Power.PEEK: "peek", Power.SPY: "spy", Power.SWAP: "swap",
                                Power.PEEK_SWAP: "peek then swap", Power.SPY_SWAP: "spy then swap"}  # a decision


def card_html(
    card: Card, face_up: bool = False, *, power: str | None = None, inline: bool = True, classes: str = "", attrs: str = "",
    ident: bool = True,
) -> str:
    """One card: its face with its suit colour, or a patterned back for an unseen card (``??``).

    The one card renderer of the project: notebooks' reprs use it with inline styles
    (``inline=True``: looks the same anywhere, no stylesheet); the card table uses it with
    ``inline=False`` (classes only, styled by the table's stylesheet and theme) and adds its
    own ``classes`` and ``attrs``. ``face_up=True`` marks a card lying face up on the table
    (a gold outline and a ``▴``); ``power`` (e.g. ``rules.power_of(card)``) labels a power card.
    ``ident=False`` leaves out the card's text form (``data-card`` and the hidden ``ck-id``): a
    picture of a card (a legend's sample) that tools reading the table must not count as one.

    >>> from cabo_kit.cards import Card, UNKNOWN
    >>> 'K♥' in card_html(Card.parse("KH")), '#c62828' in card_html(Card.parse("KH"))
    (True, True)
    >>> 'title="unseen card"' in card_html(UNKNOWN)
    True
    >>> print(card_html(Card.parse("7"), power="peek", inline=False, classes="cabo-card"))
    <span class="ck-card ck-face ck-mid cabo-card" data-card="7" title="7: 7 points, peek"><span class="ck-text">7</span><span class="ck-power">peek</span></span>
    """
    if not card.known:
        kind, tone, face, title = "ck-back", "", ("??" if inline else ""), "unseen card"
        style = _CARD + _BACK
    else:
        tone = _tone(card)
        kind, face = "ck-face", card.pretty
        style = _CARD + _FACE + _TONES[tone]
        points = "point" if card.value in (1, -1) else "points"
        title = f"{card.pretty}: {card.value} {points}"
    mark = power_label = ""
    if power is not None and card.known:
        word = _POWER_WORDS.get(power, power)
        title += f", {word}"
        power_label = (
            f'<span class="ck-power" style="display:block;font:500 9px/1 ui-sans-serif,sans-serif;opacity:.75">{escape(word)}</span>'
            if inline else f'<span class="ck-power">{escape(word).replace("+", "+<wbr>")}</span>'  # may wrap after "+"
        )
    if face_up:
        style += _UP
        title += ", face up"
        mark = '<sup style="color: #f9a825">&#9652;</sup>' if inline else '<span class="ck-up">&#9652;</span>'
    cls = f"ck-card {kind}" + (f" ck-{tone}" if tone else "") + (f" {classes}" if classes else "")
    style_attr = f' style="{style}"' if inline else ""
    text = f'<span class="ck-text">{escape(face)}</span>' if (face or not inline) else ""
    if ident and not inline and card.known and card.text != face:
        text += f'<span class="ck-id">{escape(card.text)}</span>'  # the card's text form, for tests and screen readers
    data = f' data-card="{escape(card.text)}"' if ident else ""
    return f'<span class="{cls}"{data} title="{escape(title)}"{style_attr}{attrs}>{text}{power_label}{mark}</span>'


def hand_html(cards: Sequence[Card], face_up: Sequence[bool] | None = None, *, positions: bool = True) -> str:
    """A row of cards, each with its position (0, 1, ...) underneath, as actions name them.

    >>> from cabo_kit.cards import Card
    >>> html = hand_html([Card.parse("3"), Card.parse("12")])
    >>> html.count('class="ck-card '), '>1</div>' in html
    (2, True)
    >>> hand_html([])
    '<span class="ck-hand" style="color:#666">(no cards)</span>'
    """
    if not cards:
        return f'<span class="ck-hand" style="{_MUTED}">(no cards)</span>'
    ups = list(face_up) if face_up is not None else [False] * len(cards)
    parts = []
    for p, card in enumerate(cards):
        inner = card_html(card, bool(ups[p]) if p < len(ups) else False)
        if positions:
            inner += f'<div style="{_MUTED};font-size:10px;text-align:center">{p}</div>'
        parts.append(f'<span style="display:inline-block;vertical-align:top">{inner}</span>')
    return '<span class="ck-hand" style="white-space:nowrap">' + "".join(parts) + "</span>"


def _seat_label(seat: int, names: Sequence[str] | None = None) -> str:
    if names is not None and seat < len(names):
        return f"seat {seat} ({names[seat]})"
    return f"seat {seat}"


def _seats(seats: Sequence[int]) -> str:
    return ", ".join(f"seat {s}" for s in seats)


def _legal_summary(obs: "Observation", limit: int = 12) -> str:
    legal = obs.legal_actions
    n_all = len(legal)
    n_fixed = tuple.__len__(legal) if isinstance(legal, tuple) else n_all
    shown = [str(legal[i]) for i in range(min(n_fixed, limit))]
    more = []
    if n_fixed > limit:
        more.append(f"{n_fixed - limit} more")
    if n_all > n_fixed:
        more.append(f"{n_all - n_fixed} multi-exchanges")
    text = ", ".join(shown) + (f" (and {', '.join(more)})" if more else "")
    return escape(text)


def observation_html(obs: "Observation", recent: int = 8) -> str:
    """The table as ``obs.seat`` sees it: every hand (unseen cards as backs), the discard pile's top,
    the deck, the drawn card, the scores, the phase and who moves, and the last ``recent`` events.

    Only the observation is read, so nothing its seat has not seen can appear.

    >>> import cabo_kit as ck
    >>> game = ck.Game(ck.Rules.preset("rush"), seed=1, n_players=2, start_player=0,
    ...                deck="2S 3S 4S 5S  2H 3H 4H 5H  9D")   # rush: each seat saw its last two cards
    >>> html = observation_html(game.observation(0))
    >>> '<b>you</b>' in html, 'deck: 43 cards' in html, '5♠' in html, '5♥' in html
    (True, True, True, False)
    """
    moving = _seats(obs.to_move) if obs.to_move else "nobody"
    you_move = " (you)" if obs.seat in obs.to_move else ""
    head = (
        f"<b>seat {obs.seat}'s view</b> &middot; {escape(obs.rules.name)}, {obs.n_players} players &middot; "
        f"round {obs.round + 1}, turn {obs.turn} &middot; phase <b>{escape(obs.phase)}</b> &middot; "
        f"to move: {escape(moving)}{you_move}"
    )
    rows = [f'<tr><th style="{_CELL}">seat</th><th style="{_CELL}">cards</th><th style="{_CELL}">score</th></tr>']
    for s, hand in enumerate(obs.hands):
        tags = []
        if s == obs.seat:
            tags.append("<b>you</b>")
        if s == obs.current and obs.phase != Phase.OVER:
            tags.append("&#9654; current")
        if s == obs.caller:
            tags.append("called Cabo")
        if s == obs.start_player:
            tags.append("started")
        label = f"seat {s}" + (f" ({tags[0]})" if tags and s == obs.seat else "")
        extra = ", ".join(tags[1:] if s == obs.seat else tags)
        label_html = label + (f'<br><span style="{_MUTED};font-size:11px">{extra}</span>' if extra else "")
        back = " background: #fffde7;" if s == obs.seat else ""
        face_up = obs.face_up[s] if s < len(obs.face_up) else None
        score = obs.scores[s] if s < len(obs.scores) else ""
        rows.append(
            f'<tr class="ck-seat{" ck-you" if s == obs.seat else ""}" style="{back}">'
            f'<td style="{_CELL}">{label_html}</td><td style="{_CELL}">{hand_html(hand, face_up)}</td>'
            f'<td style="{_CELL};text-align:right">{escape(str(score))}</td></tr>'
        )
    top = obs.top
    pile = len(obs.discard)
    table_line = [
        "discard: " + (card_html(top) if top is not None else f'<span style="{_MUTED}">(empty)</span>')
        + (f' <span style="{_MUTED}">({pile} in the pile)</span>' if pile > 1 and obs.memory == "engine" else ""),
        f"deck: {obs.deck_size} cards",
    ]
    if obs.drawn is not None:
        source = f" from the {escape(obs.drawn_from)}" if obs.drawn_from else ""
        table_line.append(f"drawn by seat {obs.current}{source}: {card_html(obs.drawn)}")
    details = []
    if obs.power is not None:
        details.append(f"power: {escape(_POWER_STEPS.get(obs.power, obs.power))}")
    if obs.target is not None:
        details.append(f"target: seat {obs.target[0]}, position {obs.target[1]}")
    if obs.picked:
        verdict = "" if obs.exchange_ok is None else (" (all equal)" if obs.exchange_ok else " (not all equal)")
        details.append(f"picked positions {', '.join(map(str, obs.picked))}{verdict}")
    if obs.give_to is not None:
        details.append(f"give to seat {obs.give_to[0]}, position {obs.give_to[1]}")
    if obs.round_scores:
        last = " ".join(map(str, obs.round_scores[-1]))
        details.append(f"last round's scores: {escape(last)}")
    parts = [
        f'<div class="ck-observation" style="{_FONT}">',
        f"<div>{head}</div>",
        f'<table style="{_TABLE}">' + "".join(rows) + "</table>",
        "<div>" + " &middot; ".join(table_line) + "</div>",
    ]
    if details:
        parts.append(f'<div style="{_MUTED}">' + " &middot; ".join(details) + "</div>")
    if obs.seat in obs.to_move and len(obs.legal_actions):
        parts.append(f"<div>your options: <code>{_legal_summary(obs)}</code></div>")
    events = obs.events[-recent:] if recent > 0 else ()
    if events:
        skipped = len(obs.events) - len(events)
        title = "recent events" + (f" (last {len(events)} of {len(obs.events)})" if skipped else "")
        items = "".join(f"<li>{escape(str(e))}</li>" for e in events)
        parts.append(f'<div style="margin-top: 4px">{title}:<ol style="margin: 2px 0" start="{skipped + 1}">{items}</ol></div>')
    parts.append("</div>")
    return "".join(parts)


def record_html(record: "GameRecord") -> str:
    """A finished game at a glance: rules, bots, one row per round (start, caller, how it ended,
    each seat's final hand, total and score) and the game totals with the winners.

    >>> import cabo_kit as ck
    >>> rec = ck.play_game([ck.bots.GreedyBot(), ck.bots.RandomBot()], ck.Rules.preset("deluxe"), seed=3)
    >>> html = record_html(rec)
    >>> 'GreedyBot' in html, html.count('class="ck-round"') == len(rec.rounds)
    (True, True)
    """
    rules = record.rules
    changes = rules.differences()
    change_text = (" with " + ", ".join(f"{k}={v!r}" for k, v in changes.items())) if changes else ""
    n = record.n_players
    names = list(record.bots)
    head = (
        f"<b>{escape(rules.name)}</b> rules{escape(change_text)} &middot; {n} players &middot; "
        f"seed {escape(str(record.seed))} &middot; memory {escape(record.memory)} &middot; "
        f"{len(record.rounds)} rounds, {len(record.actions)} actions"
    )
    bots = ", ".join(escape(_seat_label(s, names)) for s in range(n))
    header = "".join(
        f'<th style="{_CELL}">{escape(_seat_label(s, names))}</th>' for s in range(n)
    )
    rows = [
        f'<tr><th style="{_CELL}">round</th><th style="{_CELL}">start</th><th style="{_CELL}">caller</th>'
        f'<th style="{_CELL}">ended by</th>{header}</tr>'
    ]
    for r in record.rounds:
        if r.caller is None:
            caller = "&mdash;"
        else:
            caller = f"seat {r.caller} ({'won' if r.caller_won else 'lost'})"
        cells = []
        for s in range(n):
            hand = r.final_hands[s] if s < len(r.final_hands) else []
            marks = []
            if s in r.kamikaze:
                marks.append("Kamikaze")
            if s in r.royal_roulette:
                marks.append("Royal Roulette")
            if s in r.resets:
                marks.append("reset to 50")
            mark = f' <b>{escape(", ".join(marks))}</b>' if marks else ""
            cells.append(
                f'<td style="{_CELL}">{hand_html(hand, positions=False)}<br>'
                f'<span style="font-size: 11px">total {r.totals[s]}, scores <b>{r.scores[s]}</b> '
                f'&rarr; {r.game_totals[s]}</span>{mark}</td>'
            )
        rows.append(
            f'<tr class="ck-round"><td style="{_CELL}">{r.index + 1}</td><td style="{_CELL}">seat {r.start_player}</td>'
            f'<td style="{_CELL}">{caller}</td><td style="{_CELL}">{escape(r.ended_by.replace("_", " "))}</td>'
            + "".join(cells) + "</tr>"
        )
    winners = set(record.winners)
    totals = "".join(
        f'<td style="{_CELL}{";background:#e8f5e9" if s in winners else ""}"><b>{escape(str(t))}</b>'
        + (" &#9733; winner" if s in winners else "") + "</td>"
        for s, t in enumerate(record.totals)
    )
    rows.append(f'<tr class="ck-totals"><td style="{_CELL}" colspan="4"><b>game totals</b></td>{totals}</tr>')
    if winners:
        result = "winner" + ("s" if len(winners) > 1 else "") + ": " + ", ".join(
            escape(_seat_label(s, names)) for s in record.winners
        )
    else:
        result = "the game is not over"
    return (
        f'<div class="ck-record" style="{_FONT}"><div>{head}</div><div>bots: {bots}</div>'
        f'<table style="{_TABLE}">' + "".join(rows) + f"</table><div><b>{result}</b></div></div>"
    )
