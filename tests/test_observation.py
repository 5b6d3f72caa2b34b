"""The observation's layout, its one builder, the lazily read event log, and the text enums.

The wire to an isolated bot assembles observations with ``make_observation`` from ``(viewer + moment,
table)``, and the engine writes the same fields in one tuple; these tests fail if ``Observation``'s
fields, ``MOMENT_FIELDS``, ``TABLE_FIELDS``, the builder or the engine's observations ever disagree
(tests/test_isolation.py checks the wire itself).
"""

from __future__ import annotations

import copy
import json
import pickle

import pytest

import cabo_kit as ck
from cabo_kit.observation import (
    MOMENT_FIELDS, TABLE_FIELDS, Event, EventKind, EventLog, Observation, Phase, make_observation, moment_of,
)
from cabo_kit.play import bot_random
from cabo_kit.rules import POWERS, Power

VIEWER = ("seat", "n_players", "rules", "memory")


def test_the_fields_are_who_is_looking_the_moment_and_the_table_in_that_order() -> None:
    assert Observation._fields == VIEWER + MOMENT_FIELDS + TABLE_FIELDS
    assert Observation._fields[-1] == "legal_actions"  # the game loop reads it as obs[-1]


def test_make_observation_puts_every_value_in_its_named_field() -> None:
    names = VIEWER + MOMENT_FIELDS + TABLE_FIELDS
    values = {name: object() for name in names}  # a distinct sentinel per field
    obs = make_observation(tuple(values[n] for n in VIEWER + MOMENT_FIELDS), tuple(values[n] for n in TABLE_FIELDS))
    assert all(getattr(obs, name) is values[name] for name in names)
    assert moment_of(obs) == tuple(values[n] for n in MOMENT_FIELDS)


@pytest.mark.parametrize("preset", ["deluxe", "rush", "traveller"])
def test_the_engine_builds_what_make_observation_builds_from_the_named_parts(preset: str) -> None:
    game = ck.Game(ck.Rules.preset(preset), seed=8, n_players=3)
    bots = [ck.bots.RandomBot() for _ in range(3)]
    for seat, bot in enumerate(bots):
        bot.random = bot_random(8, seat)
    for _ in range(60):
        for seat in game.to_move:
            obs = game.observation(seat)
            head = tuple(getattr(obs, n) for n in VIEWER + MOMENT_FIELDS)
            again = make_observation(head, tuple(getattr(obs, n) for n in TABLE_FIELDS))
            assert again == obs and type(again) is Observation
            assert obs.phase is game.phase and (obs.power is None or isinstance(obs.power, Power))
            # the engine's own state, field by field: a field written in the wrong place fails here
            assert (obs.seat, obs.current, obs.start_player, obs.round, obs.turn) == (
                seat, game.current, game.start_player, game.round, game.turn)
            assert (obs.deck_size, obs.target, obs.give_to, obs.scores) == (
                len(game.deck), game.target, game.give_to, tuple(game.totals))
            game.apply(bots[seat].choose(obs, obs.legal_actions), seat)


def test_an_event_log_reads_like_the_tuple_of_its_events() -> None:
    game = ck.Game(ck.Rules.preset("rush"), seed=3, n_players=2)
    log = game.observation(1).events
    events = tuple(game.events_seen(1))
    assert isinstance(log, EventLog) and len(log) == len(events) == 4
    assert log == events and events == tuple(log) and list(log) == list(events)
    assert log[0] == events[0] and log[-1] == events[-1] and log[1:3] == events[1:3]
    assert hash(log) == hash(events) and repr(log) == repr(events) and str(log[2]) == str(events[2])
    assert pickle.loads(pickle.dumps(log)) == log and copy.deepcopy(log) == log
    assert log + (events[0],) == events + (events[0],)
    assert EventLog(events) == log and EventLog() == () and len(EventLog()) == 0


def test_since_gives_only_the_new_events_of_the_same_chain() -> None:
    game = ck.Game(ck.Rules.preset("rush"), seed=3, n_players=2, start_player=0)
    before = game.observation(0).events
    game.apply(ck.Pass(), seat=0)
    game.apply(ck.Pass(), seat=1)
    game.apply(ck.DrawDeck())
    after = game.observation(0).events
    assert after.since(before) == tuple(after)[len(before):] and len(after.since(before)) == 1  # type: ignore[arg-type]
    assert after.since(after) == ()
    assert before.since(after) is None  # not an older log
    assert after.since(EventLog(tuple(before))) is None  # not read from the engine's chains
    other = game.observation(1).events
    assert other[-1].cards != after[-1].cards  # seat 1 did not see the card seat 0 drew
    assert other.since(before) != after.since(before)


def test_phases_powers_and_event_kinds_are_text_where_it_is_stored() -> None:
    assert Phase.DRAWN == "drawn" and f"{Phase.DRAWN}" == "drawn" and str(EventKind.SPY) == "spy"
    assert json.dumps([Phase.SNAP, Power.SPY_SWAP, EventKind.END]) == '["snap", "spy_swap", "end"]'
    assert set(POWERS) == {"peek", "spy", "swap", "peek_swap", "spy_swap"}
    record = ck.play_game([ck.bots.RandomBot(), ck.bots.RandomBot()], ck.Rules.preset("traveller", min_players=2),
                          seed=2)
    data = json.loads(record.to_json())
    assert all(isinstance(e[0], str) for e in data["events"])
    again = ck.GameRecord.from_json(record.to_json())
    assert [e.kind for e in again.events] == [e.kind for e in record.events]
    assert all(type(e.kind) is EventKind for e in again.events)
    obs = record.view(0, 3)
    assert Observation.from_dict(json.loads(json.dumps(obs.to_dict()))) == obs


def test_an_unknown_event_kind_in_a_record_is_named() -> None:
    with pytest.raises(ValueError, match="'fly' is not an event kind"):
        Event.from_list(["fly", 0, [], [], ""])
