"""Write the golden transcripts: short seeded games, every seat's view at every step.

Run ``make golden`` (or ``.venv/bin/python tests/golden/make_golden.py``) after an
intended change to the engine, then read the diff: a card that shows up in a view where
its seat never saw it is a leak, and review is where it gets caught.

Each file holds one game of one preset (GreedyBot against RandomBot, one round). For
every step it prints each seat's view (``record.view(seat, step).describe()``) with the
events that seat saw since its previous view, then the action played.

>>> text = render("rush")
>>> text.splitlines()[0]
'# cabo-kit golden transcript: rush, seed 7, 2 players (GreedyBot, RandomBot), max_rounds=1'
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import cabo_kit as ck

HERE = Path(__file__).resolve().parent

# name -> (preset, seed, bots, rule overrides). Seeds picked so that one short round shows peeks, spies,
# swaps, a take, Cabo (and a snap, or a multi-exchange in deluxe); one round keeps a file to a few hundred lines.
GAMES: dict[str, tuple[str, int, tuple[str, ...], dict[str, Any]]] = {
    "deluxe": ("deluxe", 10, ("GreedyBot", "RandomBot"), {"max_rounds": 1}),
    "rush": ("rush", 7, ("GreedyBot", "RandomBot"), {"max_rounds": 1}),
    "traveller": ("traveller", 29, ("GreedyBot", "RandomBot", "GreedyBot"), {"max_rounds": 1}),
}


def play(name: str) -> ck.GameRecord:
    """The golden game ``name`` (a key of :data:`GAMES`), played afresh."""
    preset, seed, bots, options = GAMES[name]
    players = [getattr(ck.bots, b)() for b in bots]
    return ck.play_game(players, ck.Rules.preset(preset, **options), seed=seed)


def render(name: str) -> str:
    """The transcript of the golden game ``name``: every seat's view at every step."""
    preset, seed, bots, options = GAMES[name]
    record = play(name)
    n = record.n_players
    extras = ", ".join(f"{k}={v}" for k, v in sorted(options.items()))
    lines = [f"# cabo-kit golden transcript: {preset}, seed {seed}, {n} players ({', '.join(bots)}), {extras}"]
    seen = [0] * n
    last_round = [-1] * n
    for step in range(len(record.actions) + 1):
        lines.append(f"== step {step}")
        for seat in range(n):
            view = record.view(seat, step)
            if view.round != last_round[seat]:
                last_round[seat], seen[seat] = view.round, 0
            lines.extend(view.describe().splitlines())
            for event in view.events[seen[seat]:]:
                lines.append(f"    * {event}")
            seen[seat] = len(view.events)
        if step < len(record.actions):
            actor, action = record.actions[step]
            lines.append(f"-> seat {actor}: {action}")
    lines.append(f"== final totals {' '.join(map(str, record.totals))}; winners {record.winners}")
    return "\n".join(lines) + "\n"


def path_of(name: str) -> Path:
    """Where the golden file of ``name`` lives."""
    return HERE / f"{name}.txt"


def main() -> None:
    for name in GAMES:
        text = render(name)
        path_of(name).write_text(text, encoding="utf-8")
        print(f"wrote {path_of(name)} ({len(text.splitlines())} lines, {len(text.encode())} bytes)")


if __name__ == "__main__":
    sys.exit(main())
