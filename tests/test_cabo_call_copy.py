"""play_out's written-out Cabo call starts the next turn itself only for a seat with a hand (a layout may
deal a seat none): the next seat's legal actions are then _legal_choose()'s, not the shared deck-pile tuple."""
from __future__ import annotations

import random

import cabo_kit as ck
from cabo_kit import game as game_module
from cabo_kit.game import Game


class _Checker(ck.Bot):
    def __init__(self, game: Game, seed: int, seen: list[int]) -> None:
        self.game, self.random, self.seen = game, random.Random(seed), seen

    def choose(self, observation: ck.Observation, legal_actions):  # type: ignore[no-untyped-def]
        game = self.game
        if game._legal is not None:  # the kept legal actions are what the engine would compute now
            assert tuple(game._legal) == tuple(game._compute_legal()), (game.phase, game.current)
        self.seen.append(observation.seat)
        return self.random.choice(list(legal_actions))


def test_cabo_call_before_a_seat_without_cards() -> None:
    copies = 0
    for seed in range(40):
        rules = ck.Rules.preset(["deluxe", "rush"][seed % 2]).replace(
            cabo_timing="instead", snapping=False, discard_draw_may_discard=False, max_rounds=1)
        cards = rules.full_deck(3)
        random.Random(seed).shuffle(cards)
        k = rules.hand_size
        game = Game.from_layout(rules, [cards[:k], [], cards[k:2 * k]], discard=cards[2 * k:2 * k + 1], seed=seed)
        seen: list[int] = []
        ck.Stepper(game, [_Checker(game, seed * 3 + s, seen) for s in range(3)]).run()
        copies += sum(1 for e in game.log if e is game_module._CABO_EVENTS[0])
    assert copies >= 5, f"play_out's written-out Cabo call before the empty hand hardly ran ({copies})"
