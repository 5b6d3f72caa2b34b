"""A tiny driver for the table-driven rule tests: build a game on a stacked deck, apply actions, read the state.

Steps are action texts, optionally prefixed by the acting seat: ``"deck"``, ``"1: snap 0:2"``.

>>> g = new_game("rush", "2S 3S 4S 5S  2H 3H 4H 5H  9D  7C")
>>> run(g, "deck", "exchange 0")
>>> hand(g, 0), top(g), g.phase
(['7C', '3S', '4S', '5S'], '2S', <Phase.SNAP: 'snap'>)
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

import cabo_kit as ck
from cabo_kit import Game, Rules

PRESETS = ("deluxe", "rush", "traveller")


def rules(preset: str, **overrides: Any) -> Rules:
    """The preset's rules with overrides; traveller allows 2 players here (its teaching option).

    >>> rules("traveller").min_players
    2
    """
    if preset == "traveller":
        overrides.setdefault("min_players", 2)
    return Rules.preset(preset, **overrides)


def new_game(
    preset: "str | Rules",
    deck: str,
    n: int = 2,
    *,
    seed: int = 1,
    start: int = 0,
    looks: "Sequence[str] | None" = (),
    skip_first_window: bool = True,
    **overrides: Any,
) -> Game:
    """A game on a stacked deck with seat ``start`` to play first, set-up done.

    Deluxe: each seat applies its ``looks`` entry (default ``"look 0,1"``); ``looks=None``
    leaves the game in the ``look`` phase. Rush/traveller: the first snap window is passed
    by everybody unless ``skip_first_window`` is false.

    >>> new_game("deluxe", "1 2 3 4 5 6 7 8 9").phase
    <Phase.CHOOSE: 'choose'>
    """
    r = preset if isinstance(preset, Rules) else rules(preset, **overrides)
    game = Game(r, seed, n, deck=deck, start_player=start)
    if game.phase == "look" and looks is not None:
        for s in range(n):
            text = looks[s] if s < len(looks) else "look " + ",".join(map(str, range(r.initial_peeks)))
            game.apply(text, seat=s)
    if skip_first_window and game.phase == "snap":
        pass_window(game)
    return game


def layout(preset: "str | Rules", hands: Sequence[Sequence[Any]], discard: Sequence[Any] = (),
           deck: "Sequence[Any] | None" = None, **kw: Any) -> Game:
    """``Game.from_layout`` with a preset name (traveller allows 2 players).

    >>> layout("deluxe", [[1, 2], [3, 4]], [5], [6, 7]).phase
    <Phase.CHOOSE: 'choose'>
    """
    r = preset if isinstance(preset, Rules) else rules(preset, **kw.pop("overrides", {}))
    return Game.from_layout(r, hands, discard, deck, **kw)


def step(game: Game, text: str) -> None:
    """Apply one step: ``"action"`` or ``"seat: action"``."""
    seat: int | None = None
    head, sep, rest = text.partition(": ")
    if sep and head.strip().isdigit():
        seat, text = int(head), rest
    game.apply(text, seat=seat)


def run(game: Game, *steps: str) -> None:
    """Apply the steps in order; a step ``"window"`` lets every pending seat pass the snap window."""
    for text in steps:
        if text == "window":
            pass_window(game)
        else:
            step(game, text)


def pass_window(game: Game) -> None:
    """Every seat still to decide in the current snap window passes."""
    assert game.phase == "snap", f"no snap window open (phase {game.phase!r})"
    for s in list(game.to_move):
        game.apply("pass", seat=s)


def snap(game: Game, claims: dict[int, str]) -> None:
    """Resolve a snap window: the seats in ``claims`` claim (``"seat:pos"``), everybody else passes."""
    assert game.phase == "snap", f"no snap window open (phase {game.phase!r})"
    for s in list(game.to_move):
        game.apply(f"snap {claims[s]}" if s in claims else "pass", seat=s)


def hand(game: Game, seat: int) -> list[str]:
    """The true cards of a seat's hand (test-only: reads engine internals)."""
    return [game.know.faces[c].text for c in game.know.hands[seat]]


def up(game: Game, seat: int) -> list[bool]:
    """Which of a seat's cards lie face up."""
    return [game.know.up[c] for c in game.know.hands[seat]]


def pile(game: Game) -> list[str]:
    """The discard pile, bottom first."""
    return [game.know.faces[c].text for c in game.know.pile]


def top(game: Game) -> str | None:
    """The discard pile's top card, or ``None``."""
    return game.know.faces[game.know.pile[-1]].text if game.know.pile else None


def seen(game: Game, viewer: int, seat: int) -> list[str]:
    """``seat``'s hand as ``viewer``'s observation shows it (``??`` where unseen)."""
    return [c.text for c in game.observation(viewer).hands[seat]]


def all_text(game: Game, viewer: int) -> str:
    """Everything ``viewer`` can read: the observation's fields and events, as one text."""
    obs = game.observation(viewer)
    return repr(obs.to_dict()) + " ".join(str(e) for e in game.events_seen(viewer))


def kinds(events: Iterable[ck.Event]) -> list[str]:
    """The kinds of events, in order."""
    return [e.kind for e in events]


def conserved(game: Game) -> bool:
    """RULES.md §8: hands + deck + pile + drawn card hold every card exactly once."""
    ids = [c for h in game.know.hands for c in h] + list(game.deck) + list(game.know.pile)
    if game.drawn is not None:
        ids.append(game.drawn)
    return sorted(ids) == list(range(len(game.know.faces)))
