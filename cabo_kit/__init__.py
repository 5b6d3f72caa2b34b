"""cabo-kit: play, teach and run bot tournaments of the card game CABO.

The engine is pure Python (standard library only), so ``import cabo_kit`` is instant.

>>> import cabo_kit as ck
>>> rules = ck.Rules.preset("deluxe")
>>> record = ck.play_game([ck.bots.GreedyBot(), ck.bots.RandomBot()], rules, seed=1)
>>> record.game_over
True
"""

from . import bots
from .actions import (
    Action, ActionParseError, CallCabo, Discard, DrawDeck, DrawDiscard, Exchange, Give, IllegalActionError,
    InitialPeek, LegalActions, Pass, Peek, Place, Snap, Spy, Swap,
)
from .bot import Bot, BotError, SimpleBot
from .cards import UNKNOWN, Card, CardParseError
from .chance import Chance, FixedChance
from .game import Game, RoundResult
from .observation import Event, EventKind, EventLog, Observation, Phase
from .play import Fault, Step, Stepper, play_game
from .record import GameRecord, RecordError
from .rules import PRESETS, Power, Rules, RulesError
from .scoring import ScoreSheet, ScoreSheetError, next_start_player, round_details, score_round

__version__ = "0.1.0"

__all__ = [
    "Action", "ActionParseError", "Bot", "BotError", "CallCabo", "Card", "CardParseError", "Chance", "Discard", "DrawDeck",
    "DrawDiscard", "Event", "EventKind", "EventLog", "Exchange", "FixedChance", "Game", "GameRecord", "Give", "IllegalActionError", "InitialPeek",
    "LegalActions", "Fault", "Observation", "PRESETS", "Pass", "Peek", "Phase", "Place", "Power", "RecordError", "RoundResult", "Rules",
    "RulesError", "ScoreSheet", "ScoreSheetError", "SimpleBot", "Snap", "Spy", "Step", "Stepper", "Swap", "UNKNOWN", "bots",
    "next_start_player", "play_game", "round_details", "score_round", "__version__",
]


def __getattr__(name: str) -> object:
    # check_bot and duel pull in the tournament's isolation code: load it on first use so `import cabo_kit` stays instant.
    if name == "check_bot":
        from .tournament.check import check_bot

        return check_bot
    if name == "duel":
        from .tournament.duel import duel

        return duel
    # No import here: a submitted bot's process may import nothing new once it runs (see tournament/harness.py).
    near = [n for n in __all__ if _near(name.lower(), n.lower())]
    hint = f": did you mean cabo_kit.{near[0]}?" if near else ""
    raise AttributeError(f"module 'cabo_kit' has no attribute {name!r}{hint}")


def _near(a: str, b: str) -> bool:
    """Whether ``a`` is at most 2 edits (insert, delete, substitute) from ``b``, for a misspelt name's hint."""
    if abs(len(a) - len(b)) > 2 or len(b) < 4:
        return False
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1] <= 2
