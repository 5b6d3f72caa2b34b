"""SearchBot: guesses the hidden cards, plays each guess forward, and picks what worked best."""

from __future__ import annotations

import math
from typing import Sequence

from ..actions import Action, CallCabo, Discard, DrawDeck, DrawDiscard, Exchange, Give, Pass, Peek, Snap, Swap
from ..cards import Card
from ..game import Game
from ..observation import Observation
from ..rules import Rules
from .counting import CountingBot, _full_pool
from .knowledge import their_knowledge

__all__ = ["SearchBot"]


def worth(card: Card, unknown: float) -> float:
    """A card's value, or ``unknown`` for an unseen one."""
    return unknown if card.value is None else float(card.value)


class SearchBot(CountingBot):
    """Determinized Monte Carlo search on top of a sharper counting bot, for the Cabo call and snaps.

    The idea, in plain words:

    0. **Know what the others know.** The round's events say where each opponent looked
       (peeks, cards they drew and put in), never what they saw. A card they looked at and
       kept is probably low (about 2 points under the average), so it counts lower when we
       judge their total, it is the card to take with a swap, and guesses draw it lower.
       And with snapping, knowing a card of our own is worth more (it can be snapped), so
       we replace unknown cards more eagerly (``adapt``).
    1. **Search the decisions that matter.** Whether to call Cabo now decides most
       rounds. With snapping (rush, traveller), so does the drawn card's fate when a choice
       sets up a sure snap that saves points on paper (discard a card we know lies on the
       table, or free one of a known pair); the rollouts judge the snap race. The rest is
       the counting bot's.
    2. **Guess the hidden cards.** The unseen cards are the full deck minus every card
       this seat can see. Deal them into the ``??`` places and the deck: one
       *determinization*, a whole game that agrees with everything we know. Opponents
       keep their low cards, so the cards they have seen are drawn lower than the average.
    3. **Build it as a real game** with the engine's public ``Game.from_layout``, once per
       candidate, and **play it forward** to the round's end, all players copying the counting bot.
    4. **Score the end, not the round.** Each finished round is valued as our chance of
       winning the game from the new totals: a sure win or loss if the game ends, else
       a soft guess that sharpens as the end comes near (a lead matters more then).
    5. **Compare on the same guesses** (luck cancels out). The counting bot's choice
       stands unless another beats it by more than a standard error, so noise rarely overrules it.

    The budget counts rollouts, not seconds, so a seed gives the same game on any machine
    (32 worlds per searched call, 16 per searched drawn card, fewer at 5 or 6 players;
    docs/bots.md has the ms).

    >>> import cabo_kit as ck
    >>> rec = ck.play_game([SearchBot(), ck.bots.RandomBot()], ck.Rules.preset("deluxe"), seed=2)
    >>> rec.winners
    [0]
    """

    rollouts = 32  # guessed worlds per searched call, each played with and without the call
    window = 4.0  # search when our estimate is within this of the counting bot's cap
    end_window = 6.0  # ... or this much more when a game total is within 25 of the end
    confidence = 1.0  # overrule the counting bot only when the mean gain is this many standard errors from 0
    max_rollout_turns = 16  # then the rollout players call Cabo: bounded cost
    fate_rollouts = 16  # guessed worlds per searched drawn card (snapping presets), each played once per option
    last_turn_sense = False  # in a rollout, our own final turn replaces an unknown card only for points
    me = -1
    improve_rate = 0.5  # opponents' unseen cards are assumed to improve twice as fast as the counting bot assumes

    def __init__(self) -> None:
        super().__init__()
        self.knowledge_for: Observation | None = None
        self.knowledge: list[list[bool]] | None = None

    def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        self.adapt(observation.rules)
        return super().choose(observation, legal_actions)

    def adapt(self, rules: Rules) -> None:
        """The counting bot's numbers, retuned for the rules (measured in docs/bots.md).

        With snapping a known card is worth more than its expected points: it can be snapped
        when its twin lands on the pile, and a known pair sets up a snap. So the bonus for
        replacing an unknown card (knowing what lies there) grows from 3 points to 5
        (traveller: Cabo at the end of a turn) or 7 (rush: Cabo instead of a turn).
        """
        self.info_bonus = 3.0 if not rules.snapping else (7.0 if rules.cabo_timing == "instead" else 5.0)

    # ---- what the opponents know: a card they have seen is probably low ----------------

    known_shift = 2.1  # an opponent's card they have seen (we have not) is worth this much less than the unseen average

    def estimates(self, obs: Observation, seat: int, e: float) -> list[float]:
        """Our estimate of each of ``seat``'s cards: its value if we know it, lower if they have seen it."""
        if self.knowledge_for is not obs:
            self.knowledge_for, self.knowledge = obs, their_knowledge(obs)
        seen = self.knowledge
        guess = max(e - self.improve_rate * (obs.turn // obs.n_players), 3.0)  # the counting bot's, without events
        return [float(c.value) if c.value is not None else guess if seen is None
                else e - self.known_shift if seen[seat][p] else e for p, c in enumerate(obs.hands[seat])]

    def threat(self, obs: Observation, seat: int, e: float) -> float:
        return sum(self.estimates(obs, seat, e))

    def swap(self, obs: Observation) -> tuple[int, int, int] | None:
        """The counting bot's swap, aimed at a card the opponent has seen (it is probably low)."""
        e = self.mean_unseen(obs)
        mine = self.values(obs, obs.seat, e)
        special = self.special_keep(obs)
        targets = [obs.target] if obs.target is not None else [
            (s, p) for s in obs.opponents for p in range(len(obs.hands[s]))]
        best, best_gain = None, 1.5
        for own in range(len(mine)):
            for s, p in targets:
                gain = mine[own] - self.estimates(obs, s, e)[p]
                if own not in special and gain > best_gain:
                    best, best_gain = (own, s, p), gain
        return best

    def call_cabo(self, obs: Observation) -> bool:
        default = super().call_cabo(obs)
        if obs.memory != "engine" or len(self.special_keep(obs)) == 4:
            return default
        e = self.mean_unseen(obs)
        total = sum(self.values(obs, obs.seat, e))
        near_end = max(obs.scores) + 25 >= obs.rules.end_score
        if total > self.cabo_cap + self.window + (self.end_window if near_end else 0.0):
            return default
        best = self.best_of(obs, [Pass(), CallCabo()], self.rollouts, e, CallCabo() if default else Pass())
        return best == CallCabo()

    def keep(self, obs: Observation, card: Card, forced: bool = False) -> int | tuple[int, ...] | None:  # type: ignore[override]
        """The counting bot's keep, unless a snap it sets up (discard a match, or free one) plays out better."""
        default = super().keep(obs, card, forced)
        if forced or obs.phase != "drawn" or not obs.rules.snapping or obs.memory != "engine":
            return default
        e = self.mean_unseen(obs)
        usual: Action = Discard() if default is None else Exchange(default if isinstance(default, tuple) else (default,))
        may_discard = obs.drawn_from == "deck" or obs.rules.discard_draw_may_discard
        options: list[Action] = [Exchange((p,)) for p in range(len(obs.my_hand))] + ([Discard()] if may_discard else [])
        bar = self.change(obs, card, usual, e)[0]
        # Candidates: those that set up a sure snap and save points on paper; the rollouts judge the race for it.
        options = [a for a, (saved, snaps) in ((a, self.change(obs, card, a, e)) for a in options)
                   if a != usual and snaps and saved < bar]
        if not options:
            return default
        best = self.best_of(obs, [usual] + options, self.fate_rollouts, e, usual)
        return best.positions[0] if isinstance(best, Exchange) else None

    def change(self, obs: Observation, card: Card, action: Action, e: float) -> tuple[float, bool]:
        """Our total's change on paper if we take ``action`` and snap the sure match it leaves; and whether there is one."""
        mine = self.values(obs, obs.seat, e)
        out, delta, free = card.value, 0.0, -1
        if isinstance(action, Exchange):
            free = action.positions[0]
            out, delta, mine[free] = obs.my_hand[free].value, (card.value or 0) - mine[free], float(card.value or 0)
        twins = [(s, p) for s, hand in enumerate(obs.hands) for p, c in enumerate(hand)
                 if out is not None and c.value == out and not obs.face_up[s][p] and (s, p) != (obs.seat, free)]
        if not twins:
            return delta, False
        # our own twin leaves the hand; or theirs leaves, and we give them our worst card
        return delta - (float(out or 0) if any(s == obs.seat for s, _ in twins) else max(mine, default=0.0)), True

    def best_of(self, obs: Observation, actions: list[Action], rollouts: int, e: float, default: Action) -> Action:
        """The action that plays out best on the same guessed worlds; ``default`` unless another beats it clearly."""
        results: list[list[float]] = [[] for _ in actions]
        if obs.n_players > 4:  # longer rollouts at a big table: fewer of them, to stay well under 50 ms a decision
            rollouts = rollouts * 4 // obs.n_players
        for _ in range(rollouts):
            world = self.guess(obs)
            if world is None:
                return default
            for row, action in zip(results, actions):
                row.append(self.playout(obs, world, action, e))
        base = results[actions.index(default)]
        best, best_score = default, 0.0
        for action, row in zip(actions, results):
            gains = [a - b for a, b in zip(row, base)]
            mean = sum(gains) / len(gains)
            spread = math.sqrt(sum((g - mean) ** 2 for g in gains) / max(len(gains) - 1, 1) / len(gains))
            if mean > self.confidence * spread and mean > best_score:  # clear gains only: noise does not overrule
                best, best_score = action, mean
        return best

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
        # Opponents kept their good cards: tilt theirs low, as measured in counting-bot games (docs/bots.md).
        values = [worth(c, 0.0) for c in hidden]
        mean = sum(values) / len(values) if values else 0.0
        spread = sum((v - mean) ** 2 for v in values) / len(values) if values else 1.0
        # A card they have seen is drawn about known_shift lower; without the events, all of theirs a little lower.
        looked = their_knowledge(obs)
        tilt = min(0.4 + 0.45 * (obs.turn // obs.n_players), 2.4) / max(spread, 1.0)
        seen_tilt = self.known_shift / max(spread, 1.0)
        hands: list[list[Card]] = []
        for s, hand in enumerate(obs.hands):
            row = []
            for p, c in enumerate(hand):
                if c.known:
                    row.append(c)
                    continue
                lean = 0.0 if s == obs.seat else tilt if looked is None else seen_tilt if looked[s][p] else 0.0
                weights = [math.exp(-lean * worth(h, 0.0)) for h in hidden]
                row.append(hidden.pop(self.random.choices(range(len(hidden)), weights)[0]))
            hands.append(row)
        return {"hands": hands, "discard": list(obs.discard), "deck": hidden}

    def playout(self, obs: Observation, layout: dict, first: Action, e: float) -> float:
        """Play one guessed world to the end of the round, our ``first`` action taken (``Pass``: no call); our chance of winning."""
        me, n = obs.seat, obs.n_players
        self.me = me
        current, caller = obs.current, obs.caller
        if obs.phase == "end_turn":  # our turn is over: the call is all that is left of it
            current, caller = (me + 1) % n, (me if first == CallCabo() else None)
        known = [[(s, p) for p in range(len(h))] for s, h in enumerate(layout["hands"])]
        known[me] = [(s, p) for s, h in enumerate(obs.hands) for p, c in enumerate(h) if c.known]
        game = Game.from_layout(
            obs.rules, layout["hands"], layout["discard"], layout["deck"], seed=obs.round, current=current,
            start_player=obs.start_player, scores=obs.scores, round=obs.round, turn=obs.turn, caller=caller,
            face_up=obs.face_up, known=known, drawn=obs.drawn if obs.phase == "drawn" else None, drawn_from=obs.drawn_from or "deck",
        )
        if obs.phase in ("choose", "drawn") and first != Pass():
            game.apply(first, me)
        call = first == CallCabo()
        start, no_call = game.turn, obs.phase == "choose" and not call  # without the call, our turn goes on
        while not game.results:
            seat = game.to_move[0]
            if game.phase == "snap":
                for s in game.to_move:
                    game.apply_unchecked(self.sure_snap(game.observation(s)), s)
                continue
            view = game.observation(seat)
            late = game.turn - start > self.max_rollout_turns
            may_call = not (no_call and seat == me)
            game.apply_unchecked(self.fast_policy(view, view.legal_actions, e, late, may_call), seat)
            no_call = no_call and not (seat == me and game.phase != "choose")
        return self.win_chance(obs, game, me)

    def win_chance(self, obs: Observation, game: Game, me: int) -> float:
        """Our chance of winning the game after this round: exact if it ended, else a soft guess."""
        if game.sheet.game_over:
            winners = game.sheet.winners
            return 1.0 / len(winners) if me in winners else 0.0
        totals = game.results[-1].game_totals
        rounds_left = max(obs.rules.end_score - max(totals), 0) / 10.0 + 0.5
        scale = 6.0 * math.sqrt(rounds_left)
        low = min(totals)
        weights = [math.exp(-(t - low) / scale) for t in totals]
        return weights[me] / sum(weights)

    def sure_snap(self, obs: Observation) -> Action:
        """A rollout player snaps a card it knows matches the top (its own first), as the counting bot does."""
        top = obs.top
        if top is not None:
            for s in [obs.seat] + list(obs.opponents):
                for p, c in enumerate(obs.hands[s]):
                    if c.value == top.value and not obs.face_up[s][p]:
                        return Snap(s, p)
        return Pass()

    def fast_policy(self, obs: Observation, legal: Sequence[Action], e: float, late: bool, may_call: bool) -> Action:
        """The counting bot's rules in a cheap form: unknown cards are worth ``e``, the root's average."""
        me, rules, phase = obs.seat, obs.rules, obs.phase
        mine = [e if c.value is None else float(c.value) for c in obs.my_hand]
        if phase in ("choose", "end_turn"):
            if may_call and CallCabo() in legal:
                rival_card = max(e - self.improve_rate * (obs.turn // obs.n_players), 3.0)
                rivals = min(sum(rival_card if c.value is None else c.value for c in obs.hands[s]) for s in obs.opponents)
                margin = self.margin + self.margin_per_penalty * rules.caller_loss_penalty
                if late or (sum(mine) <= self.cabo_cap and sum(mine) + margin <= rivals):
                    return CallCabo()
            if phase == "end_turn":
                return Pass()
            top = obs.top
            if mine and top is not None and top.value is not None and top.value <= 5 and DrawDiscard() in legal:
                worst = max(e + self.info_bonus if c.value is None else c.value for c in obs.my_hand)
                if worst - top.value >= self.take_gain + (2 if rules.snapping else 0):
                    return DrawDiscard()
            return DrawDeck() if DrawDeck() in legal else legal[0]
        if phase == "drawn" and obs.drawn is not None and obs.drawn.value is not None:
            card = obs.drawn.value
            bonus = 0.0 if self.last_turn_sense and obs.caller is not None and me == self.me else self.info_bonus
            scores = [e + bonus if c.value is None else c.value for c in obs.my_hand]
            if scores:
                worst = max(range(len(scores)), key=scores.__getitem__)
                has_power = obs.drawn_from == "deck" and rules.power_of(obs.drawn) is not None
                if Discard() not in legal or scores[worst] - card > (1.5 if has_power else 0.0):
                    return Exchange((worst,))
            return Discard() if Discard() in legal else legal[0]
        if phase == "power" and obs.power in ("peek", "peek_swap"):
            unknown = [p for p, c in enumerate(obs.my_hand) if c.value is None]
            return Peek(unknown[0]) if unknown and Peek(unknown[0]) in legal else Pass()
        if phase in ("power", "swap") and obs.power in ("swap", "peek_swap", "spy_swap") and mine:
            own = max(range(len(mine)), key=mine.__getitem__)
            targets = [obs.target] if obs.target is not None else [(s, p) for s in obs.opponents for p in range(len(obs.hands[s]))]
            value = {t: worth(obs.hands[t[0]][t[1]], e) for t in targets}
            best = min(targets, key=value.__getitem__, default=None)
            if best is not None and mine[own] - value[best] > 1.5 and Swap(own, *best) in legal:
                return Swap(own, *best)
        if phase == "give" and mine:
            worst = max(range(len(mine)), key=mine.__getitem__)
            if Give(worst) in legal:
                return Give(worst)
        return Pass() if Pass() in legal else legal[0]
