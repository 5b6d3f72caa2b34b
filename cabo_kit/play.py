"""Playing whole games with bots in this process (trusted code only: your own bots, the reference bots).

>>> import cabo_kit as ck
>>> record = ck.play_game([ck.bots.GreedyBot(), ck.bots.RandomBot(), ck.bots.RandomBot()],
...                       ck.Rules.preset("traveller"), seed=11)
>>> len(record.totals), record.game_over
(3, True)
"""

from __future__ import annotations

import random
from typing import Any, Mapping, NamedTuple, Sequence

from .actions import Action, IllegalActionError
from .bot import Bot
from .cards import Card
from .game import Game, seeded_random
from .observation import Event, Observation
from .record import GameRecord
from .rules import Rules

__all__ = ["play_game", "bot_random", "run_game", "Stepper", "Step", "Fault"]

def bot_random(seed: int | str, seat: int) -> random.Random:
    """The random stream a bot at ``seat`` gets in a game with ``seed``."""
    return seeded_random(f"cabo-kit:{seed}:bot:{seat}")  # random.Random(that text), seeded once


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
    game = Game(rules, seed, len(bots), deck=deck, start_player=start_player, memory=memory)
    Stepper(game, bots, game_hooks=True).run()
    return GameRecord.from_game(game, [bot.name or type(bot).__name__ for bot in bots])


def run_game(game: Game, bots: Sequence[Bot], names: Sequence[str]) -> None:
    """Drive ``game`` to its end with ``bots`` (one per seat), calling their round hooks: ``Stepper(...).run()``."""
    Stepper(game, bots, names=names).run()


class Fault(NamedTuple):
    """A bot's failure that a :class:`Stepper` with ``on_error="random"`` got over: a decision it
    replaced with a random legal action, or a hook (``on_round_start``...) that raised.

    ``message`` has the details (the exception's text may hold cards only that bot saw: keep it
    away from other players); ``short`` says what went wrong without them.
    """

    seat: int
    name: str
    message: str
    replacement: Action | None
    short: str = ""

    def __str__(self) -> str:
        if self.replacement is None:
            return f"{self.name} (seat {self.seat}) {self.message}; the game went on"
        return f"{self.name} (seat {self.seat}) {self.message}; played a random legal action instead: {self.replacement}"


class Step(NamedTuple):
    """One decision carried out by a :class:`Stepper`: who, what, and the events it caused."""

    seat: int
    action: Action
    events: list[Event]
    fault: Fault | None = None


class _Waiting(Exception):
    """Raised inside ``Game.play_out`` for a seat without a bot: :meth:`Stepper.next_decision` returns its observation."""


def _wait(observation: Observation, legal: Sequence[Action]) -> Action:
    raise _Waiting(observation)


