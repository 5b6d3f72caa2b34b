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
    MOMENT_FIELDS, TABLE_FIELDS, Event, EventKind, EventLog, Observation, Phase, _chain_log, make_observation,
    moment_of,
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


@pytest.mark.parametrize("preset,memory", [("deluxe", "engine"), ("rush", "engine"), ("traveller", "none")])
def test_an_engine_observation_shows_its_events_as_the_log_wherever_it_is_read_as_a_tuple(preset: str,
                                                                                          memory: str) -> None:
    """The engine stores the events field as the seat's (event count, chain ends); every tuple or NamedTuple use of
    the observation sees the log instead, and so do the copies made from it (which hold the log itself)."""
    game = ck.Game(ck.Rules.preset(preset), seed=11, n_players=3, memory=memory)
    bots = [ck.bots.RandomBot() for _ in range(3)]
    for seat, bot in enumerate(bots):
        bot.random = bot_random(11, seat)
    checked = 0
    while not game.is_over and checked < 40:
        seat = game.to_move[0]
        obs = game.observation(seat)
        stored = tuple.__getitem__(obs, 24)
        assert type(stored) is (tuple if memory == "engine" else EventLog)
        events = obs.events
        assert isinstance(events, EventLog) and events == tuple(events)
        if memory == "engine":  # the round's events as the seat saw them
            assert events[0].kind == EventKind.ROUND and events == tuple(game.events_seen(seat))[-len(events):]
        fields = list(obs)
        assert fields[24] == obs[24] == obs[-2] == obs[20:][4] == events and len(fields) == len(obs) == 26
        *_, unpacked, legal = obs
        assert unpacked == events and legal is obs.legal_actions and events in obs
        assert obs._asdict()["events"] == events
        head = tuple(getattr(obs, n) for n in VIEWER + MOMENT_FIELDS)
        copies = [
            Observation.from_dict(json.loads(json.dumps(obs.to_dict()))), pickle.loads(pickle.dumps(obs)),
            copy.deepcopy(obs), obs._replace(turn=obs.turn), Observation(*obs), Observation(**obs._asdict()),
            make_observation(head, obs[-7:]),
        ]
        for again in copies:
            assert isinstance(tuple.__getitem__(again, 24), EventLog)
            assert again == obs and obs == again and not (again != obs) and hash(again) == hash(obs)
            assert repr(again) == repr(obs) and tuple(again) == tuple(obs)
            assert obs <= again and obs >= again and not obs < again and not obs > again and again <= obs
        assert [obs[i] for i in range(-26, 26)] == fields * 2
        assert obs.index(events, 24) == 24 and obs.index(events) == fields.index(events)  # () may come earlier
        assert obs.count(events) == fields.count(events) >= 1 and obs.index(obs.legal_actions, -1) == 25
        assert obs + () == () + obs == obs * 1 == 1 * obs == tuple(obs) and (obs + (None,))[24] == events
        later = obs._replace(events=events + (Event(EventKind.SKIP, 0),))
        assert obs < later and later > obs and obs <= later and not later <= obs and sorted([later, obs])[0] is obs
        raw = tuple(tuple.__iter__(obs))  # the fields as stored; below, observations that keep the chain ends
        moved = tuple.__new__(Observation, raw[:5] + (raw[5] + 1,) + raw[6:])
        moved_copy = tuple.__new__(Observation, raw[:5] + (raw[5] + 1,) + raw[6:24] + (raw[24][:1] + raw[24][1:],)
                                   + raw[25:])
        assert obs != moved and obs != moved_copy and moved == moved_copy and obs < moved
        assert tuple.__getitem__(moved_copy, 24) is not raw[24] and moved_copy.events == events
        assert obs == game.observation(seat) and hash(obs) == hash(game.observation(seat))
        assert obs != obs._replace(events=events + (Event(EventKind.SKIP, 0),)) and obs != tuple(obs)[:-1]
        assert repr(obs).startswith("Observation(seat=") and f"events={events!r}" in repr(obs)
        game.apply(bots[seat].choose(obs, obs.legal_actions), seat)
        checked += 1
    assert checked == 40


