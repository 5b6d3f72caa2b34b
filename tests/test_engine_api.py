"""The step API's contracts that the rule tables do not cover: clones, layouts, errors."""

from __future__ import annotations

import enum
import gc
import json
from typing import Any

import pytest

import cabo_kit as ck
from cabo_kit.actions import LegalActions
from cabo_kit.knowledge import Knowledge
from cabo_kit.play import bot_random


def _play(game: ck.Game, bots: list[ck.Bot], steps: int) -> None:
    for _ in range(steps):
        if game.is_over:
            return
        for seat in game.to_move:
            obs = game.observation(seat)
            game.apply(bots[seat].choose(obs, obs.legal_actions), seat)


@pytest.mark.parametrize("preset", ["deluxe", "rush", "traveller"])
def test_a_clone_plays_on_without_touching_the_original(preset: str) -> None:
    rules = ck.Rules.preset(preset)
    game = ck.Game(rules, seed=11, n_players=3)
    bots: list[ck.Bot] = [ck.bots.RandomBot() for _ in range(3)]
    for s, b in enumerate(bots):
        b.random = bot_random(11, s)
    _play(game, bots, 40)
    before = [game.observation(s) for s in range(3)]
    history = list(game.history)
    twin = game.clone()
    others: list[ck.Bot] = [ck.bots.GreedyBot() for _ in range(3)]
    _play(twin, others, 60)  # the twin diverges: different bots, many more steps
    assert twin.history[: len(history)] == history and len(twin.history) > len(history)
    # The original is exactly as it was, and its cached views were not overwritten by the twin's.
    assert game.history == history
    assert [game.observation(s) for s in range(3)] == before
    fresh = ck.Game(rules, seed=11, n_players=3)
    for seat, action in history:
        fresh.apply(action, seat)
    assert [fresh.observation(s) for s in range(3)] == before
    # And the twin's views equal a fresh replay of its own history.
    replay = ck.Game(rules, seed=11, n_players=3)
    for seat, action in twin.history:
        replay.apply(action, seat)
    assert [replay.observation(s) for s in range(3)] == [twin.observation(s) for s in range(3)]


def test_apply_needs_a_seat_when_several_decide_at_once() -> None:
    game = ck.Game(ck.Rules.preset("deluxe"), seed=1, n_players=2)
    with pytest.raises(ck.IllegalActionError, match="say which seat acts"):
        game.apply("look 0,1")
    game.apply("look 0,1", seat=0)
    with pytest.raises(ck.IllegalActionError, match="seat 0 cannot act now"):
        game.apply("look 2,3", seat=0)


def test_an_illegal_action_changes_nothing_and_names_phase_and_seat() -> None:
    game = ck.Game(ck.Rules.preset("deluxe"), seed=2, n_players=2, start_player=0)
    game.apply("look 0,1", seat=0)
    game.apply("look 0,1", seat=1)
    before = [game.observation(s) for s in range(2)]
    with pytest.raises(ck.IllegalActionError) as info:
        game.apply("discard")
    message = str(info.value)
    assert "seat 0" in message and "'choose'" in message and "legal: deck, take, cabo" in message
    assert [game.observation(s) for s in range(2)] == before and len(game.history) == 2
    with pytest.raises(ck.ActionParseError, match="is not an action"):
        game.apply("draw a card")


def reachable(root: object) -> list[object]:
    """Everything a bot can reach from ``root`` by following references (``gc.get_referents``), classes and the
    shared constants (the frozen Rules, enum members) aside."""
    seen: set[int] = set()
    out: list[object] = []
    todo = [root]
    while todo:
        value = todo.pop()
        if id(value) in seen or isinstance(value, (type, ck.Rules, enum.Enum)):
            continue
        seen.add(id(value))
        out.append(value)
        todo.extend(gc.get_referents(value))
    return out


@pytest.mark.parametrize("preset", ["deluxe", "rush", "traveller"])
def test_observations_are_immutable_and_reach_nothing_but_what_the_seat_saw(preset: str) -> None:
    """No engine object, nothing mutable, and no event but as this seat saw it is reachable from an observation,
    its lazily read events included (the chains of nested tuples they are read from)."""
    game = ck.Game(ck.Rules.preset(preset), seed=5, n_players=4)
    bots = [ck.bots.RandomBot() for _ in range(4)]
    for seat, bot in enumerate(bots):
        bot.random = bot_random(5, seat)
    checked = 0
    while not game.is_over and checked < 400:
        for seat in game.to_move:
            for viewer in range(4):
                obs = game.observation(viewer)
                with pytest.raises(AttributeError):
                    obs.seat = 0  # type: ignore[misc]
                # what this seat saw, and every event's form for those who did not see its faces (its own too)
                allowed = set(game.events_seen(viewer)) | {e for s in range(4) for e in game.events_seen(s)
                                                           if e not in game.events_seen(None)}
                for value in reachable(obs):
                    assert not isinstance(value, (ck.Game, Knowledge, list, dict, set)), (
                        f"mutable or engine object {type(value).__name__} reachable from an observation")
                    if isinstance(value, ck.Event):
                        assert value in allowed, f"seat {viewer} can reach {value}, which it never saw"
                checked += 1
            obs = game.observation(seat)
            game.apply(bots[seat].choose(obs, obs.legal_actions), seat)
    assert checked >= 400


