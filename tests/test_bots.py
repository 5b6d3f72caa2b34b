"""The reference bot ladder: legal play everywhere, observations only, determinism, levels, submissions."""

from __future__ import annotations

import ast
import dataclasses
import importlib.util
import inspect
import random
from pathlib import Path

import pytest

import cabo_kit as ck
from cabo_kit.actions import LegalActions
from cabo_kit.bots import CountingBot, GreedyBot, RandomBot, SearchBot, by_level
from cabo_kit.bots import sightings as sightings_module
from cabo_kit.bots import inference as inference_module
from cabo_kit.bots import rollout as rollout_module
from cabo_kit.bots import search as search_module
from cabo_kit.bots.inference import read_events
from cabo_kit.bots.sightings import who_saw
from cabo_kit.bots.rollout import roll_out
from cabo_kit.bots.search import WorldDealer, outcome

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


@pytest.mark.parametrize("module", [search_module, rollout_module, sightings_module, inference_module],
                         ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_search_bot_uses_no_private_engine_attribute(module) -> None:  # type: ignore[no-untyped-def]
    tree = ast.parse(inspect.getsource(module))
    private = {
        node.attr for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
    }
    assert private == set()
    imported = {(node.module, alias.name) for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                for alias in node.names}
    # (the counting bot's card pool is shared through counting.unseen_cards)
    assert {(source, name) for source, name in imported if name.startswith("_")} == set()


def test_search_guess_agrees_with_what_the_bot_knows() -> None:
    rules = ck.Rules.preset("traveller")
    game = ck.Game(rules, seed=4, n_players=4)
    bots = [CountingBot() for _ in range(4)]
    while game.turn < 9 or game.phase != "choose":
        for seat in game.to_move:
            obs = game.observation(seat)
            game.apply(bots[seat].choose(obs, obs.legal_actions), seat)
    obs = game.observation(game.current)
    dealer = WorldDealer(obs, read_events(obs), SearchBot.known_shift)
    assert dealer.ok
    for k in range(5):
        world, _ = dealer.deal(random.Random(k), k)
        faces = world.open_hands()
        for seen, guessed in zip(obs.hands, faces):
            assert [c for c in seen if c.known] == [g for c, g in zip(seen, guessed) if c.known]
        mine = world.observation(obs.seat)
        assert mine.discard == obs.discard and mine.deck_size == obs.deck_size
        assert (mine.phase, mine.current, mine.turn, mine.caller, mine.scores) == (
            obs.phase, obs.current, obs.turn, obs.caller, obs.scores)
        everything = sorted(world.know.faces, key=str)
        assert everything == sorted(rules.full_deck(4), key=str)
        for s in range(4):  # in the world each seat knows what the events say it has seen, and we know ours
            view = world.observation(s)
            for t, hand in enumerate(view.hands):
                assert [c.known for c in hand] == [c.known for c in game.observation(s).hands[t]]
                assert all(c == g for c, g in zip(hand, faces[t]) if c.known)
            unseen = CountingBot().unseen(view)
            assert CountingBot().mean_unseen(view) == pytest.approx(sum(unseen) / len(unseen))
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


@pytest.mark.parametrize("level", [2, 3, 4])
def test_a_bot_that_wants_the_deck_takes_the_top_when_the_deck_is_out(level: int) -> None:
    # rush reshuffles the pile when the deck runs out, but a pile of one card (its top) cannot be reshuffled
    game = ck.Game.from_layout(ck.Rules.preset("rush"), hands=[["2S", "3S", "4S", "5S"], ["6S", "7S", "8S", "9S"]],
                               discard=["10S"], deck=[], current=0)
    legal = game.legal_actions(0)
    assert ck.DrawDeck() not in legal
    assert by_level(level).choose(game.observation(0), legal) == ck.DrawDiscard()


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
    deluxe = ck.Rules.preset("deluxe")
    for rules, final in ((deluxe.replace(max_rounds=1), True), (deluxe, False)):
        game = ck.Game.from_layout(rules, hands, discard=[12], current=0, scores=[10, 20, 15, 15], known=known)
        obs = game.observation(0)
        dealer = WorldDealer(obs, read_events(obs), SearchBot.known_shift)
        values = set()
        for k in range(6):
            for first in (ck.CallCabo(), ck.DrawDeck()):  # with the call, and without it
                world, _ = dealer.deal(random.Random(k), k)
                world.apply(first)
                roll_out(world, [CountingBot() for _ in range(4)])
                values.add(outcome(world, 0))
        if final:
            assert values <= {0.0, 1 / 4, 1 / 3, 1 / 2, 1.0} and 1.0 in values  # a shared win is shared
        else:
            assert all(0.0 < v < 1.0 for v in values)


def test_search_keeps_a_sure_low_card_and_calls_a_sure_win() -> None:
    # Deluxe, the game's last round. We know 0 1 1 and one unknown card and drew a 0: it goes in place of
    # the unknown card (or of the two 1s), never on the pile.
    rules = ck.Rules.preset("deluxe").replace(max_rounds=1)
    up = [[False] * 4, [True] * 4, [True] * 4, [True] * 4]
    rivals = [[13, 12, 12, 11], [12, 11, 10, 10], [11, 12, 10, 9]]
    game = ck.Game.from_layout(rules, [[0, 1, 1, 9]] + rivals, discard=[5], current=0,
                               known=[[(0, 0), (0, 1), (0, 2)], [], [], []], face_up=up, drawn=0)
    obs = game.observation(0)
    assert SearchBot().choose(obs, obs.legal_actions) in (ck.Exchange((3,)), ck.Exchange((1, 2)))
    # We hold 11 and every rival shows over 40: calling ends the game now, won. The counting bot never
    # calls above 10; the search sees that waiting only gives the rivals turns to catch up.
    game = ck.Game.from_layout(rules, [[5, 3, 2, 1]] + rivals, discard=[5], current=0,
                               known=[[(0, p) for p in range(4)], [], [], []], face_up=up)
    obs = game.observation(0)
    assert CountingBot().choose(obs, obs.legal_actions) != ck.CallCabo()
    assert SearchBot().choose(obs, obs.legal_actions) == ck.CallCabo()


def test_search_with_an_empty_hand_holding_a_drawn_card() -> None:
    # Traveller: a hand emptied by a snap still plays its final turn. With nothing to exchange or give,
    # the drawn card is discarded even when a card we know on the table matches it.
    rules = ck.Rules.preset("traveller")
    game = ck.Game.from_layout(rules, [[], ["9C", "JD", "4S"], ["KH", "7C", "QS"]], discard=["QH"], current=0,
                               known=[[(1, 2)], [], []], drawn="4D")
    obs = game.observation(0)
    assert obs.legal_actions == (ck.Discard(),)
    assert SearchBot().choose(obs, obs.legal_actions) == ck.Discard()


@pytest.mark.parametrize("preset", PRESETS)
def test_their_knowledge_follows_the_cards(preset: str) -> None:
    # What the events say a seat has seen of its own hand: the flags keep the hands' shapes through
    # swaps, snaps, gives, multi-exchanges and penalties, and a card flagged seen is one the seat knows.
    from cabo_kit.bots.sightings import their_knowledge

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


# ---- what the search bot reads from the events ------------------------------------------------------

def real_states(preset: str, seed: int, rng: random.Random,
                kinds: tuple[type[ck.Bot], ...] = (CountingBot, RandomBot, GreedyBot)) -> list[ck.Game]:
    """Moments of a real game (a table size and bots of ``kinds`` drawn by ``rng``), each as a copy of the game."""
    rules = ck.Rules.preset(preset)
    n = rng.randint(rules.min_players, rules.max_players)
    game = ck.Game(rules, seed=seed, n_players=n)
    bots = [rng.choice(kinds)() for _ in range(n)]
    for seat, bot in enumerate(bots):
        bot.random = random.Random(seed + seat)
    states = []
    while not game.is_over:
        if game.phase in ("choose", "drawn") and rng.random() < 0.15:
            states.append(game.clone())
        for seat in game.to_move:
            obs = game.observation(seat)
            game.apply(bots[seat].choose(obs, obs.legal_actions), seat)
    return states


@pytest.mark.parametrize("preset", PRESETS)
def test_who_saw_matches_what_each_seat_knows(preset: str) -> None:
    # Read from one seat's events alone, who_saw says for every card on the table which seats know it:
    # exactly the cards the engine shows each seat.
    rng = random.Random(preset + "who")
    checked = 0
    for seed in range(3):
        for real in real_states(preset, 200 + seed, rng):
            views = [real.observation(s) for s in range(real.n)]
            for viewer in views:
                seen = who_saw(viewer)
                assert seen is not None
                assert seen == [[sum(1 << s for s in range(real.n) if views[s].hands[t][p].known)
                                 for p in range(len(hand))] for t, hand in enumerate(viewer.hands)]
                checked += 1
    assert checked > 50


@pytest.mark.parametrize("preset", PRESETS)
def test_evidence_holds_against_counting_bots(preset: str) -> None:
    # read_events reads the opponents' choices as a counting player's: against counting bots every value
    # limit, every Cabo sum rule and every value a quiet snap window ruled out holds for the true cards.
    rng = random.Random(preset + "evidence")
    limits = sums = ruled_out = 0
    for real in [state for seed in range(300, 304) for state in real_states(preset, seed, rng, (CountingBot,))]:
        truth = real.open_hands()
        for seat in range(real.n):
            evidence = read_events(real.observation(seat))
            assert evidence is not None
            value = dict(evidence.face)
            for s, hand in enumerate(evidence.cards):
                for p, c in enumerate(hand):
                    value[c] = truth[s][p].value
                    assert value[c] == evidence.face.get(c, value[c])
                    if c in evidence.limit:
                        assert value[c] < evidence.limit[c]
                        limits += 1
                    assert not evidence.not_values.get(c, 0) >> (value[c] + 1) & 1
                    ruled_out += c in evidence.not_values
            for rule in evidence.sums:
                if all(c in value for c in rule.cards):
                    assert (sum(value[c] for c in rule.cards) + rule.fixed > rule.line) == rule.above
                    sums += 1
    assert limits > 50 and sums > 50
    assert ruled_out > 50 or not ck.Rules.preset(preset).snapping


def test_greedy_bot_calls_cabo_only_when_the_rules_allow_it_now() -> None:
    # rush with final turns after an emptied hand: Cabo may not be called then (34 of 300 games raised before)
    rules = dataclasses.replace(ck.Rules.preset("rush"), empty_hand="final_turns")
    for seed in range(120):
        record = ck.play_game([ck.bots.GreedyBot() for _ in range(4)], rules, seed=seed)
        assert record.winners


def test_a_bots_random_is_made_once_on_first_read_and_a_set_one_wins() -> None:
    bot = RandomBot()
    assert bot.random is bot.random  # one generator, made when first read
    assert bot.random.random() == random.Random(0).random()  # as every Bot() was seeded before it was lazy
    mine = random.Random(7)
    other = RandomBot()
    other.random = mine
    assert other.random is mine
    import pickle

    again = pickle.loads(pickle.dumps(RandomBot()))
    assert again.random.random() == random.Random(0).random()


class PlainGreedy(ck.SimpleBot):
    """GreedyBot's rules written the plainest way, each answer worked out from the observation alone."""

    def worst(self, obs):  # type: ignore[no-untyped-def]
        values = [6.5 if c.value is None else c.value for c in obs.my_hand]
        return values.index(max(values)) if values else None

    def estimated_total(self, obs):  # type: ignore[no-untyped-def]
        return sum(6.5 if c.value is None else c.value for c in obs.my_hand)

    def call_cabo(self, obs):  # type: ignore[no-untyped-def]
        return self.estimated_total(obs) <= 7.0

    def draw(self, obs):  # type: ignore[no-untyped-def]
        if obs.caller is None and obs.rules.cabo_timing == "instead" and ck.CallCabo() in obs.legal_actions \
                and self.call_cabo(obs):
            return "cabo"
        top, worst = obs.top, self.worst(obs)
        if top is not None and top.value is not None and worst is not None and top.value <= 4 \
                and top.value < GreedyBot.estimate(obs.my_hand[worst]):
            return "discard"
        return "deck"

    def keep(self, obs, card):  # type: ignore[no-untyped-def]
        worst = self.worst(obs)
        if worst is None:
            return None
        must_keep = obs.drawn_from == "discard" and not obs.rules.discard_draw_may_discard
        return worst if must_keep or card.value < GreedyBot.estimate(obs.my_hand[worst]) else None

    def swap(self, obs):  # type: ignore[no-untyped-def]
        worst = self.worst(obs)
        if worst is None:
            return None
        mine = GreedyBot.estimate(obs.my_hand[worst])
        targets = [obs.target] if obs.target is not None else [
            (s, p) for s in obs.opponents for p in range(len(obs.hands[s]))]
        known = [(obs.hands[s][p].value, s, p) for s, p in targets if obs.hands[s][p].value is not None]
        best = min((t for t in known if t[0] < mine), key=lambda t: t[0], default=None)
        return None if best is None else (worst, best[1], best[2])

    def give(self, obs):  # type: ignore[no-untyped-def]
        return self.worst(obs)


class ComparedGreedy(GreedyBot):
    """A GreedyBot that checks each answer, and what it remembers of its hand after it, against PlainGreedy."""

    asked: dict = {}  # type: ignore[type-arg]  # decisions by phase (and swaps with a target set), across bots

    def choose(self, observation, legal_actions):  # type: ignore[no-untyped-def]
        action = super().choose(observation, legal_actions)
        plain = PlainGreedy()
        assert action is plain.choose(observation, legal_actions)
        # Read after the decision: what the bot remembers is right for the hand it is shown.
        assert self.worst(observation) == plain.worst(observation)
        assert self.estimated_total(observation) == plain.estimated_total(observation)
        key = observation.phase.value + ("+target" if observation.target is not None else "")
        ComparedGreedy.asked[key] = ComparedGreedy.asked.get(key, 0) + 1
        return action


@pytest.mark.parametrize("preset", PRESETS)
def test_greedy_bot_answers_as_its_plain_definition_at_every_decision(preset: str) -> None:
    # GreedyBot reads its hand once a turn (kept for the hand view it last read) and writes its loops out:
    # every answer, and its worst card and estimated total after each, must be those worked out from scratch.
    ComparedGreedy.asked = {}
    rules = ck.Rules.preset(preset).replace(max_rounds=3)
    for n in table_sizes(preset):
        for seed in range(3):
            ck.play_game([ComparedGreedy() for _ in range(n)], rules, seed=seed)
    asked = ComparedGreedy.asked
    assert asked["choose"] > 300 and asked["drawn"] > 300 and asked.get("swap", 0) + asked.get("power", 0) > 10
    assert preset != "traveller" or asked.get("swap+target", 0) + asked.get("power+target", 0) > 0, asked


def test_greedy_bot_answers_as_its_plain_definition_under_random_rules() -> None:
    # Variants a teacher might build (hand sizes, Cabo timing, multi-exchanges, power tables, snapping, ...);
    # the plain definition asks the Cabo timing and the caller, GreedyBot only whether Cabo is legal now.
    from test_fast_paths import random_rules

    ComparedGreedy.asked = {}
    rng = random.Random(20)
    for seed in range(60):
        rules = random_rules(rng).replace(max_rounds=1)
        n = rng.choice([2, 3, 4])
        ck.play_game([ComparedGreedy() for _ in range(n)], rules, seed=seed)
    asked = ComparedGreedy.asked
    assert asked["choose"] > 500 and asked["end_turn"] > 100 and asked.get("swap+target", 0) + asked.get("power+target", 0) > 5, asked


def test_greedy_bot_reads_a_hand_given_as_a_list_each_time() -> None:
    # Its memory of a hand goes by the hand's identity, right for the engine's immutable tuples only.
    game = ck.Game(ck.Rules.preset("deluxe"), 5, 2)
    obs = game.observation(game.to_move[0])
    hand = [ck.Card.parse(v) for v in ("3", "9", "5", "1")]
    mine = obs._replace(hands=tuple(hand if s == obs.seat else h for s, h in enumerate(obs.hands)))
    bot = GreedyBot()
    assert (bot.worst(mine), bot.estimated_total(mine)) == (1, 18.0)
    hand[3] = ck.Card.parse("12")
    assert (bot.worst(mine), bot.estimated_total(mine)) == (3, 29.0)


class NotesItsHand(GreedyBot):
    """A student's GreedyBot keeping notes under the names GreedyBot's own memory would have if not private."""

    def on_game_start(self, seat, n_players, rules):  # type: ignore[no-untyped-def]
        self.seat, self._total, self._worst = seat, 0, "mine"

    def draw(self, obs):  # type: ignore[no-untyped-def]
        self._hand = self.noted = obs.my_hand  # the very tuple GreedyBot reads
        return super().draw(obs)

    def keep(self, obs, card):  # type: ignore[no-untyped-def]
        self._hand = self.noted = ("kept from", obs.my_hand)
        return super().keep(obs, card)

    def on_round_end(self, result):  # type: ignore[no-untyped-def]
        self._total += result.scores[self.seat]


@pytest.mark.parametrize("preset", PRESETS)
def test_a_greedy_subclass_using_its_own_hand_and_total_names_plays_greedy_bots_games(preset: str) -> None:
    # GreedyBot's remembered hand reading is name-mangled: a subclass's self._hand / self._total / self._worst
    # neither change how it plays nor are overwritten by it.
    rules = ck.Rules.preset(preset)
    n = rules.min_players
    for seed in range(4):
        student = NotesItsHand()
        mine = ck.play_game([student] + [GreedyBot() for _ in range(n - 1)], rules, seed=seed)
        reference = ck.play_game([GreedyBot() for _ in range(n)], rules, seed=seed)
        assert mine.actions == reference.actions and mine.totals == reference.totals
        assert student._total == sum(r.scores[0] for r in mine.rounds) and student._worst == "mine"
        assert student._hand is student.noted  # its own last note, not the hand GreedyBot last read


@pytest.mark.parametrize("bot_class", [GreedyBot, PlainGreedy])
def test_greedy_swap_takes_the_first_lowest_known_card_below_its_worst(bot_class: type) -> None:
    game = ck.Game(ck.Rules.preset("traveller"), 1, 3)
    obs = game.observation(0)
    cards = [[ck.Card.parse(c) for c in hand.split()] for hand in ("9S 3S 2S AS", "?? 9H 4D 4C", "4H ?? ?? 5S")]
    seen = obs._replace(hands=tuple(map(tuple, cards)), seat=0)
    bot = bot_class()
    assert bot.swap(seen) == (0, 1, 2)  # three 4s (seat 1 at 2 and 3, seat 2 at 0): the first in seat order
    assert bot.swap(seen._replace(target=(1, 1))) is None  # the spied card is a 9: no better than ours
    assert bot.swap(seen._replace(target=(2, 3))) == (0, 2, 3)
    assert bot.swap(seen._replace(target=(1, 0))) is None  # unseen


def test_simple_bot_finds_a_multi_exchange_by_the_legal_sets_own_in() -> None:
    # Deluxe's legal exchanges after a draw are a LegalActions, whose pairs are not listed: SimpleBot's quick
    # scan of the listed actions misses them and its check asks the set itself.
    game = ck.Game(ck.Rules.preset("deluxe"), 4, 2)
    while game.phase is not ck.Phase.DRAWN:
        seat = game.to_move[0]
        obs = game.observation(seat)
        game.apply(ck.SimpleBot().choose(obs, obs.legal_actions), seat)
    obs = game.observation(game.to_move[0])
    assert isinstance(obs.legal_actions, LegalActions)

    class Pair(ck.SimpleBot):
        def keep(self, obs, card):  # type: ignore[no-untyped-def]
            return [1, 0]

    class Beyond(ck.SimpleBot):
        def keep(self, obs, card):  # type: ignore[no-untyped-def]
            return [0, 9]

    assert Pair().choose(obs, obs.legal_actions) is ck.Exchange((0, 1))
    with pytest.raises(ck.BotError, match=r"keep\(\) led to exchange 0,9, which is not legal now"):
        Beyond().choose(obs, obs.legal_actions)
