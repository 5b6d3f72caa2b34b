"""Write the golden transcripts: short seeded games, every seat's view at every step.

Run ``make golden`` (or ``.venv/bin/python tests/golden/make_golden.py``) after an
intended change to the engine, then read the diff: a card that shows up in a view where
its seat never saw it is a leak, and review is where it gets caught.

Each file holds one short game of one preset (GreedyBot against RandomBot, one round). For
every step it prints each seat's view (``record.view(seat, step).describe()``) with the
events that seat saw since its previous view, then the action played.

>>> seed, record = play("rush")
>>> render("rush").splitlines()[0] == (
...     f"# cabo-kit golden transcript: rush, seed {seed}, 2 players (GreedyBot, RandomBot), max_rounds=1")
True
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import cabo_kit as ck

HERE = Path(__file__).resolve().parent

# name -> (preset, bots, rule overrides, event kinds the game must show). One round keeps a file to a few
# hundred lines; the seed is the first one whose short game shows all those kinds, so the files keep
# covering peeks, spies, swaps, takes, Cabo and snaps (multi-exchanges in deluxe) when the shuffle changes.
GAMES: dict[str, tuple[str, tuple[str, ...], dict[str, Any], frozenset[str]]] = {
    "deluxe": ("deluxe", ("GreedyBot", "RandomBot"), {"max_rounds": 1},
               frozenset({"peek", "spy", "swap", "take", "cabo", "multi"})),
    "rush": ("rush", ("GreedyBot", "RandomBot"), {"max_rounds": 1},
             frozenset({"peek", "spy", "swap", "take", "cabo", "snap"})),
    "traveller": ("traveller", ("GreedyBot", "RandomBot", "GreedyBot"), {"max_rounds": 1},
                  frozenset({"peek", "spy", "swap", "take", "cabo", "snap"})),
}
# Every action adds one view per seat: a three-seat table with snap windows needs a shorter game.
MAX_ACTIONS = {"deluxe": 100, "rush": 80, "traveller": 60}


def _play(name: str, seed: int) -> ck.GameRecord:
    preset, bots, options, _ = GAMES[name]
    players = [getattr(ck.bots, b)() for b in bots]
    return ck.play_game(players, ck.Rules.preset(preset, **options), seed=seed)


def play(name: str) -> tuple[int, ck.GameRecord]:
    """The golden game ``name`` (a key of :data:`GAMES`) and its seed: the first seed showing the wanted events."""
    wanted = GAMES[name][3]
    for seed in range(1, 2000):
        record = _play(name, seed)
        if len(record.actions) <= MAX_ACTIONS[name] and wanted <= {e.kind for e in record.events}:
            return seed, record
    raise RuntimeError(f"no seed below 2000 gives a short {name} game with {sorted(wanted)}: loosen GAMES")


def render(name: str) -> str:
    """The transcript of the golden game ``name``: every seat's view at every step."""
    preset, bots, options, _ = GAMES[name]
    seed, record = play(name)
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
