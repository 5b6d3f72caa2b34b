"""Playing whole games with bots in this process (trusted code only: your own bots, the reference bots).

>>> import cabo_kit as ck
>>> record = ck.play_game([ck.bots.GreedyBot(), ck.bots.RandomBot(), ck.bots.RandomBot()],
...                       ck.Rules.preset("traveller"), seed=11)
>>> len(record.totals), record.game_over
(3, True)
"""

from __future__ import annotations

import random
from typing import Any, Sequence

from .actions import IllegalActionError
from .bot import Bot
from .cards import Card
from .game import _ONE_SEAT, Game
from .record import GameRecord
from .rules import Rules

__all__ = ["play_game", "bot_random"]

_tuple_iter: Any = tuple.__iter__


def bot_random(seed: int | str, seat: int) -> random.Random:
    """The random stream a bot at ``seat`` gets in a game with ``seed``."""
    return random.Random(f"cabo-kit:{seed}:bot:{seat}")


def play_game(
    bots: Sequence[Bot],
    rules: Rules,
    seed: int | str = 0,
    *,
    memory: str = "engine",
    start_player: int | None = None,
    deck: "Sequence[Card | str | int] | str | None" = None,
) -> GameRecord:
    """Play one whole game with ``bots`` (one per seat, in seat order) and return its record.

    Each bot's ``random`` is seeded from ``seed`` and its seat, so the same bots and seed
    give the same record byte for byte. A bot that returns an illegal action raises
    :class:`~cabo_kit.actions.IllegalActionError` naming the bot and the seat.
    """
    n = len(bots)
    game = Game(rules, seed, n, deck=deck, start_player=start_player, memory=memory)
    for seat, bot in enumerate(bots):
        if not isinstance(bot, Bot):
            raise TypeError(f"seat {seat}: {bot!r} is not a cabo_kit.Bot instance (did you pass the class? write MyBot())")
        bot.random = bot_random(seed, seat)
        bot.on_game_start(seat, n, rules)
    names = [bot.name or type(bot).__name__ for bot in bots]
    run_game(game, bots, names)
    record = GameRecord.from_game(game, names)
    for bot in bots:
        bot.on_game_end(list(record.totals), list(record.winners))
    return record


def run_game(game: Game, bots: Sequence[Bot], names: Sequence[str]) -> None:
    """Drive ``game`` to its end with ``bots``, calling their round hooks."""
    round_seen = -1
    results = game.results
    results_seen = len(results)
    observation = game.observation
    apply = game.apply
    apply_legal = game._apply
    # Hooks a bot does not override are skipped: building their arguments costs time.
    starts = [(s, b) for s, b in enumerate(bots) if type(b).on_round_start is not Bot.on_round_start]
    ends = [b for b in bots if type(b).on_round_end is not Bot.on_round_end]
    choosers = [b.choose for b in bots]
    while True:
        phase = game.phase
        # game.to_move, inlined: the one seat to move, or every seat still pending at once.
        if phase == "snap" or phase == "look":
            movers: Sequence[int] = tuple(game._pending)
        elif phase == "over":
            break
        else:
            movers = _ONE_SEAT[game._snapper if phase == "give" else game.current]
        if starts and game.round != round_seen:
            round_seen = game.round
            for seat, bot in starts:
                bot.on_round_start(observation(seat))
        for seat in movers:
            obs = observation(seat)
            legal = obs[-1]
            action = choosers[seat](obs, legal)
            # The check apply() makes, for the usual answer: one of the engine's own legal action
            # objects, found by identity in the tuple this seat was just given. Anything else
            # (an equal copy, a multi-exchange, a text) goes through apply() in full.
            for a in _tuple_iter(legal):
                if a is action:
                    apply_legal(action, seat)
                    break
            else:
                try:
                    apply(action, seat)
                except (IllegalActionError, ValueError) as exc:
                    raise IllegalActionError(f"{names[seat]} at seat {seat}: {exc}") from exc
        if ends and len(results) != results_seen:
            for result in results[results_seen:]:
                for bot in ends:
                    bot.on_round_end(result.for_players())
            results_seen = len(results)