def test_memory_none_shows_only_face_up_cards_and_this_turns_events() -> None:
    game = ck.Game(ck.Rules.preset("rush"), seed=3, n_players=3, memory="none")
    obs = game.observation(0)
    assert all(not c.known for hand in obs.hands for c in hand)  # the initial look is an event, not a memory
    assert any(e.kind == "look" and e.seat == 0 and all(c.known for c in e.cards) for e in obs.events)
    assert len(obs.discard) == 1


@pytest.mark.parametrize("preset", ["rush", "traveller"])
def test_without_memory_no_event_of_an_earlier_turn_is_reachable(preset: str) -> None:
    """memory="none": the events of this turn only, and nothing reachable that leads back to earlier ones."""
    game = ck.Game(ck.Rules.preset(preset), seed=5, n_players=3, memory="none")
    bots = [ck.bots.RandomBot() for _ in range(3)]
    for seat, bot in enumerate(bots):
        bot.random = bot_random(5, seat)
    checked = 0
    while not game.is_over and checked < 300:
        for seat in game.to_move:
            for viewer in range(3):
                obs = game.observation(viewer)
                shown = set(obs.events)
                earlier = [v for v in reachable(obs) if isinstance(v, ck.Event) and v not in shown]
                assert not earlier, f"seat {viewer} can reach {earlier[0]}, an event of an earlier turn"
                checked += 1
            obs = game.observation(seat)
            game.apply(bots[seat].choose(obs, obs.legal_actions), seat)
    assert checked >= 300


def test_a_clone_and_its_original_diverging_by_one_action_each_keep_their_own_views() -> None:
    # Both sides apply one (different) action after the clone, so their internal view versions
    # move in step: each must still see its own hands, never the other's.
    rules = ck.Rules.preset("deluxe")
    game = ck.Game(rules, seed=4, n_players=2, start_player=0, deck="1 2 3 4  5 6 7 8  9  10")
    game.apply("look 0,1", seat=0)
    game.apply("look 0,1", seat=1)
    game.apply("deck")  # seat 0 holds the 10
    twin = game.clone()
    twin.apply("exchange 0")
    assert twin.observation(0).my_hand[0] == ck.Card.parse("10")
    game.apply("exchange 1")
    mine = game.observation(0)
    assert mine.my_hand[0] == ck.Card.parse("1") and mine.my_hand[1] == ck.Card.parse("10")
    assert twin.observation(0).my_hand[:2] == (ck.Card.parse("10"), ck.Card.parse("2"))


def test_simple_bot_that_refuses_a_taken_card_hears_why() -> None:
    """RULES.md: in deluxe a card taken from the discard pile must be exchanged; keep() -> None says so."""
    from cabo_kit.bot import BotError

    class TakesThenRefuses(ck.SimpleBot):
        def draw(self, obs: Any) -> str:
            return "discard"

        def keep(self, obs: Any, card: Any) -> None:
            return None

    with pytest.raises(BotError, match="taken from the discard pile, but these rules say such a card must be kept"):
        ck.play_game([TakesThenRefuses(), ck.bots.RandomBot()], ck.Rules.preset("deluxe"), seed=1)
    # Where the rules allow discarding it again, the same bot plays on.
    rules = ck.Rules.preset("deluxe").replace(discard_draw_may_discard=True, max_turns=20, max_rounds=2)
    record = ck.play_game([TakesThenRefuses(), ck.bots.RandomBot()], rules, seed=1)
    assert record.game_over


def test_legal_actions_sets_are_immutable() -> None:
    """The engine shares multi-exchange sets between games: a bot in this process cannot change one."""
    game = ck.Game(ck.Rules.preset("deluxe"), seed=1, n_players=2)
    while game.phase != "drawn":
        game.apply(game.legal_actions(game.to_move[0])[0], game.to_move[0])
    legal = game.legal_actions()
    assert isinstance(legal, LegalActions)
    with pytest.raises(AttributeError, match="immutable"):
        legal.hand_size = 40  # type: ignore[misc]
    assert len(legal) == tuple.__len__(legal) + 2**4 - 4 - 1


def test_round_result_from_dict_ignores_unknown_keys() -> None:
    """A record from a later version may carry more per-round facts: they are ignored, not refused."""
    rec = ck.play_game([ck.bots.RandomBot(), ck.bots.RandomBot()], ck.Rules.preset("rush").replace(max_rounds=1), seed=1)
    data = json.loads(rec.to_json())
    data["rounds"][0]["note"] = "from the future"
    again = ck.GameRecord.from_dict(data)
    assert again.rounds[0].scores == rec.rounds[0].scores and again.to_json() == rec.to_json()


def test_nothing_can_be_applied_once_the_game_is_over() -> None:
    game = ck.play_game([ck.bots.RandomBot(), ck.bots.RandomBot()], ck.Rules.preset("rush"), seed=1).replay()
    assert game.is_over and game.to_move == () and game.legal_actions(0) == ()
    with pytest.raises(ck.IllegalActionError, match="the game is over"):
        game.apply_unchecked(ck.DrawDeck(), 0)
    with pytest.raises(ck.IllegalActionError, match="the game is over"):
        game.apply(ck.DrawDeck(), 0)
