"""The reference bot ladder: legal play everywhere, observations only, determinism, levels, submissions."""

from __future__ import annotations

import ast
import importlib.util
import inspect
from collections import Counter
from pathlib import Path

import pytest

import cabo_kit as ck
from cabo_kit.bots import CountingBot, GreedyBot, RandomBot, SearchBot, by_level
from cabo_kit.bots import search as search_module

ROOT = Path(__file__).resolve().parent.parent
PRESETS = ("deluxe", "rush", "traveller")


def table_sizes(preset: str) -> range:
    rules = ck.Rules.preset(preset)
    return range(rules.min_players, rules.max_players + 1)


@pytest.mark.parametrize("level", [1, 2, 3, 4])
@pytest.mark.parametrize("preset", PRESETS)
def test_each_level_plays_every_preset_and_table_size_legally(level: int, preset: str) -> None:
    # play_game raises IllegalActionError on any illegal answer, so finishing proves legality.
    rules = ck.Rules.preset(preset)
    if level == 4:
        rules = rules.replace(max_rounds=1)  # the search bot is slow: one round per table size
    for n in table_sizes(preset):
        bots = [by_level(level) if seat % 2 == 0 else GreedyBot() for seat in range(n)]
        record = ck.play_game(bots, rules, seed=n)
        assert record.game_over
        assert len(record.totals) == n


@pytest.mark.parametrize("bot_class", [RandomBot, GreedyBot, CountingBot, SearchBot])
def test_same_seed_same_game(bot_class: type[ck.Bot]) -> None:
    rules = ck.Rules.preset("rush").replace(max_rounds=2)
    first = ck.play_game([bot_class(), GreedyBot(), bot_class()], rules, seed=7).to_json()
    again = ck.play_game([bot_class(), GreedyBot(), bot_class()], rules, seed=7).to_json()
    assert first == again


class Recorder(SearchBot):
    """A search bot that checks what it is handed and answers the same from a rebuilt observation."""

    def choose(self, observation, legal_actions):  # type: ignore[no-untyped-def]
        assert type(observation) is ck.Observation
        rebuilt = ck.Observation.from_dict(observation.to_dict())  # plain data, no engine behind it
        state = self.random.getstate()
        answer = super().choose(rebuilt, rebuilt.legal_actions)
        self.random.setstate(state)
        assert super().choose(observation, legal_actions) == answer
        return answer


@pytest.mark.parametrize("preset", PRESETS)
def test_search_bot_decides_from_the_observation_alone(preset: str) -> None:
    rules = ck.Rules.preset(preset).replace(max_rounds=1)
    record = ck.play_game([Recorder(), CountingBot(), CountingBot()], rules, seed=3)
    assert record.game_over


def test_search_bot_uses_no_private_engine_attribute() -> None:
    tree = ast.parse(inspect.getsource(search_module))
    private = {
        node.attr for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
    }
    assert private == set()
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for alias in node.names}
    assert imported <= {"annotations", "Sequence", "Action", "CallCabo", "Discard", "DrawDeck", "DrawDiscard",
                        "Exchange", "Give", "Pass", "Peek", "Snap", "Swap", "Card", "Game", "Observation",
                        "CountingBot", "_full_pool", "Rules", "their_knowledge"}


def test_search_guess_agrees_with_what_the_bot_knows() -> None:
    rules = ck.Rules.preset("traveller")
    game = ck.Game(rules, seed=4, n_players=4)
    while game.phase != "choose":
        for seat in game.to_move:
            game.apply(game.legal_actions(seat)[0], seat)
    obs = game.observation(game.current)
    bot = SearchBot()
    layout = bot.guess(obs)
    assert layout is not None
    for seen, guessed in zip(obs.hands, layout["hands"]):
        assert [c for c in seen if c.known] == [g for c, g in zip(seen, guessed) if c.known]
    assert len(layout["deck"]) == obs.deck_size
    everything = [c for h in layout["hands"] for c in h] + layout["discard"] + layout["deck"]
    assert Counter(everything) == Counter(rules.full_deck(4))


def test_search_bot_falls_back_without_memory() -> None:
    record = ck.play_game([SearchBot(), CountingBot()], ck.Rules.preset("deluxe").replace(max_rounds=1), seed=2,
                          memory="none")
    assert record.game_over


def test_counting_bot_counts_the_unseen_cards() -> None:
    game = ck.Game(ck.Rules.preset("rush"), seed=3, n_players=3)
    obs = game.observation(0)
    unseen = CountingBot().unseen(obs)
    holes = sum(1 for hand in obs.hands for c in hand if not c.known)
    assert len(unseen) == holes + obs.deck_size
    visible = sum(c.value for hand in obs.hands for c in hand if c.known) + sum(c.value for c in obs.discard)
    assert sum(unseen) + visible == 338  # RULES.md section 8: the rush deck sums to 338


def test_counting_bot_keeps_a_special_hand_and_calls() -> None:
    rules = ck.Rules.preset("deluxe")
    game = ck.Game.from_layout(rules, hands=[[12, 13, 12, 5], [3, 3, 3, 3]], discard=[1], deck=[2, 2, 2, 2],
                               current=0, known=[[(0, 0), (0, 1), (0, 2), (0, 3)], []], drawn=13)
    bot = CountingBot()
    assert bot.choose(game.observation(0), game.legal_actions(0)) == ck.Exchange((3,))
    game.apply(ck.Exchange((3,)), 0)
    game.apply(game.legal_actions()[0])  # seat 1 draws
    game.apply(ck.Discard())
    while game.current != 0 or game.phase != "choose":
        game.apply(game.legal_actions()[0])
    assert bot.choose(game.observation(0), game.legal_actions(0)) == ck.CallCabo()


