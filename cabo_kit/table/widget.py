"""The card table and the replay viewer as notebook widgets (anywidget: the cards themselves are clickable).

The widget holds view state only. Python keeps the game and the bots, builds each picture of
the table from the person's observation (:mod:`cabo_kit.table.picture`, drawn by :mod:`cabo_kit.table.draw`;
clicks read by :mod:`cabo_kit.table.clicks`), and sends the page
nothing but that picture as HTML: a face the person may not know never leaves Python. The
page draws the picture and sends back clicks (``{"type": "click", "target": ...}``); bots'
moves unfold as the page asks for the next picture (``"tick"``) after each one's hold time,
so the kernel never waits on anything and stays responsive.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Iterable, Sequence

import anywidget
import ipywidgets as widgets
import traitlets

from ..bot import Bot
from ..bots.levels import LEVELS, by_level
from ..cards import Card
from ..game import Game
from ..observation import Event, EventKind, Observation
from ..play import Step, Stepper
from ..record import GameRecord
from ..rules import Rules
from .clicks import BUTTONS, Chooser, shows
from .draw import Frame, render_table, round_summary_html
from .picture import (
    TableState, button_label, describe, powers_of, reveals, seat_names, status_text, table_state, touched,
)

__all__ = ["CardTable", "Replay"]

_HERE = Path(__file__).parent
_REVEAL_HOLD = 1.5  # seconds a card seen from memory stays shown (memory="none")


def _rules(rules: "Rules | str") -> Rules:
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, str):
        return Rules.preset(rules)
    raise TypeError(f"rules={rules!r}: give a preset name ('deluxe', 'rush', 'traveller') or a cabo_kit.Rules")


def _opponent(spec: Any) -> tuple[Bot, str]:
    """A bot and its label from a level (1-4 or its name), a Bot instance, or a Bot class."""
    if isinstance(spec, Bot):
        return spec, spec.name or type(spec).__name__
    if isinstance(spec, type) and issubclass(spec, Bot):
        bot = spec()
        return bot, bot.name or spec.__name__
    if isinstance(spec, (int, str)) and not isinstance(spec, bool):
        bot = by_level(spec)
        for number, (label, cls) in LEVELS.items():
            if type(bot) is cls:
                return bot, f"level {number}, {label}"
    raise TypeError(
        f"opponent {spec!r}: give a level (1-4 or 'easy', 'medium', 'tricky', 'hard'), a Bot instance (MyBot()) or a Bot class"
    )


class _TableView(anywidget.AnyWidget):
    """The page side shared by the card table and the replay: draws ``frame`` and reports clicks."""

    _esm = _HERE / "table.js"
    _css = _HERE / "table.css"
    frame = traitlets.Dict().tag(sync=True)


class CardTable(_TableView):
    """Play Cabo against bots in a notebook: click the cards, the deck, the discard pile and the buttons.

    Args:
        rules: a preset name (``"deluxe"``, ``"rush"``, ``"traveller"``) or a :class:`~cabo_kit.Rules`.
        opponents: one entry per other seat: a level (``1``-``4`` or ``"easy"``, ``"medium"``,
            ``"tricky"``, ``"hard"``), a :class:`~cabo_kit.Bot` instance (your own bot class
            too), or a Bot class.
        seat: your seat (``0`` sits first); ``None`` watches the bots play each other, every card face up.
        seed: the game's seed (``None``: a random one, shown on the table so a game can be replayed).
        memory: ``"engine"`` shows every card you have seen; ``"none"`` is the real game: a card you
            look at is shown only at that moment, and the log keeps no faces.
        pace: seconds each bot move stays on screen (``0``: instant, for tests and notebooks run unattended).
        deck, start_player: a stacked first deal and who starts, as :class:`~cabo_kit.Game` takes them
            (lessons that show a situation; tests). :meth:`new_game` deals from the seed alone.

    The same clicks a browser sends can be sent from Python (:meth:`click`), which is how the
    notebooks check a table without a person:

    >>> from cabo_kit.table import CardTable
    >>> table = CardTable("deluxe", opponents=[1], seed=3, pace=0)
    >>> table.status
    'Choose 2 of your cards to look at.'
    >>> table.click("card:0:0"); table.click("card:0:1")
    >>> [card.text for card in table.view.hands[0]]
    ['13', '7', '??', '??']
    >>> table.click("deck")
    >>> table.status.startswith("You drew")
    True
    """

    def __init__(
        self,
        rules: "Rules | str" = "deluxe",
        opponents: Sequence[Any] = (2, 3, 4),
        seat: int | None = 0,
        seed: int | str | None = None,
        memory: str = "engine",
        pace: float = 0.6,
        *,
        deck: "Sequence[Card | str | int] | str | None" = None,
        start_player: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self._deck, self._start_player = deck, start_player
        self.rules = _rules(rules)
        if not opponents:
            raise ValueError("opponents is empty: give at least one, e.g. opponents=[2] (a level-2 bot)")
        bots = [_opponent(spec) for spec in opponents]
        n = len(bots) + (0 if seat is None else 1)
        self.rules.check_players(n)
        if n > 6:
            raise ValueError(f"{n} players: the card table seats 2 to 6 (for bigger simulations use ck.play_game)")
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < n):
            raise ValueError(f"seat={seat!r}: choose 0..{n - 1} (or None to watch the bots play)")
        if memory not in ("engine", "none"):
            raise ValueError(f"memory={memory!r}: choose 'engine' (show what you have seen) or 'none' (play from memory)")
        if not pace >= 0:
            raise ValueError(f"pace={pace!r}: seconds per bot move, 0 or more")
        self.seat = seat
        self.n = n
        self.memory = memory
        self.pace = float(pace)
        others = [s for s in range(n) if s != seat]
        self._bot_specs = list(opponents)
        self.bots: dict[int, Bot] = {s: b for s, (b, _) in zip(others, bots)}
        self.names = seat_names(n, seat)
        self.labels = ["" for _ in range(n)]
        for s, (_, label) in zip(others, bots):
            self.labels[s] = label
        self._token = 0  # numbers every picture sent (never reset: a late tick or click of an old one is ignored)
        self.on_msg(self._on_msg)
        self.new_game(seed)

    # ------------------------------------------------------------------ public

    def new_game(self, seed: int | str | None = None) -> None:
        """Start a new game (a random seed unless one is given) with the same rules and opponents."""
        if seed is None:
            seed = random.SystemRandom().randrange(1_000_000)
        self.seed = seed
        if getattr(self, "game", None) is not None:
            # Fresh bots for levels and classes (a bot may keep memory between games); a Bot instance you gave is reused.
            bots = [_opponent(spec)[0] for spec in self._bot_specs]
            self.bots = dict(zip([s for s in range(self.n) if s != self.seat], bots))
        stacked = getattr(self, "game", None) is None
        self.game = Game(
            self.rules, seed, self.n, memory=self.memory,
            deck=self._deck if stacked else None, start_player=self._start_player if stacked else None,
        )
        self.stepper = Stepper(self.game, self.bots, names=self.names, viewer=self.seat, on_error="random", game_hooks=True)
        self.log_lines: list[str] = [f"New game of {self.rules.name}, seed {seed}."]
        self.notice = ""
        self._chooser: Chooser | None = None
        self._summary: str | None = None  # the round-end overlay (with its Next button) while it is shown
        self._deferred: list[Event] = []  # events after a round's end, logged once Next is clicked
        self._notice_faults()
        dealt = self.game.events_seen(self.seat)
        self._log_events(dealt)
        self._flow(set(), self._reveal(dealt))

    @property
    def observation(self) -> Observation | None:
        """Your seat's observation now (``None`` when watching)."""
        return None if self.seat is None else self.game.observation(self.seat)

    @property
    def status(self) -> str:
        """The line that says whose turn it is and what you may do."""
        return self.view.status

    @property
    def busy(self) -> bool:
        """Whether bot moves are still being shown (clicks then skip to the end of them)."""
        return bool(self.frame.get("busy"))

    def clickable(self) -> set[str]:
        """The targets a click means something on now (what the page marks ``cabo-clickable``)."""
        return set(self.view.clickable)

    def click(self, target: str) -> None:
        """Click ``target`` as the page does: ``"deck"``, ``"discard"``, ``"card:{seat}:{position}"``
        or a button, ``"btn:cabo"``, ``"btn:discard"``, ``"btn:pass"``, ``"btn:confirm"``,
        ``"btn:left"``, ``"btn:right"``, ``"btn:next"``.

        Raises :class:`ValueError` naming what may be clicked if ``target`` means nothing now.
        """
        if self.busy:
            self.fast_forward()
        if target == "btn:next":
            if self._summary is None:
                raise ValueError("btn:next: there is no finished round to move on from")
            if self.game.is_over:
                self.new_game()
                return
            self._summary = None
            events, self._deferred = self._deferred, []
            self._log_events(events)
            self._flow(set(), self._reveal(events))  # rush and traveller deal with a look: flash it
            return
        chooser = self._chooser
        if chooser is None or target not in chooser.clickable():
            allowed = ", ".join(sorted(self.clickable())) or "nothing (wait for the bots)"
            raise ValueError(f"{target!r} cannot be clicked now; clickable: {allowed}")
        self.notice = ""
        action = chooser.click(target)
        if action is None:
            self._show(self._state(set(), {}))
            return
        assert self.seat is not None
        self._chooser = None
        events = self.stepper.apply(action, self.seat)
        self._notice_faults()
        if not self._moved(events):
            self._flow(touched(events), self._reveal(events))

    def expire(self) -> None:
        """Turn down the cards shown for a moment from memory (``memory="none"``); the page sends this
        when the moment is over (``frame["expire"]`` seconds). A choice being made is kept, and the
        picture keeps its token: a click sent on it while it was being turned down still counts."""
        if self.frame.get("expire") and not self.busy:
            self._show(self._state(set(self.view.highlight), {}), same_token=True)

    def fast_forward(self) -> None:
        """Play every pending bot move at once, up to your next decision or the end of the round."""
        while self.busy:
            self._tick()

    # ------------------------------------------------------------------ flow

    def _on_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if not isinstance(content, dict):
            return
        message = content.get("type")
        stale = "token" in content and content.get("token") != self._token
        try:
            if message == "click" and not stale:  # a click on an older picture (a double click) is dropped
                self.click(str(content.get("target")))
            elif message == "tick" and not stale:
                self._tick()
            elif message == "skip":
                self.fast_forward()
            elif message == "expire" and not stale:
                self.expire()
        except ValueError as exc:  # a click that means nothing now: say so, change nothing
            self.notice = str(exc)
            self._show(self._state(set(), {}))
        except Exception as exc:  # never leave the page frozen: say what broke and offer what is legal now
            self.notice = f"Something went wrong: {type(exc).__name__}: {exc}"
            self._idle(set(), {})

    def _notice_faults(self, step: Step | None = None) -> None:
        """Say which bot failed. Only what went wrong, not the exception's text: that may hold a
        card only the bot saw (a spectator, who sees every card, gets the details)."""
        faults = list(self.stepper.hook_faults)
        self.stepper.hook_faults.clear()
        if step is not None and step.fault is not None:
            faults.append(step.fault)
        for fault in faults:
            detail = fault.message if self.seat is None else fault.short
            then = "It played a random legal move instead." if fault.replacement is not None else "The game goes on."
            self.notice = f"{self.names[fault.seat]}'s bot failed: {detail}. {then}"
            self.log_lines.append(f"⚠ {self.notice}")

    def _reveal(self, events: Iterable[Event]) -> dict[tuple[int, int], Card]:
        """Playing from memory: the faces you saw in these events, to show for a moment."""
        if self.memory != "none" or self.seat is None:
            return {}
        return reveals(events, self.seat)

    def _moved(self, events: list[Event]) -> bool:
        """Log a move's events; at a round's end show its scoring (the next round's events wait for Next)."""
        end = next((i for i, e in enumerate(events) if e.kind == EventKind.END), None)
        if end is None:
            self._log_events(events)
            return False
        self._log_events(events[: end + 1])
        self._deferred = events[end + 1:]
        self._round_end()
        return True

    def _flow(self, highlight: set[str], reveal: dict[tuple[int, int], Card]) -> None:
        """Show the table; if bots are to move, unfold their moves at the pace (or at once with pace 0)."""
        stepper = self.stepper
        if stepper.bot_to_move is None or self.game.is_over:
            self._idle(highlight, reveal)
            return
        if self.pace > 0 or reveal:
            hold = max(self.pace, _REVEAL_HOLD) if reveal else self.pace
            self._show(self._state(highlight, reveal), busy=True, hold=hold)
            return
        while True:
            step = stepper.step()
            if step is None:
                self._idle(set(), {})
                return
            self._notice_faults(step)
            if self._moved(step.events):
                return
            if stepper.bot_to_move is None:
                self._idle(touched(step.events), {})
                return

    def _tick(self) -> None:
        """The next bot move, after a busy picture's hold time (the page asks; fast_forward loops).

        Moves that change nothing on the table (a bot passing in a snap window, a bot's set-up
        look) are played at once with the next one, without a picture of their own."""
        events: list[Event] = []
        while True:
            step = self.stepper.step()
            if step is None:
                break
            self._notice_faults(step)
            events += step.events
            quiet = all(e.kind == EventKind.LOOK for e in step.events)
            if not quiet or step.fault is not None or self.stepper.bot_to_move is None:
                break
        if self._moved(events):
            return
        highlight = touched(events)
        if self.pace == 0 or self.stepper.bot_to_move is None:
            self._flow(highlight, {})
        else:
            self._show(self._state(highlight, {}, status=self.log_lines[-1]), busy=True, hold=self.pace)

    def _idle(self, highlight: set[str], reveal: dict[tuple[int, int], Card]) -> None:
        """The person's turn to decide (or a finished game): a chooser over the legal actions."""
        if self.seat is not None and self.seat in self.stepper.waiting:
            self._chooser = Chooser(self.game.observation(self.seat))
        else:
            self._chooser = None
        # Cards seen from memory are shown for their moment, then turned down, though the person decides next.
        self._show(self._state(highlight, reveal), expire=_REVEAL_HOLD if reveal else 0.0)

    def _round_end(self) -> None:
        game = self.game
        result = game.results[-1]
        self._chooser = None
        self._summary = round_summary_html(
            result, self.names, powers_of(self.rules, self.n), over=game.is_over, winners=game.winners if game.is_over else (),
            rules=self.rules, next_label="New game" if game.is_over else "Next round",
        )
        self._show(self._state(set(), {}))

    # ------------------------------------------------------------------ pictures

    def _log_events(self, events: Iterable[Event]) -> None:
        faces = self.memory == "engine" or self.seat is None
        self.log_lines.extend(describe(e, self.seat, self.names, faces=faces) for e in events)
        del self.log_lines[:-200]

    def _state(self, highlight: set[str], reveal: dict[tuple[int, int], Card], *, status: str | None = None) -> TableState:
        game = self.game
        seat = self.seat
        obs = game.observation(seat if seat is not None else game.current)
        chooser = self._chooser if self._summary is None else None
        clickable = chooser.clickable() if chooser is not None else set()
        buttons = [(b, button_label(b, obs, chooser)) for b in BUTTONS if chooser is not None and shows(b, chooser)]
        if status is None:
            status = status_text(obs, self.names, chooser, ended=self._summary is not None,
                                 watching=game.to_move if seat is None else None)
        overlay = ""
        if self._summary is not None:  # (drawn with its Next button)
            overlay = self._summary
            clickable = clickable | {"btn:next"}
        return table_state(
            game, seat, self.names, status, labels=self.labels, ended=self._summary is not None,
            pile_top_only=self.memory != "engine", reveal=reveal, log=self.log_lines, highlight=highlight,
            clickable=clickable, selected=chooser.selected if chooser else (), buttons=buttons, notice=self.notice,
            overlay=overlay, seed=self.seed,
        )

    def _show(self, state: TableState, *, busy: bool = False, hold: float = 0.0, expire: float = 0.0,
              same_token: bool = False) -> None:
        self.view = state
        self._token += not same_token
        frame = Frame(render_table(state), busy=busy, hold=hold, expire=expire).to_dict()
        frame["token"] = self._token
        self.frame = frame