class Stepper:
    """The one game loop: bots decide for their seats, and the game stops where a seat without a bot must.

    ``bots`` maps seats to :class:`~cabo_kit.bot.Bot` instances (a dict, or a list with
    ``None`` for seats a person or your own code plays). :meth:`advance` lets the bots move
    until a seat without a bot must decide, snap windows included (every seat answers a
    window, in seat order, so a game is the same whichever seats are bots); :meth:`apply`
    carries out such a seat's decision. Both return the events that happened, as ``viewer`` saw
    them (``None``: every face shown; give a seat to hide what that seat may not know).
    :meth:`step` moves one bot at a time, for tables that show moves at a pace.
    :meth:`next_decision` does what :meth:`advance` does in the engine's fast loop, without the
    events, and hands back the observation of the seat that decides (a program playing a seat).
    :func:`play_game`, :func:`~cabo_kit.check_bot` and the tournament drive whole games
    with :meth:`run`.

    Round hooks (``on_round_start``, ``on_round_end``) are called as the game reaches them.
    ``game_hooks=True`` also seeds each bot's ``random`` from the game's seed and calls
    ``on_game_start`` (now) and ``on_game_end`` (when the game ends), as :func:`play_game` does.

    ``on_error="raise"`` (default): a bot that raises, or answers something illegal, stops
    the game with an exception naming the bot and its seat. ``on_error="random"``: that
    seat plays a random legal action instead, and a :class:`Fault` saying so is kept in
    :attr:`faults` and in the returned :class:`Step` (a card table should not freeze).

    >>> import cabo_kit as ck
    >>> game = ck.Game(ck.Rules.preset("deluxe"), seed=2, n_players=3, start_player=1)
    >>> stepper = ck.Stepper(game, {1: ck.bots.GreedyBot(), 2: ck.bots.RandomBot()}, viewer=0, game_hooks=True)
    >>> stepper.advance()                   # seats decide the set-up look in seat order: seat 0 first
    []
    >>> stepper.waiting, game.phase
    ((0,), <Phase.LOOK: 'look'>)
    >>> [str(e) for e in stepper.apply("look 2,3", seat=0)]
    ['seat 0 looks at own positions 2,3: 1 3']
    >>> for event in stepper.advance():     # the bots look, the first card is turned up, they play
    ...     print(event)
    seat 1 looks at own positions 0,1
    seat 2 looks at own positions 2,3
    the top card of the deck is turned up: 3
    seat 1 takes 3 from the discard pile
    seat 1 exchanges own position 1 (13) (keeps 3)
    seat 2 takes 13 from the discard pile
    seat 2 exchanges own position 3 (4) (keeps 13)
    >>> stepper.waiting, game.phase, game.legal_actions(0)
    ((0,), <Phase.CHOOSE: 'choose'>, (DrawDeck(), DrawDiscard(), CallCabo()))
    """

    def __init__(
        self,
        game: Game,
        bots: "Mapping[int, Bot] | Sequence[Bot | None]",
        *,
        names: Sequence[str] | None = None,
        viewer: int | None = None,
        on_error: str = "raise",
        game_hooks: bool = False,
    ) -> None:
        n = game.n
        # (a list or a tuple is told apart first: typing's Mapping test costs more than the rest of this)
        if isinstance(bots, (list, tuple)) or not isinstance(bots, Mapping):
            seated = {s: b for s, b in enumerate(bots) if b is not None}
        else:
            seated = dict(bots.items())
        for seat, bot in seated.items():
            if not (isinstance(seat, int) and 0 <= seat < n):
                raise ValueError(f"bots: {seat!r} is not a seat of this {n}-player table (seats 0..{n - 1})")
            if Bot not in type(bot).__mro__ and not isinstance(bot, Bot):  # (a subclass found first: ABC checks cost)
                raise TypeError(f"seat {seat}: {bot!r} is not a cabo_kit.Bot instance (did you pass the class? write MyBot())")
        if on_error not in ("raise", "random"):
            raise ValueError(f"on_error={on_error!r}: choose 'raise' or 'random'")
        if viewer is not None and not 0 <= viewer < n:
            raise ValueError(f"viewer={viewer!r} is not a seat of this {n}-player table")
        self.game = game
        self.bots: dict[int, Bot] = seated
        self.names: list[str] = (
            [*names] if names is not None
            else [(seated[s].name or type(seated[s]).__name__) if s in seated else f"seat {s}" for s in range(n)]
        )
        self.viewer = viewer
        self.on_error = on_error
        self.faults: list[Fault] = []
        self._game_hooks = game_hooks
        self._round_seen = -1
        self._results_seen = len(game.results)
        self._ended = game.is_over
        # Hooks a bot does not override are skipped: building their arguments costs time.
        in_order = sorted(seated.items())
        starts: list[tuple[int, Bot]] = []
        ends: list[tuple[int, Bot]] = []
        for pair in in_order:  # (one loop, not two comprehensions' functions and frames)
            kind = type(pair[1])
            if kind.on_round_start is not Bot.on_round_start:
                starts.append(pair)
            if kind.on_round_end is not Bot.on_round_end:
                ends.append(pair)
        self._starts = starts
        self._ends = ends
        self._choosers: dict[int, Any] | None = None  # next_decision's, made on its first call
        #: Hooks that raised with ``on_error="random"`` and not yet collected by a caller (a card table shows them).
        self.hook_faults: list[Fault] = []
        if game_hooks:
            for seat, bot in in_order:
                bot.random = bot_random(game.seed, seat)
                self._hook(seat, "on_game_start", seat, n, game.rules)

    @property
    def waiting(self) -> tuple[int, ...]:
        """The seats without a bot that must decide now (empty while a bot must, or once the game is over)."""
        return tuple(s for s in self.game.to_move if s not in self.bots)

    @property
    def bot_to_move(self) -> int | None:
        """The seat of the bot that decides next, or ``None`` if a seat without a bot must decide first
        (seats answer a snap window or a set-up look in seat order, as :meth:`run` has them) or the game is over."""
        movers = self.game.to_move
        if movers and movers[0] in self.bots:
            return movers[0]
        return None

    def step(self) -> Step | None:
        """Let one bot make one decision; ``None`` if no bot must decide now (a person must, or the game is over)."""
        seat = self.bot_to_move
        if seat is None:
            return None
        game = self.game
        self._round_hooks()
        bot = self.bots[seat]
        obs = game.observation(seat)
        legal = obs.legal_actions
        mark = game.event_count
        fault = None
        try:
            action = bot.choose(obs, legal)
        except Exception as exc:
            if self.on_error == "raise":
                raise
            fault = self._fault(seat, f"raised {type(exc).__name__}: {exc}", f"raised {type(exc).__name__}")
        else:
            try:
                game.apply(action, seat)
            except (IllegalActionError, ValueError) as exc:
                if self.on_error == "raise":
                    raise IllegalActionError(f"{self.names[seat]} at seat {seat}: {exc}") from exc
                fault = self._fault(seat, f"answered {action!r}, which is not legal now", "answered a move that is not legal now")
        action = game.history[-1][1]
        self._after_move()
        return Step(seat, action, self._seen(mark), fault)

    def advance(self) -> list[Event]:
        """Let the bots move until a seat without a bot must decide or the game ends; the events that happened."""
        events: list[Event] = []
        while True:
            step = self.step()
            if step is None:
                return events
            events += step.events

    def apply(self, action: Action | str, seat: int | None = None) -> list[Event]:
        """Carry out a decision of a seat without a bot (checked, as :meth:`Game.apply`); the events it caused."""
        game = self.game
        waiting = self.waiting
        if seat is None:
            if len(waiting) != 1:
                raise IllegalActionError(
                    "no seat without a bot must decide now: call advance() first" if not waiting
                    else f"seats {', '.join(map(str, waiting))} decide at once: say which seat acts (seat=...)"
                )
            seat = waiting[0]
        if seat in self.bots:
            raise IllegalActionError(f"seat {seat} is played by {self.names[seat]}: its bot decides for it")
        if seat not in game.to_move:
            raise IllegalActionError(f"seat {seat} cannot act now; to move: {', '.join(map(str, game.to_move)) or 'nobody'}")
        if self.bot_to_move is not None:
            raise IllegalActionError(
                f"{self.names[self.bot_to_move]} answers before seat {seat} (seats answer in seat order): call advance() first"
            )
        self._round_hooks()
        mark = game.event_count
        game.apply(action, seat)
        self._after_move()
        return self._seen(mark)

    def run(self) -> None:
        """Play the game to its end; every seat that must decide needs a bot (the fast loop whole games use)."""
        game = self.game
        choosers = {s: b.choose for s, b in self.bots.items()}
        hooks = bool(self._starts or self._ends)  # else the game plays to its end in one call
        while not game.is_over:
            if self._starts and game.round != self._round_seen:
                self._round_hooks()
            game.play_out(choosers, self.names, hooks)
            if hooks:
                self._after_move()
        self._after_move()

    def next_decision(self) -> Observation | None:
        """Let the bots move until a seat without a bot must decide; that seat's observation (``None`` once the
        game is over).

        What :meth:`advance` does, in :meth:`run`'s loop (the engine's :meth:`Game.play_out
        <cabo_kit.Game.play_out>`, the round hooks called as the game reaches them) and without
        collecting the events: the cheap way for a program that plays a seat, as
        :class:`cabo_kit.rl.SeatEnv` does. The observation is the one the engine made for that
        decision (``observation.seat`` decides; ``observation.legal_actions`` are its choices).
        Carry the decision out with :meth:`apply`, or straight on the game (:meth:`Game.apply
        <cabo_kit.Game.apply>`): the next call first calls the round-end and game-end hooks that
        move reached. As in :meth:`run`, a bot that raises or answers something illegal raises,
        whatever ``on_error`` says. The seats' bots are read at the first call: a Stepper's ``bots``
        stay as they were given (make a new Stepper to seat others).

        >>> import cabo_kit as ck
        >>> game = ck.Game(ck.Rules.preset("deluxe"), seed=2, n_players=3)
        >>> stepper = ck.Stepper(game, {1: ck.bots.GreedyBot(), 2: ck.bots.RandomBot()}, game_hooks=True)
        >>> obs = stepper.next_decision()              # the set-up look: seat 0 first
        >>> obs.seat, obs.phase, obs.legal_actions[:2]
        (0, <Phase.LOOK: 'look'>, (InitialPeek(positions=(0, 1)), InitialPeek(positions=(0, 2))))
        >>> while obs is not None:                       # seat 0 always plays its first legal action
        ...     _ = game.apply(obs.legal_actions[0], obs.seat)
        ...     obs = stepper.next_decision()
        >>> game.is_over, len(game.results) > 0
        (True, True)
        """
        game = self.game
        choosers = self._choosers
        if choosers is None:
            choosers = self._choosers = {s: self.bots[s].choose if s in self.bots else _wait for s in range(game.n)}
        hooks = bool(self._starts or self._ends)  # else play_out runs on through round ends
        while True:
            self._after_move()
            if game.is_over:
                return None
            if self._starts and game.round != self._round_seen:
                self._round_hooks()
            seat = game.to_move[0]
            if seat not in self.bots:  # no bot moves first (the seat's next decision in its turn): no loop to enter
                return game.observation(seat)
            try:
                game.play_out(choosers, self.names, hooks)
            except _Waiting as waiting:
                return waiting.args[0]

    def _hook(self, seat: int, name: str, *args: Any) -> None:
        """Call a bot's hook; with ``on_error="random"`` a hook that raises is recorded, not fatal."""
        if self.on_error == "raise":
            getattr(self.bots[seat], name)(*args)
            return
        try:
            getattr(self.bots[seat], name)(*args)
        except Exception as exc:
            what = type(exc).__name__
            fault = Fault(seat, self.names[seat], f"raised {what} in {name}(): {exc}", None, f"raised {what} in {name}()")
            self.faults.append(fault)
            self.hook_faults.append(fault)

    def _round_hooks(self) -> None:
        game = self.game
        if game.round != self._round_seen and not game.is_over:
            self._round_seen = game.round
            for seat, _ in self._starts:
                self._hook(seat, "on_round_start", game.observation(seat))

    def _after_move(self) -> None:
        game = self.game
        results = game.results
        if len(results) != self._results_seen:
            for result in results[self._results_seen:]:
                for seat, _ in self._ends:
                    self._hook(seat, "on_round_end", result.for_players())
            self._results_seen = len(results)
        if self._game_hooks and game.is_over and not self._ended:
            self._ended = True
            totals, winners = game.totals, game.winners
            for seat in sorted(self.bots):
                self._hook(seat, "on_game_end", list(totals), list(winners))

    def _seen(self, mark: int) -> list[Event]:
        return self.game.events_seen(self.viewer, since=mark)

    def _fault(self, seat: int, message: str, short: str) -> Fault:
        """Play a random legal action for ``seat`` (seeded by the game and the move number) and record why."""
        game = self.game
        rng = random.Random(f"cabo-kit:{game.seed}:fallback:{seat}:{len(game.history)}")
        action = rng.choice(list(game.legal_actions(seat)))
        game.apply(action, seat)
        fault = Fault(seat, self.names[seat], message, action, short)
        self.faults.append(fault)
        return fault
