"""Monte Carlo: every draw and keep decision plays out random futures and picks the best on average.

A fixed number of rollouts per option (so the bot is deterministic, from its seeded self.random):
thorough, and slow: about 0.1 s a decision on the project's machine (up to 0.2 s when it is busy),
and 10-20 s of the 30 s time bank in a long deluxe game.
"""

import cabo_kit as ck

ROLLOUTS = 3000  # random futures per option
HORIZON = 4      # own turns played out in each future


class MonteCarlo(ck.SimpleBot):
    def unseen(self, obs):
        pool = {}
        for card in obs.rules.full_deck(obs.n_players):
            pool[str(card)] = pool.get(str(card), [card.value, 0])
            pool[str(card)][1] += 1
        seen = [c for hand in obs.hands for c in hand if c.value is not None] + list(obs.discard)
        if obs.drawn is not None and obs.drawn.value is not None:
            seen.append(obs.drawn)
        for c in seen:
            if str(c) in pool and pool[str(c)][1] > 0:
                pool[str(c)][1] -= 1
        return [v for v, n in pool.values() for _ in range(n)] or [6]

    def rollout_total(self, hand, pool):
        """The mean total of ``hand`` (None: unknown) after HORIZON own turns of greedy play, over ROLLOUTS futures."""
        rng, total = self.random, 0.0
        for _ in range(ROLLOUTS):
            cards = [rng.choice(pool) if v is None else v for v in hand]
            for _turn in range(HORIZON):
                drawn = rng.choice(pool)
                worst = max(range(len(cards)), key=cards.__getitem__)
                if drawn < cards[worst]:
                    cards[worst] = drawn
            total += sum(cards)
        return total / ROLLOUTS

    def best_keep(self, obs, card):
        hand = [c.value for c in obs.my_hand]
        pool = self.unseen(obs)
        must = obs.drawn_from == "discard" and not obs.rules.discard_draw_may_discard
        options = list(range(len(hand))) + ([] if must else [None])
        scores = {}
        for option in options:
            trial = list(hand)
            if option is not None:
                trial[option] = card.value
            scores[option] = self.rollout_total(trial, pool)
        return min(options, key=lambda o: scores[o]), scores

    def draw(self, obs):
        if obs.caller is None and obs.rules.cabo_timing == "instead" and self.call_cabo(obs):
            return "cabo"
        top = obs.top
        if top is None or top.value is None or not obs.my_hand:
            return "deck"
        take, scores = self.best_keep(obs, top)
        stay = self.rollout_total([c.value for c in obs.my_hand], self.unseen(obs))
        return "discard" if take is not None and scores[take] < stay - 1 else "deck"

    def keep(self, obs, card):
        if not obs.my_hand:
            return None
        return self.best_keep(obs, card)[0]

    def call_cabo(self, obs):
        known, unknown = obs.known_total()
        return unknown == 0 and known <= 5