class Replay(widgets.VBox):
    """Step through a finished game: a slider, buttons, and the table as one seat saw it, or every card face up.

    Moving the slider replays only from the nearest kept position (one every ``checkpoint``
    actions), never the whole game again.

    >>> import cabo_kit as ck
    >>> from cabo_kit.table import Replay
    >>> record = ck.play_game([ck.bots.GreedyBot(), ck.bots.RandomBot()], ck.Rules.preset("rush"), seed=5)
    >>> replay = Replay(record, seat=0)
    >>> replay.step == 0 and replay.steps == len(record.actions)
    True
    >>> replay.go(10); replay.view.round
    0
    """

    def __init__(self, record: GameRecord, seat: int | None = None, *, checkpoint: int = 40) -> None:
        if not isinstance(record, GameRecord):
            raise TypeError(f"Replay needs a cabo_kit.GameRecord (from play_game or Replay.from_tournament), not {type(record).__name__}")
        if seat is not None and not 0 <= seat < record.n_players:
            raise ValueError(f"seat={seat!r}: choose 0..{record.n_players - 1}, or None for every card face up")
        self.record = record
        self.seat = seat
        self.steps = len(record.actions)
        self.names = [f"{n}" for n in record.bots] if seat is None else [
            "You" if s == seat else name for s, name in enumerate(record.bots)
        ]
        self._every = max(1, checkpoint)
        self._checkpoints: dict[int, Game] = {0: record.new_game()}
        self._game = self._checkpoints[0].clone()
        self._at = 0
        self.table = _TableView()
        self.slider = widgets.IntSlider(value=0, min=0, max=self.steps, description="action", continuous_update=True,
                                        layout=widgets.Layout(width="420px"))
        self.player = widgets.Play(value=0, min=0, max=self.steps, interval=600, description="play")
        widgets.jslink((self.player, "value"), (self.slider, "value"))
        buttons = []
        for label, delta, name in (("⏮", -10**9, "first"), ("◀", -1, "back"), ("▶", 1, "forward"), ("⏭", 10**9, "last")):
            button = widgets.Button(description=label, tooltip=name, layout=widgets.Layout(width="42px"))
            button.add_class(f"cabo-replay-{name}")
            button.on_click(lambda _b, d=delta: self.go(self.step + d))
            buttons.append(button)
        self.slider.observe(self._on_slider, names="value")
        super().__init__([widgets.HBox([*buttons, self.player, self.slider]), self.table])
        self.add_class("cabo-replay")
        self.go(0)

    @classmethod
    def from_tournament(cls, folder: "str | Path", game_id: str, seat: int | None = None) -> "Replay":
        """A replay of one stored game of a tournament folder (ids: the report's game lists, or
        ``cabo_kit.tournament.store.load_frames(folder)[0].game_id``). A game stopped by a bot's
        fault replays up to the fault."""
        from ..tournament.store import load_record

        return cls(load_record(folder, game_id), seat)

    def _on_slider(self, change: dict[str, Any]) -> None:
        if change["new"] != self._at:  # go() moving the slider itself draws once, not twice
            self.go(change["new"])

    @property
    def step(self) -> int:
        """How many actions have been played at the position shown."""
        return self._at

    def go(self, step: int) -> None:
        """Show the game after ``step`` actions (clamped to the game's length)."""
        step = max(0, min(self.steps, int(step)))
        # From the nearest kept position before the step, so the step's own events are replayed (highlights).
        base = max(k for k in self._checkpoints if k <= max(0, step - 1))
        if not base <= self._at <= step or (self._at == step and step > 0):
            self._game, self._at = self._checkpoints[base].clone(), base
        game = self._game
        mark = game.event_count
        actions = self.record.actions
        while self._at < step:
            seat, action = actions[self._at]
            if self._at == step - 1:
                mark = game.event_count
            game.apply(action, seat)
            self._at += 1
            if self._at % self._every == 0 and self._at not in self._checkpoints:
                self._checkpoints[self._at] = game.clone()
        if self.slider.value != step:
            self.slider.value = step
        self._draw(game.events_seen(self.seat, since=mark) if step else [])

    def _draw(self, last: list[Event]) -> None:
        game = self._game
        log = [describe(e, self.seat, self.names) for e in game.events_seen(self.seat)[-60:]]
        status = log[-1] if log and self._at else "The deal."
        overlay = ""
        if game.is_over:
            overlay = round_summary_html(game.results[-1], self.names, powers_of(game.rules, game.n), over=True,
                                         winners=game.winners, rules=self.record.rules)
        self.view = table_state(game, self.seat, self.names, f"Action {self._at} of {self.steps}: {status}",
                                log=log, highlight=touched(last), overlay=overlay, seed=self.record.seed)
        self.table.frame = Frame(render_table(self.view)).to_dict()
