"""A round's and a game's set-up, written for speed, deal and score exactly as the plain code they stand for."""

from __future__ import annotations

import random
from typing import Any, Sequence

import cabo_kit as ck
from cabo_kit.game import _shuffled, seeded_random


def _argsort_shuffle(items: Sequence[Any], rng: Any) -> list[Any]:
    """The plain seeded shuffle: one ``rng.random()`` key per item in item order, the items put in the order of a
    stable arg-sort of the keys (equal keys keep their items' order)."""
    keys = [rng.random() for _ in items]
    return [items[i] for i in sorted(range(len(items)), key=keys.__getitem__)]


class _Ties:
    """A generator whose ``random()`` answers from a few values only: most keys tie."""

    def __init__(self, seed: int, values: int) -> None:
        self._rng, self._values, self.draws = random.Random(seed), values, 0

    def random(self) -> float:
        self.draws += 1
        return self._rng.randrange(self._values) / self._values


def test_the_shuffle_is_the_stable_arg_sort_of_its_keys() -> None:
    """Every deck of the presets and table sizes, and the reshuffle's card ids, in the order the arg-sort gives, the
    generator left in the same state (a round draws on from it: the reshuffles)."""
    for seed in range(30):
        for preset in ("deluxe", "rush", "traveller"):
            for n in (2, 4, 6):
                full = ck.Rules.preset(preset).full_deck(n)
                text = f"cabo-kit:{seed}:{n}:shuffle"
                fast, plain = seeded_random(text), random.Random(text)
                assert _shuffled(full, fast) == _argsort_shuffle(full, plain)
                assert fast.getstate() == plain.getstate()
        ids = list(range(seed))  # a reshuffled pile: 0 to 29 card ids
        fast, plain = random.Random(seed), random.Random(seed)
        assert _shuffled(ids, fast) == _argsort_shuffle(ids, plain) and fast.getstate() == plain.getstate()


def test_equal_keys_keep_their_items_order() -> None:
    """Forced ties (keys from 1, 2, 3 or 7 values only): ties broken by the items' places, exactly as the arg-sort,
    one key drawn per item; all keys equal leaves the items as they were."""
    items = [f"card{i}" for i in range(53)]
    for values in (1, 2, 3, 7):
        for seed in range(40):
            fast, plain = _Ties(seed, values), _Ties(seed, values)
            got = _shuffled(items, fast)
            assert got == _argsort_shuffle(items, plain)
            assert fast.draws == plain.draws == len(items)
            if values == 1:
                assert got == items
    assert _shuffled([], _Ties(0, 2)) == [] and _shuffled(["x"], _Ties(0, 2)) == ["x"]


def _check_results(rules: ck.Rules, results: list[ck.RoundResult]) -> None:
    """Each result's scores and facts as :func:`ck.round_details` finds them from its final hands, and its game
    totals and resets as a score sheet replaying the rounds before it has them (the engine's own code left out)."""
    sheet = ck.ScoreSheet(rules, len(results[0].final_hands))
    for index, result in enumerate(results):
        facts = ck.round_details(rules, result.final_hands, result.caller, result.ended_by)
        sheet.add_round(facts.scores)
        assert result.index == index
        assert result.totals == list(facts.totals) and result.scores == list(facts.scores)
        assert result.caller_won is facts.caller_won
        assert result.kamikaze == list(facts.kamikaze) and result.royal_roulette == list(facts.royal_roulette)
        assert result.game_totals == sheet.totals and result.resets == sheet.reset_rounds[-1]
        if index:
            before = results[index - 1]
            assert result.start_player == ck.next_start_player(
                rules, before.scores, before.start_player, before.caller, before.caller_won)
        # the engine's result (game._round_result, without __init__) is the one __init__ makes of its fields
        plain = ck.RoundResult(**{name: getattr(result, name) for name in ck.RoundResult.__slots__})
        assert result.to_dict() == plain.to_dict() == ck.RoundResult.from_dict(result.to_dict()).to_dict()
    assert sheet.game_over


def test_the_round_s_end_keeps_the_score_tuples_and_results_as_the_plain_code_makes_them() -> None:
    """At every round's end the engine brings the observation's score tuples one round on (not rebuilt from the
    sheet), and each RoundResult holds what scoring the final hands and replaying the score sheet give: in whole
    games of every preset (kamikaze and royal roulette rules, 2-6 seats) and in a clone taken mid-game."""
    callers = 0
    for preset in ("deluxe", "rush", "traveller"):
        for n in (2, 4, 6):
            for seed in range(3):
                rules = ck.Rules.preset(preset).replace(min_players=2)
                game = ck.Game(rules, seed, n)
                clone = None
                for g in (game, None):  # the game, then a clone of it taken after its first round, each to its end
                    g = g or clone
                    assert g is not None
                    bots = [ck.bots.GreedyBot() for _ in range(n)]
                    while not g.is_over:
                        seat = g.to_move[0]
                        obs = g.observation(seat)
                        g.apply(bots[seat].choose(obs, obs.legal_actions), seat)
                        if clone is None and len(g.results) == 1:
                            clone = g.clone()
                        assert g._totals == tuple(g.sheet.totals)
                        assert g._round_scores == tuple(tuple(r) for r in g.sheet.rounds)
                    assert tuple(tuple(r.scores) for r in g.results) == g._round_scores
                    _check_results(rules, g.results)
                    callers += sum(r.caller is not None for r in g.results)
    assert callers > 50


def test_reveal_all_is_a_reveal_of_every_card_in_every_hand() -> None:
    """The game's end shows every hand (Knowledge.reveal_all, each hand's views rebuilt once): the same knowledge,
    views and flags as revealing the cards one by one, from moments all through seeded games (cards seen, face up,
    taken from the pile, snapped away; memory on and off; 2-6 seats)."""
    from cabo_kit.knowledge import Knowledge

    moments = 0
    for preset, n, memory in (("deluxe", 2, "engine"), ("rush", 4, "engine"), ("traveller", 6, "none"),
                              ("rush", 3, "none"), ("deluxe", 5, "engine")):
        for seed in range(4):
            game = ck.Game(ck.Rules.preset(preset).replace(min_players=2), seed, n, memory=memory)
            bots = [ck.bots.RandomBot() for _ in range(n)]
            for seat, bot in enumerate(bots):
                bot.random = random.Random(seed * 10 + seat)
            step = 0
            while not game.is_over:
                if step % 7 == 0:
                    fast, plain = game.know.copy(), game.know.copy()
                    fast.reveal_all()
                    for hand in plain.hands:
                        for card in hand:
                            plain.reveal(card)
                    for name in Knowledge.__slots__:
                        assert getattr(fast, name) == getattr(plain, name), name
                    moments += 1
                seat = game.to_move[0]
                obs = game.observation(seat)
                game.apply(bots[seat].choose(obs, obs.legal_actions), seat)
                step += 1
    assert moments > 300
