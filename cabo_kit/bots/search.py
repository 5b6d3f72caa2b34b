"""SearchBot: guesses the hidden cards, plays each guess forward, and picks what worked best."""

from __future__ import annotations

from typing import Sequence

from ..actions import Action, CallCabo, Discard, DrawDeck, DrawDiscard, Exchange, Pass
from ..cards import Card
from ..game import Game
from ..observation import Observation
from .counting import CountingBot, _full_pool

__all__ = ["SearchBot"]


class SearchBot(CountingBot):
    """Determinized Monte Carlo search on top of the counting bot.

    The idea, in plain words:

    1. **Guess the hidden cards.** From what this seat has seen, the unseen cards are
       the full deck minus every card it can see. Deal them at random into the ``??``
       places and the deck: that is one *determinization*, a complete game that agrees
       with everything we know.
    2. **Build it as a real game** with the engine's public ``Game.from_layout``.
    3. **Play each candidate forward** (draw, take, call Cabo, keep or discard the
       drawn card) to the end of the round, every player following a fast rollout
       policy, and score it: our round score minus the others' average.
    4. **Pick the best on average**, comparing all candidates on the same guesses so
       that luck cancels out. The counting bot's own choice wins ties and near-ties,
       so noise alone never makes the bot worse than its teacher.

    The budget counts rollouts, not seconds, so a seed gives the same game on any
    machine. The search runs where it pays: the draw-or-call decision and the drawn
    card's fate, and only when the counting bot's estimates are close to a Cabo call or
    the gain is small. Snap windows, powers, gives and placements, which a layout
    cannot express, are left to the counting bot.

    >>> import cabo_kit as ck
    >>> rec = ck.play_game([SearchBot(), ck.bots.RandomBot()], ck.Rules.preset("deluxe"), seed=2)
    >>> rec.winners
    [0]
    """

    rollouts = 8  # rollouts per searched decision, split over the candidates
    window = 3.0  # search a draw decision when our estimate is within this of a Cabo call
    close_gain = 1.5  # search a drawn card's fate when the two best uses are this close
    rollout_cabo = 6.0  # rollout players call Cabo at this estimated total or lower
    max_rollout_turns = 12  # then the rollout players call Cabo: bounded cost

    def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        obs = observation
        default = super().choose(obs, legal_actions)
        if obs.memory != "engine" or obs.phase not in ("choose", "drawn", "end_turn"):
            return default
        candidates = self.candidates(obs, legal_actions, default)
        if len(candidates) < 2:
            return default
        return self.search(obs, candidates)

    def candidates(self, obs: Observation, legal: Sequence[Action], default: Action) -> list[Action]:
        """The counting bot's choice first, then the alternatives worth a look."""
        e = self.mean_unseen(obs)
        total = sum(self.values(obs, obs.seat, e))
        if obs.phase in ("choose", "end_turn"):
            if all(type(a) is not CallCabo for a in legal) or total > self.cabo_cap + self.window:
                return [default]
            options: list[Action] = [a for a in (DrawDeck(), DrawDiscard(), CallCabo(), Pass()) if a in legal]
            return [default] + [a for a in options if a != default]
        card = obs.drawn
        if card is None or card.value is None:
            return [default]
        scored: list[tuple[float, Action]] = [(0.0, Discard())] if Discard() in legal else []
        scored += [(self.gain(obs, card, p, e), Exchange((p,))) for p in range(len(obs.my_hand))]
        scored.sort(key=lambda o: -o[0])
        close = [a for g, a in scored[:2] if a != default and abs(g - scored[0][0]) <= self.close_gain]
        return [default] + close[:1]

    def search(self, obs: Observation, candidates: list[Action]) -> Action:
        worlds = max(1, self.rollouts // len(candidates))
        totals = [0.0] * len(candidates)
        for _ in range(worlds):
            layout = self.guess(obs)
            if layout is None:
                return candidates[0]
            for i, action in enumerate(candidates):
                totals[i] += self.playout(obs, layout, action)
        best = max(range(len(candidates)), key=lambda i: totals[i])
        if totals[best] - totals[0] <= 0.5 * worlds:  # not clearly better: trust the counting bot
            return candidates[0]
        return candidates[best]

    def guess(self, obs: Observation) -> dict | None:
        """One determinization: every ``??`` and the deck filled from the unseen cards, or ``None``."""
        pool = {card: k for card, k in _full_pool(obs.rules, obs.n_players)}
        seen = [c for hand in obs.hands for c in hand if c.known] + list(obs.discard)
        if obs.drawn is not None and obs.drawn.known:
            seen.append(obs.drawn)
        for card in seen:
            if pool.get(card, 0) <= 0:
                return None  # the observation is not consistent with one deck (e.g. no memory)
            pool[card] -= 1
        hidden: list[Card] = [c for c, k in pool.items() for _ in range(k)]
        holes = sum(1 for hand in obs.hands for c in hand if not c.known)
        if len(hidden) != holes + obs.deck_size:
            return None
        self.random.shuffle(hidden)
        hands = [[c if c.known else hidden.pop() for c in hand] for hand in obs.hands]
        return {"hands": hands, "discard": list(obs.discard), "deck": hidden}

    def playout(self, obs: Observation, layout: dict, action: Action) -> float:
        """Play ``action`` in one guessed world, then the rest of the round; our score minus the others' mean."""
        me, n = obs.seat, obs.n_players
        current, caller, drawn = obs.current, obs.caller, None
        if obs.phase == "end_turn":  # the turn is over: only the call is left to decide
            current = (me + 1) % n
            caller = me if type(action) is CallCabo else None
        elif obs.phase == "drawn":
            drawn = obs.drawn
        known = [[(s, p) for p in range(len(h))] for s, h in enumerate(layout["hands"])]
        known[me] = [(s, p) for s, h in enumerate(obs.hands) for p, c in enumerate(h) if c.known]
        game = Game.from_layout(
            obs.rules, layout["hands"], layout["discard"], layout["deck"], seed=0, current=current,
            start_player=obs.start_player, scores=obs.scores, round=obs.round, turn=obs.turn, caller=caller,
            face_up=obs.face_up, known=known, drawn=drawn, drawn_from=obs.drawn_from or "deck",
        )
        if obs.phase != "end_turn":
            game.apply(action, me)
        scores = self.rollout(game)
        others = [scores[s] for s in range(n) if s != me]
        return -(scores[me] - sum(others) / len(others))

    def rollout(self, game: Game) -> list[int]:
        """Play to the end of the round with a fast greedy policy; the round's scores."""
        start_turn = game.turn
        while not game.results and game.phase != "over":
            seat = game.to_move[0]
            phase = game.phase
            if phase == "snap":
                for s in game.to_move:
                    game.apply_unchecked(Pass(), s)
                continue
            legal = game.legal_actions(seat)
            if phase in ("choose", "drawn", "end_turn"):
                late = game.turn - start_turn > self.max_rollout_turns
                action = self.fast_policy(game.observation(seat), legal, late)
            else:
                action = legal[0]  # Pass where a power may be skipped; else the first option
            game.apply_unchecked(action, seat)
        return list(game.results[-1].scores)

    def fast_policy(self, obs: Observation, legal: Sequence[Action], late: bool) -> Action:
        """Greedy play with unknown cards at 6.5: cheap enough to run thousands of times."""
        hand = obs.my_hand
        est = [6.5 if c.value is None else c.value for c in hand]
        if obs.phase in ("choose", "end_turn"):
            if CallCabo() in legal and (late or sum(est) <= self.rollout_cabo):
                return CallCabo()
            if obs.phase == "end_turn":
                return Pass()
            top = obs.top
            if est and top is not None and top.value is not None and top.value <= 3 and top.value < max(est) and DrawDiscard() in legal:
                return DrawDiscard()
            return DrawDeck() if DrawDeck() in legal else legal[0]
        worst = max(range(len(est)), key=est.__getitem__) if est else None
        card = obs.drawn
        if worst is not None and card is not None and card.value is not None:
            if card.value < est[worst] or Discard() not in legal:
                return Exchange((worst,))
        return Discard() if Discard() in legal else legal[0]