def test_by_level_gives_new_bots_of_rising_strength() -> None:
    assert [type(by_level(k)) for k in (1, 2, 3, 4)] == [RandomBot, GreedyBot, CountingBot, SearchBot]
    assert by_level(3) is not by_level(3)
    with pytest.raises(ValueError, match="choose 1"):
        by_level(0)


@pytest.mark.parametrize("path", sorted((ROOT / "bots").glob("*.py")), ids=lambda p: p.name)
def test_each_submission_file_defines_exactly_one_bot_of_its_own(path: Path) -> None:
    spec = importlib.util.spec_from_file_location(f"submission_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    own = [obj for obj in vars(module).values()
           if inspect.isclass(obj) and issubclass(obj, ck.Bot) and obj.__module__ == module.__name__]
    assert len(own) == 1
    record = ck.play_game([own[0](), RandomBot()], ck.Rules.preset("rush").replace(max_rounds=1), seed=1)
    assert record.game_over



def test_search_values_the_game_not_the_round() -> None:
    # In a game's last round (max_rounds=1 here) every playout ends the game: a win is worth 1, a loss
    # 0, a shared win half. Otherwise a round is worth a soft chance in between.
    hands = [[2, 3, 4, 5], [9, 6, 10, 8], [7, 11, 6, 5], [8, 9, 3, 10]]
    known = [[(0, 0), (0, 1), (0, 2), (0, 3)], [], [], []]
    bot = SearchBot()
    deluxe = ck.Rules.preset("deluxe")
    for rules, final in ((deluxe.replace(max_rounds=1), True), (deluxe, False)):
        game = ck.Game.from_layout(rules, hands, discard=[12], current=0, scores=[60, 70, 65, 65], known=known)
        obs = game.observation(0)
        e = bot.mean_unseen(obs)
        for _ in range(6):
            world = bot.guess(obs)
            assert world is not None
            for first in (ck.CallCabo(), ck.Pass()):  # with the call, and without it
                value = bot.playout(obs, world, first, e)
                if final:
                    assert value in (0.0, 1 / 4, 1 / 3, 1 / 2, 1.0)  # a shared win is shared
                else:
                    assert 0.0 < value < 1.0


def test_search_frees_a_snap_the_counting_bot_misses() -> None:
    # Rush: we know 8 8 2 and one unknown card, and drew a 3. The counting bot replaces the unknown
    # card (about 6.5, plus what knowing it is worth); putting the 3 in place of an 8 and snapping the
    # other 8 sheds 13 points. The search sees it on paper and the rollouts confirm it.
    hands = [["8S", "8H", "2C", "5D"], ["9C", "JD", "4S", "6H"], ["KH", "7C", "QS", "10D"], ["AS", "3D", "9H", "JC"]]
    known = [[(0, 0), (0, 1), (0, 2)], [], [], []]
    game = ck.Game.from_layout(ck.Rules.preset("rush"), hands, discard=["QH"], current=0, known=known, drawn="3C")
    obs = game.observation(0)
    assert obs.phase == "drawn"
    assert CountingBot().keep(obs, obs.drawn) == 3
    assert SearchBot().keep(obs, obs.drawn) in (0, 1)
    deluxe = ck.Game.from_layout(ck.Rules.preset("deluxe"), [[8, 8, 2, 5], [9, 11, 4, 6]], discard=[12], known=[[(0, 0), (0, 1), (0, 2)], []], drawn=3)
    assert SearchBot().keep(deluxe.observation(0), deluxe.observation(0).drawn) == CountingBot().keep(deluxe.observation(0), deluxe.observation(0).drawn)  # no snapping: no change


def test_search_with_an_empty_hand_holding_a_drawn_card() -> None:
    # Traveller: a hand emptied by a snap still plays its final turn. With nothing to exchange or give,
    # the drawn card is discarded even when a card we know on the table matches it.
    rules = ck.Rules.preset("traveller")
    game = ck.Game.from_layout(rules, [[], ["9C", "JD", "4S"], ["KH", "7C", "QS"]], discard=["QH"], current=0,
                               known=[[(1, 2)], [], []], drawn="4D")
    obs = game.observation(0)
    assert obs.legal_actions == (ck.Discard(),)
    assert SearchBot().keep(obs, obs.drawn) is None


@pytest.mark.parametrize("preset", PRESETS)
def test_their_knowledge_follows_the_cards(preset: str) -> None:
    # What the events say a seat has seen of its own hand: the flags keep the hands' shapes through
    # swaps, snaps, gives, multi-exchanges and penalties, and a card flagged seen is one the seat knows.
    from cabo_kit.bots.knowledge import their_knowledge

    game = ck.Game(ck.Rules.preset(preset), seed=11, n_players=4)
    bots = [CountingBot() for _ in range(4)]
    checked = 0
    while not game.is_over:
        for seat in game.to_move:
            obs = game.observation(seat)
            if obs.phase == "choose":
                seen = their_knowledge(obs)
                assert seen is not None
                assert all(obs.my_hand[p].known for p, flag in enumerate(seen[seat]) if flag)
                checked += 1
            game.apply(bots[seat].choose(obs, obs.legal_actions), seat)
    assert checked > 50
