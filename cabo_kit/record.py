"""Game records: every action and event of a game, its rounds and result, as JSON that replays.

>>> import cabo_kit as ck
>>> bots = [ck.bots.RandomBot(), ck.bots.RandomBot()]
>>> record = ck.play_game(bots, ck.Rules.preset("rush"), seed=4)
>>> again = ck.GameRecord.from_json(record.to_json())
>>> again.to_json() == record.to_json(), again.winners == record.winners
(True, True)
>>> record.view(0, 0).phase               # what seat 0 saw before the first action
<Phase.SNAP: 'snap'>
"""

from __future__ import annotations

import json
from typing import Any, Sequence

from .actions import Action
from .chance import FixedChance
from .game import Game, RoundResult
from .observation import Event, EventKind, Observation
from .rules import Rules

__all__ = ["GameRecord", "RecordError", "SCHEMA_VERSION"]

SCHEMA_VERSION = 1


class RecordError(ValueError):
    """A game record's JSON is malformed or of an unknown schema version."""


class GameRecord:
    """A finished (or stopped) game: how it was set up, every action, every event, every round.

    Attributes:
        rules, seed, n_players, memory, start_player (of the first round),
        deck (the stacked first deck, as card texts, or ``None``), layout (for games
        made with :meth:`Game.from_layout`, else ``None``), bots (names by seat),
        actions (``(seat, action)`` pairs in order), events (every event, every face
        shown), rounds (:class:`~cabo_kit.game.RoundResult` list), totals, winners,
        ``info`` (free-form extras such as a tournament's fault notes), and ``chance``: for a
        game played with a :class:`~cabo_kit.chance.Chance`, what each random event came out as
        (``{"cards": [...], "snap_races": [...], "reshuffles": [[...], ...]}``, replayed through a
        :class:`~cabo_kit.chance.FixedChance`), else ``None``.

    >>> import cabo_kit as ck
    >>> game = ck.Game(ck.Rules.preset("deluxe"), seed=5, n_players=2, chance=ck.FixedChance(cards="1 2 3 4  5 6 7 8  9  10"))
    >>> _ = game.apply("look 0,1", seat=0); _ = game.apply("look 0,1", seat=1); _ = game.apply("deck")
    >>> record = ck.GameRecord.from_game(game)
    >>> record.chance["cards"][-2:], record.replay().drawn_card   # the deck's 10 comes again
    (['9', '10'], Card('10'))
    """

    def __init__(
        self,
        rules: Rules,
        seed: int | str,
        n_players: int,
        memory: str,
        start_player: int,
        deck: list[str] | None,
        layout: dict[str, Any] | None,
        bots: list[str],
        actions: list[tuple[int, Action]],
        events: list[Event],
        rounds: list[RoundResult],
        totals: list[int],
        winners: list[int],
        info: dict[str, Any] | None = None,
        chance: dict[str, Any] | None = None,
    ) -> None:
        self.rules = rules
        self.seed = seed
        self.n_players = n_players
        self.memory = memory
        self.start_player = start_player
        self.deck = deck
        self.layout = layout
        self.bots = bots
        self.actions = actions
        self.events = events
        self.rounds = rounds
        self.totals = totals
        self.winners = winners
        self.info = info if info is not None else {}
        self.chance = chance

    @classmethod
    def from_game(cls, game: Game, bots: Sequence[str] | None = None, info: dict[str, Any] | None = None) -> "GameRecord":
        """The record of ``game`` so far (with a Chance: what each of its random events came out as)."""
        log = game.chance_log
        chance = None if log is None else {
            "cards": [c.text for c in log[0]],
            "snap_races": list(log[1]),
            "reshuffles": [[c.text for c in order] for order in log[2]],
        }
        return cls(
            rules=game.rules,
            seed=game.seed,
            n_players=game.n,
            memory=game.memory,
            start_player=game.first_start_player,
            deck=[c.text for c in game.stacked_deck] if game.stacked_deck is not None else None,
            layout=game.layout,
            bots=list(bots) if bots is not None else [f"seat {s}" for s in range(game.n)],
            actions=list(game.history),
            events=game.events_seen(None),
            rounds=list(game.results),
            totals=list(game.sheet.totals),
            winners=list(game.sheet.winners),
            info=info,
            chance=chance,
        )

    @property
    def game_over(self) -> bool:
        return bool(self.winners)

    def ranking(self) -> list[int]:
        """Each seat's final place (1 best; the last round's score breaks ties; full ties share a place)."""
        last = self.rounds[-1].scores if self.rounds else [0] * self.n_players
        keys = [(self.totals[s], last[s]) for s in range(self.n_players)]
        return [1 + sum(1 for k in keys if k < keys[s]) for s in range(self.n_players)]

    # ------------------------------------------------------------------ JSON

    def to_dict(self) -> dict[str, Any]:
        data = {
            "schema_version": SCHEMA_VERSION,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "n_players": self.n_players,
            "memory": self.memory,
            "start_player": self.start_player,
            "deck": self.deck,
            "layout": self.layout,
            "bots": self.bots,
            "actions": [[s, str(a)] for s, a in self.actions],
            "events": [e.to_list() for e in self.events],
            "rounds": [r.to_dict() for r in self.rounds],
            "totals": self.totals,
            "winners": self.winners,
            "info": self.info,
        }
        if self.chance is not None:  # only then: records of games without a Chance keep their bytes
            data["chance"] = self.chance
        return data

    def to_json(self, indent: int | None = None) -> str:
        """The record as JSON; the same game gives the same bytes, in any process."""
        if indent is None:
            return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))
        return json.dumps(self.to_dict(), sort_keys=True, indent=indent)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "GameRecord":
        version = data.get("schema_version") if isinstance(data, dict) else None
        if version != SCHEMA_VERSION:
            raise RecordError(
                f"game record schema_version {version!r} is not supported (this cabo-kit reads version {SCHEMA_VERSION})"
            )
        try:
            return cls(
                rules=Rules.from_dict(data["rules"]),
                seed=data["seed"],
                n_players=data["n_players"],
                memory=data["memory"],
                start_player=data["start_player"],
                deck=data["deck"],
                layout=data["layout"],
                bots=list(data["bots"]),
                actions=[(int(s), Action.parse(a)) for s, a in data["actions"]],
                events=[Event.from_list(e) for e in data["events"]],
                rounds=[RoundResult.from_dict(r) for r in data["rounds"]],
                totals=list(data["totals"]),
                winners=list(data["winners"]),
                info=dict(data.get("info") or {}),
                chance=_chance_dict(data.get("chance")),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise RecordError(f"game record is malformed: {exc!r}") from None

    @classmethod
    def from_json(cls, text: str | bytes) -> "GameRecord":
        """Read a record written by :meth:`to_json`; a malformed one raises :class:`RecordError`."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RecordError(f"game record is not valid JSON: {exc}") from None
        return cls.from_dict(data)

    # ---------------------------------------------------------------- replays

    def new_game(self) -> Game:
        """A fresh game set up exactly as this one was (before any action)."""
        if self.layout is not None:
            lay = dict(self.layout)
            return Game.from_layout(
                self.rules, lay.pop("hands"), lay.pop("discard"), lay.pop("deck"), seed=self.seed,
                memory=self.memory, **lay,
            )
        chance = None
        if self.chance is not None:
            chance = FixedChance(
                cards=self.chance["cards"], snap_races=self.chance["snap_races"], reshuffles=self.chance["reshuffles"]
            )
        return Game(
            self.rules, self.seed, self.n_players, deck=self.deck, start_player=self.start_player, memory=self.memory,
            chance=chance,
        )

    def replay(self, step: int | None = None) -> Game:
        """The game after the first ``step`` actions (default: all of them)."""
        game = self.new_game()
        actions = self.actions if step is None else self.actions[:step]
        if step is not None and not 0 <= step <= len(self.actions):
            raise IndexError(f"step {step} is outside 0..{len(self.actions)}")
        for seat, action in actions:
            game.apply(action, seat)
        return game

    def view(self, seat: int, step: int) -> Observation:
        """What ``seat`` saw after the first ``step`` actions: the observation a bot at that seat got."""
        return self.replay(step).observation(seat)

    def transcript(self, seat: int | None = None) -> str:
        """The game in plain words, as ``seat`` saw it (``None``: every face shown).

        >>> import cabo_kit as ck
        >>> rec = ck.play_game([ck.bots.RandomBot(), ck.bots.RandomBot()], ck.Rules.preset("deluxe"), seed=2)
        >>> print(rec.transcript(0).splitlines()[0])
        Game of deluxe, 2 players (RandomBot, RandomBot), seed 2, as seat 0 saw it
        """
        events = self.replay().events_seen(seat) if seat is not None else self.events
        who = "every card shown" if seat is None else f"as seat {seat} saw it"
        lines = [f"Game of {self.rules.name}, {self.n_players} players ({', '.join(self.bots)}), seed {self.seed}, {who}"]
        for e in events:
            indent = "" if e.kind in (EventKind.ROUND, EventKind.END) else "  "
            lines.append(indent + str(e))
        if self.winners:
            lines.append(f"Final totals: {' '.join(map(str, self.totals))}; winner: seat {', '.join(map(str, self.winners))}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        from .render import record_html

        return record_html(self)

    def __repr__(self) -> str:
        return (
            f"<GameRecord {self.rules.name} {self.n_players} players seed={self.seed!r}: {len(self.rounds)} rounds, "
            f"{len(self.actions)} actions, totals {self.totals}, winners {self.winners}>"
        )


def _chance_dict(data: Any) -> dict[str, Any] | None:
    """A record's ``chance`` entry, checked (``None``: the game had no Chance; records before it have none)."""
    if data is None:
        return None
    cards, races, shuffles = data["cards"], data["snap_races"], data["reshuffles"]
    if not (isinstance(cards, list) and isinstance(races, list) and isinstance(shuffles, list)):
        raise TypeError("chance: cards, snap_races and reshuffles must be lists")
    return {"cards": [str(c) for c in cards], "snap_races": [int(s) for s in races],
            "reshuffles": [[str(c) for c in order] for order in shuffles]}