def test_observations_of_a_long_round_compare_and_hash_their_events_without_recursion() -> None:
    """Two observations with equal events in distinct chains (5,000 deep) are equal and hash alike: the chains are
    never compared or hashed as nested tuples (that recursion fails a thousand events deep)."""
    obs = ck.Game(ck.Rules.preset("rush"), seed=3, n_players=2).observation(0)
    depth = 5_000
    made = []
    for _ in range(2):
        chain = None
        for i in range(depth):
            chain = (chain, Event(EventKind.SKIP, i % 2))
        made.append(tuple.__new__(Observation, tuple(obs)[:24] + ((depth, chain, None), obs.legal_actions)))
    a, b = made
    assert tuple.__getitem__(a, 24)[1] is not tuple.__getitem__(b, 24)[1]
    assert a == b and hash(a) == hash(b) and len(a.events) == depth and a.events[-1] == Event(EventKind.SKIP, 1)
    assert a == a._replace(turn=a.turn) and hash(a) == hash(pickle.loads(pickle.dumps(a)))
    assert a <= b and a >= b and not a < b and not a > b and sorted([b, a])[0] is b
    assert a.count(b.events) == 1 and a.index(b.events) == 24
    shorter = a._replace(events=a.events[:-1])
    assert hash(a) != hash(shorter) and shorter < a and a != shorter  # the hash covers the events
    chain = (tuple.__getitem__(a, 24)[1][0], Event(EventKind.SKIP, 0))  # the same round, its last event by seat 0
    c = tuple.__new__(Observation, tuple(obs)[:24] + ((depth, chain, None), obs.legal_actions))
    assert c != a and c < a and a > c and hash(c) != hash(a)
    seen = []  # the same shared chain, and equal own chains (every event seen whole) made twice
    for _ in range(2):
        own = None
        for i in range(depth):
            own = (own, i, Event(EventKind.PEEK, i % 2, (0,)))
        seen.append(tuple.__new__(Observation, tuple(obs)[:24] + ((depth, tuple.__getitem__(a, 24)[1], own),
                                                                    obs.legal_actions)))
    d, e = seen
    assert d == e and not d != e and d <= e and hash(d) == hash(e) and d != a and d.events[-1].kind == EventKind.PEEK


@pytest.mark.parametrize("memory", ["engine", "none"])
def test_one_event_read_straight_from_the_chains_is_the_event_of_the_built_log(memory: str) -> None:
    """``obs.events[i]`` on a log not yet built reads event i from the chain ends (the seat's own version where it
    saw the event whole, as the draws it made from the deck); it is the same event as the built tuple's, for every
    index from either end."""
    game = ck.Game(ck.Rules.preset("deluxe"), seed=5, n_players=3, memory=memory)
    bots = [ck.bots.GreedyBot() for _ in range(3)]
    for seat, bot in enumerate(bots):
        bot.random = bot_random(5, seat)
    own_read = builds = 0
    while not game.is_over and game.round == 0:
        seat = game.to_move[0]
        obs = game.observation(seat)
        built = tuple(obs.events)
        n = len(built)
        if memory == "engine":
            fresh = [lambda: obs.events]  # a new log at each read
        else:  # the engine copies this turn's events out of the chains: read them there too, from the turn's start
            ends = (game._event_count, game._shared, game._own[seat])
            fresh = [lambda: _chain_log(ends, game._turn_start), lambda: obs.events]
        for log in fresh:
            assert [log()[i] for i in range(-n, n)] == list(built) * 2 and len(log()) == n
            for wrong in (n, -n - 1):
                with pytest.raises(IndexError):
                    log()[wrong]
            once = log()  # one log read by index after another: the same events as it is built on the way
            assert [once[i] for i in range(-1, -n - 1, -1)] == list(reversed(built))
        newest = fresh[0]()
        if n:
            assert newest[-1] == built[-1] and newest._items is None  # the newest cost a few nodes, not the round
        if n >= 3:
            assert newest[0] == built[0] and newest._items == built  # the oldest: built once, as for a bot reading on
            builds += 1
        own = game._own[seat]
        while own is not None and own[1] >= game._event_count - n:
            own_read += own[2] != built[own[1] - game._event_count + n] or own[2].kind == EventKind.DRAW
            own = own[0]
        game.apply(bots[seat].choose(obs, obs.legal_actions), seat)
    assert own_read > 10 and builds  # the seat's own events were among those read, and old events built
