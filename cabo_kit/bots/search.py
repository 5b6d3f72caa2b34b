"""SearchBot: guesses the hidden cards many times, plays each guess forward, and picks what worked best."""

from __future__ import annotations

import math
import random
from bisect import bisect_left
from typing import Any, Sequence

from ..actions import Action, Discard, Exchange, Pass, Swap
from ..cards import Card
from ..game import Game
from ..observation import Observation, Phase
from ..rules import Power, Rules
from ..scoring import ScoreSheet
from .counting import CountingBot, equal_groups, unseen_cards
from .inference import Evidence, read_events
from .sightings import their_knowledge, who_saw
from .rollout import roll_out

__all__ = ["SearchBot", "Sharpened"]


class Sharpened(CountingBot):
    """The counting bot, sharpened: the search bot's rules where it does not search, and its model of itself.

    A card an opponent has seen (the events say where they looked, never what they saw) counts
    ``known_shift`` points under the unseen average, and with snapping knowing a card is worth
    more (:meth:`adapt`). In a rollout (``world`` set: a world of the search) who has seen
    which card is read from the world itself, where every seat knows what the guess says.
    That reads the world's ``know``, an engine internal not meant for bots (docs/engine.md):
    the one exception, as the world is the bot's own game, built from its own observation
    and its own guesses (nothing of the real game is in it).
    """

    improve_rate = 0.5  # opponents' unseen cards are assumed to improve twice as fast as the counting bot assumes
    known_shift = 2.1  # an opponent's card they have seen (we have not) is worth this much less than the unseen average
    bounded_lean = 0.5  # how much of that lean a card under a limit keeps (adapt)

    def __init__(self) -> None:
        super().__init__()
        self.knowledge_for: Observation | None = None
        self.knowledge: list[list[bool]] | None = None
        self.world: Game | None = None  # in a rollout: the world being played

    def adapt(self, rules: Rules) -> None:
        """The counting bot's numbers, retuned for the rules (measured in docs/bots.md).

        With snapping a known card is worth more than its expected points: it can be snapped
        when its twin lands on the pile, and a known pair sets up a snap. So the bonus for
        replacing an unknown card (knowing what lies there) grows from 3 points to 5
        (traveller: Cabo at the end of a turn) or 7 (rush: Cabo instead of a turn). A guessed card
        under a limit the events set leans low by half the usual amount, a quarter with snapping
        (where the limits and ruled-out values already say more): that guessed the opponents'
        totals best in counting-bot games (seeds 31000+).
        """
        self.info_bonus = 3.0 if not rules.snapping else (7.0 if rules.cabo_timing == "instead" else 5.0)
        self.bounded_lean = 0.25 if rules.snapping else 0.5

    def holders_knowledge(self, obs: Observation) -> list[list[bool]] | None:
        """For each seat and position, whether that seat has seen its own card there (``None``: not known)."""
        world = self.world
        if world is None:
            return their_knowledge(obs)
        know = world.know
        return [[seen[c].known for c in hand] for seen, hand in zip(know.seen, know.hands)]

    def estimates(self, obs: Observation, seat: int, e: float, ahead: bool = False) -> list[float]:
        """Our estimate of each of ``seat``'s cards: its value if we know it, lower if they have seen it.

        Now and by the round's end alike (a card they have seen leans low already), so the
        counting bot's threat and swap aim at the cards an opponent has seen. Without the
        events (``None`` from :meth:`holders_knowledge`) the counting bot's estimate ahead.
        """
        if self.knowledge_for is not obs:
            self.knowledge_for, self.knowledge = obs, self.holders_knowledge(obs)
        seen = self.knowledge
        if seen is None:
            return super().estimates(obs, seat, e, ahead=True)
        return [float(c.value) if c.value is not None else e - self.known_shift if seen[seat][p] else e
                for p, c in enumerate(obs.hands[seat])]


class SearchBot(Sharpened):
    """Determinized Monte Carlo search over every real decision, on top of a sharper counting bot.

    The idea, in plain words:

    1. **Guess the hidden cards.** The unseen cards are the full deck minus every card this
       seat can see. Deal them into the ``??`` places and the deck: one *world* that agrees
       with everything we know. The events also say what the opponents *did*, and a player who
       keeps cards by their points does things for reasons (``inference.py``): a card kept in
       place of a 6 is below 6; a player who discarded a drawn 4 knew no card above 4; one who
       did not call Cabo did not think their hand low. The worlds are dealt to agree.
    2. **Know what everyone knows.** In each world every player knows exactly the cards they
       have seen (the events say which), no more: nobody plays with the guessed cards in view.
    3. **Play each candidate forward** to the end of the round with the engine itself (a
       world is a :class:`~cabo_kit.Game` built by ``Game.from_layout(..., rollout=True)``, so
       every variant of the rules plays as in the real game), every player following the
       counting bot's rules (``rollout.py``). The candidates: draw, take or call Cabo; discard
       the drawn card or put it in each place; each sensible swap; at the end of a traveller
       turn, call or not.
    4. **Score the end, not the round.** A finished round is worth our chance of winning the
       game from the new totals: a sure win or loss if the game ends, else a soft guess that
       sharpens as the end comes near.
    5. **Compare on the same worlds** (luck cancels out), dropping a candidate as soon as it
       trails clearly, so the budget goes to close calls. The counting bot's choice stands
       unless another beats it by two standard errors: a few dozen worlds cannot see small
       differences, and acting on noise loses more than the small differences win.

    Where nothing is worth searching (a snap, a give, a peek, an obvious choice) it plays the
    counting bot's rules, sharpened (:class:`Sharpened`): an opponent's card they have seen
    counts about 2 points under the average, and with snapping knowing a card is worth more.

    The budget counts simulated decisions, not seconds, so a seed gives the same game on any
    machine (``budget`` per searched decision; docs/bots.md has the ms).

    >>> import cabo_kit as ck
    >>> rec = ck.play_game([SearchBot(), ck.bots.RandomBot()], ck.Rules.preset("deluxe"), seed=2)
    >>> rec.winners
    [0]
    """

    budget = 2000  # simulated decisions per searched decision, 4/n of it at 5 or 6 players
    batch = 4  # worlds between two looks at the race
    prune = 2.0  # drop a candidate trailing the leader by this many standard errors
    confidence = 2.0  # overrule the counting bot only when the gain is this many standard errors from 0
    late_after = 30  # rollout turns; then everyone calls Cabo (a bounded cost)

    def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        self.adapt(observation.rules)
        default = super().choose(observation, legal_actions)
        if observation.memory != "engine":
            return default
        candidates = self.candidates(observation, legal_actions, default)
        if len(candidates) < 2:
            return default
        return self.search(observation, candidates, default)
    # ---- what to search ------------------------------------------------------------------

    def candidates(self, obs: Observation, legal: Sequence[Action], default: Action) -> list[Action]:
        """The actions worth comparing here (the default among them), or fewer than two: no search."""
        phase = obs.phase
        if phase == Phase.CHOOSE or phase == Phase.END_TURN:
            return list(legal)
        if phase == Phase.DRAWN:
            return self.keep_candidates(obs, legal, default)
        if (phase == Phase.POWER and obs.power == Power.SWAP) or phase == Phase.SWAP:
            return self.swap_candidates(obs, legal, default)
        return []

    def keep_candidates(self, obs: Observation, legal: Sequence[Action], default: Action) -> list[Action]:
        """Discard, and one exchange per kind of own card (cards alike to us and to the others are alike)."""
        seen = who_saw(obs)
        hand = obs.my_hand
        out: list[Action] = [default]
        if Discard() in legal and default != Discard():
            out.append(Discard())
        kinds = set()
        if isinstance(default, Exchange) and len(default.positions) == 1:
            kinds.add(self.kind_of(obs, seen, default.positions[0]))
        for p in range(len(hand)):
            kind = self.kind_of(obs, seen, p)
            if kind not in kinds:
                kinds.add(kind)
                out.append(Exchange((p,)))
        if obs.rules.multi_exchange:
            for ps in equal_groups(hand):
                if Exchange(ps) != default:
                    out.append(Exchange(ps))
        return [a for a in out if a in legal]

    @staticmethod
    def kind_of(obs: Observation, seen: list[list[int]] | None, p: int) -> tuple:
        card = obs.my_hand[p]
        return (card.value, obs.face_up[obs.seat][p], seen[obs.seat][p] if seen is not None else 0)

    def swap_candidates(self, obs: Observation, legal: Sequence[Action], default: Action) -> list[Action]:
        """No swap, and our worst cards for each opponent's most likely low cards."""
        e = self.mean_unseen(obs)
        mine = self.values(obs, obs.seat, e)
        special = self.special_keep(obs)
        own = sorted((p for p in range(len(mine)) if p not in special), key=lambda p: -mine[p])[:2]
        targets = [obs.target] if obs.target is not None else [
            (s, p) for s in obs.opponents for p in range(len(obs.hands[s]))]
        ranked = sorted(((mine[o] - self.estimates(obs, s, e)[p], o, s, p) for o in own for s, p in targets),
                        key=lambda t: -t[0])
        out: list[Action] = [default] + ([Pass()] if default != Pass() else [])
        for _, o, s, p in ranked[:4]:
            if Swap(o, s, p) not in out:
                out.append(Swap(o, s, p))
        return [a for a in out if a in legal]

    # ---- the search ------------------------------------------------------------------------

    def search(self, obs: Observation, candidates: list[Action], default: Action) -> Action:
        """The candidate that plays out best on the same guessed worlds; ``default`` unless another beats it clearly."""
        dealer = WorldDealer(obs, read_events(obs), self.known_shift, self.bounded_lean)
        if not dealer.ok:
            return default
        me = obs.seat
        model = self.model(obs.rules)
        players: list[CountingBot] = [model if s == me else CountingBot() for s in range(obs.n_players)]
        alive = list(range(len(candidates)))
        results: list[list[float]] = [[] for _ in candidates]
        budget = self.budget * min(1.0, 4 / obs.n_players)  # longer rollouts at a big table: fewer of them
        spent, worlds, per_rollout = 0, 0, 0.0
        # Stop before a world that would overrun the budget (rollouts of one world all run: same luck for all).
        while len(alive) > 1 and spent + len(alive) * per_rollout < budget:
            world, tries = dealer.deal(self.random, self.random.getrandbits(32))
            spent += 8 * tries  # dealing a world costs about as much as eight simulated decisions
            for i in alive:
                game = world.clone()
                game.apply_unchecked(candidates[i], me)
                model.world = game
                steps = roll_out(game, players, self.late_after) + 3  # and copying and scoring it, three
                spent += steps
                per_rollout = max(per_rollout, float(steps))
                results[i].append(outcome(game, me))
            worlds += 1
            if worlds % self.batch == 0:
                alive = self.cut(alive, results)
        base = candidates.index(default)
        best = max(alive, key=lambda i: sum(results[i]) / len(results[i]))
        if base not in alive:
            return candidates[best]
        gain, spread = paired(results[best], results[base])
        return candidates[best] if gain > self.confidence * spread and gain > 0 else default

    def cut(self, alive: list[int], results: list[list[float]]) -> list[int]:
        """The candidates still in the race: those not clearly behind the leader."""
        leader = max(alive, key=lambda i: sum(results[i]))
        keep = []
        for i in alive:
            gain, spread = paired(results[leader], results[i])
            if i == leader or gain <= self.prune * spread:
                keep.append(i)
        return keep

    def model(self, rules: Rules) -> Sharpened:
        """How we play in our own rollouts: the sharpened counting bot, with our numbers."""
        me = Sharpened()
        me.adapt(rules)
        me.improve_rate, me.known_shift = self.improve_rate, self.known_shift
        return me


def paired(a: list[float], b: list[float]) -> tuple[float, float]:
    """The mean of ``a - b`` world by world, and its standard error."""
    diffs = [x - y for x, y in zip(a, b)]
    k = len(diffs)
    mean = sum(diffs) / k
    var = sum((d - mean) ** 2 for d in diffs) / max(k - 1, 1)
    return mean, math.sqrt(var / k)


def outcome(game: Game, me: int) -> float:
    """Our chance of winning the game after a world's round: exact if the game ended, else a soft guess.

    The soft guess weighs each player by ``exp(-total / scale)``; the scale shrinks as the end
    comes near (about 10 points a round), so a lead counts for more late in the game.
    """
    sheet = game.sheet
    if sheet.game_over:
        winners = sheet.winners
        return 1.0 / len(winners) if me in winners else 0.0
    totals = sheet.totals
    rounds_left = max(game.rules.end_score - max(totals), 0) / 10.0 + 0.5
    scale = 6.0 * math.sqrt(rounds_left)
    low = min(totals)
    weights = [math.exp(-(t - low) / scale) for t in totals]
    return weights[me] / sum(weights)


class WorldDealer:
    """Deals the search's worlds (guesses of the hidden cards), from what one observation fixes about every
    world: which places hold which known cards, and who saw what.

    :meth:`deal` fills the rest (the ``??`` places and the deck) from the unseen cards, so that
    the guesses agree with what the events say (``inference.py``): a card is dealt below its
    limit, and the sums a player's choices imply hold (a few tries, then the closest guess).
    Without that evidence, a card an opponent has seen is dealt lower (by about ``known_shift``).
    A world is a game of the engine, built from this observation alone with ``Game.from_layout``
    (``rollout=True``): the same moment of the round (phase, Cabo caller, an emptied hand's final
    turns, a deck run out), every seat knowing the cards the events say it saw.
    """

    tries = 4  # deals per world, looking for one that agrees with every sum rule

    def __init__(self, obs: Observation, evidence: Evidence | None, known_shift: float, bounded_lean: float = 0.5) -> None:
        self.missed = 0
        n, me = obs.n_players, obs.seat
        rules = obs.rules
        self.rules = rules
        drawn = obs.drawn if obs.phase == Phase.DRAWN else None  # (a searched phase: only DRAWN holds one)
        unseen, fits = unseen_cards(obs)
        self.ok = fits and (drawn is None or drawn.known)  # else the observation is not consistent with one deck
        if not self.ok:
            return
        self.pool = sorted(c.value for c in unseen if c.value is not None)
        # The unseen cards by value: a guessed value is dealt as one of them (suits matter to Royal Roulette).
        self.faces: dict[int, list[Card]] = {}
        for card in unseen:
            self.faces.setdefault(card.value, []).append(card)  # type: ignore[arg-type]
        self.mixed = [v for v, cards in self.faces.items() if len(set(cards)) > 1]
        holes = sum(1 for hand in obs.hands for c in hand if not c.known)
        if len(self.pool) != holes + obs.deck_size or len(self.pool) != len(unseen):
            self.ok = False
            return
        seen = who_saw(obs)
        # Card numbers: the hands, then the deck.
        value: list[int] = []
        self.hands: list[list[int]] = []
        self.known_cards: list[Card | None] = []  # by card number: the card if we see it
        # Unknown places the events bound: (limit, -values ruled out, card, values ruled out as bits, dealt lower).
        self.limited: list[tuple[float, int, int, int, bool]] = []
        self.lean: list[int] = []  # unknown places an opponent has seen (dealt lower)
        self.plain: list[int] = []  # other unknown places
        known: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        number: dict[int, int] = {}  # the evidence's card number -> ours
        for s, hand in enumerate(obs.hands):
            row = []
            for p, card in enumerate(hand):
                c = len(value)
                row.append(c)
                value.append(card.value if card.value is not None else 0)
                self.known_cards.append(card if card.known else None)
                mask = seen[s][p] if seen is not None else 0
                for t in range(n):
                    if mask >> t & 1 or (t == me and card.known):
                        known[t].append((s, p))
                limit, ruled_out = math.inf, 0
                if evidence is not None:
                    number[evidence.cards[s][p]] = c
                    limit = evidence.limit.get(evidence.cards[s][p], math.inf)
                    ruled_out = evidence.not_values.get(evidence.cards[s][p], 0)
                lean = s != me and bool(mask >> s & 1 or seen is None)
                if card.known:
                    pass
                elif limit < math.inf or ruled_out:
                    self.limited.append((limit, -bin(ruled_out).count("1"), c, ruled_out, lean))
                elif lean:
                    self.lean.append(c)
                else:
                    self.plain.append(c)
            self.hands.append(row)
        self.limited.sort()
        self.deck = list(range(len(value), len(value) + obs.deck_size))
        value += [0] * obs.deck_size
        self.value = value
        # The sum rules, in our card numbers: (cards, points fixed by known faces, line, above).
        self.sums: list[tuple[list[int], float, float, bool]] = []
        if evidence is not None:
            for rule in evidence.sums:
                fixed = rule.fixed + sum(evidence.face[c] if c in evidence.face else 0.0 if c in number else 6.5
                                         for c in rule.cards)
                cards = [number[c] for c in rule.cards if c not in evidence.face and c in number]
                if cards:
                    self.sums.append((cards, fixed, rule.line, rule.above))
        values = self.pool
        mean = sum(values) / len(values) if values else 0.0
        spread = sum((v - mean) ** 2 for v in values) / len(values) if values else 1.0
        shift = known_shift if seen is not None else min(0.4 + 0.45 * (obs.turn // n), 2.4)
        tilt = shift / max(spread, 1.0)
        self.weight = {v: math.exp(-tilt * v) for v in set(values)}
        # Under a limit, a card its holder kept still leans low, less so: the limit says part of it.
        self.bounded_weight = {v: math.exp(-bounded_lean * tilt * v) for v in set(values)}
        self.discard = list(obs.discard)
        # The moment, for Game.from_layout: everything but the cards.
        if evidence is not None:
            last_turn, final_turns = evidence.last_turn, evidence.final_turns
        else:  # (a game built from a layout: the events do not cover the round)
            last_turn = obs.deck_size == 0 and rules.deck_out != "reshuffle"
            empty = rules.empty_hand == "final_turns" and any(not h for h in obs.hands)
            final_turns = n if empty else None
        sheet = ScoreSheet(rules, n)
        for scores in obs.round_scores:
            sheet.add_round(scores)
        history = sheet.totals == list(obs.scores)  # else a game built from a layout with its scores
        phase = obs.phase if obs.phase in (Phase.POWER, Phase.SWAP, Phase.END_TURN) else None
        self.moment: dict[str, Any] = dict(
            current=obs.current, start_player=obs.start_player, round=obs.round, turn=obs.turn, caller=obs.caller,
            face_up=obs.face_up, known=known, drawn=drawn, drawn_from=obs.drawn_from or "deck",
            round_scores=obs.round_scores if history else None, scores=None if history else obs.scores,
            phase=phase, power=obs.power if phase else None, target=obs.target if phase else None,
            last_turn=last_turn, final_turns=final_turns, rollout=True,
        )

    def deal(self, rng: random.Random, seed: int = 0) -> tuple[Game, int]:
        """One world (the unknown places and the deck dealt from the unseen cards), and the tries it took.

        ``seed`` draws the world's own luck (snap races, reshuffles): the same for every candidate.
        """
        best: list[int] | None = None
        best_misses = 1 << 30
        tries = 0
        while tries < self.tries:
            tries += 1
            value = self.guess(rng)
            misses = 0
            for cards, fixed, line, above in self.sums:
                total = fixed + sum(value[c] for c in cards)
                if (total > line) != above:
                    misses += 1
            if misses < best_misses:
                best, best_misses = value, misses
            if not misses:
                break
        assert best is not None
        if best_misses:
            self.missed += 1
            if self.missed >= 3:  # the rules do not fit this table (not counting players?): stop looking
                self.tries = 1
        faces = {v: list(cards) for v, cards in self.faces.items()}
        for v in self.mixed:
            rng.shuffle(faces[v])
        known = self.known_cards
        hands = [[known[c] or faces[best[c]].pop() for c in row] for row in self.hands]
        deck = [faces[best[c]].pop() for c in self.deck]
        world = Game.from_layout(self.rules, hands, self.discard, deck, seed=seed, **self.moment)
        return world, tries

    def guess(self, rng: random.Random) -> list[int]:
        """The card values of one guess: bounded cards first, then the ones opponents have seen (lower), then the rest."""
        pool = list(self.pool)  # sorted: the cards below a limit come first
        value = list(self.value)
        for limit, _, c, ruled_out, lean in self.limited:
            below = bisect_left(pool, limit)
            fits = [i for i in range(below) if not ruled_out >> (pool[i] + 1) & 1] if ruled_out else range(below)
            if not fits:
                fits = range(below) if below else range(1)
            if lean:
                weight = self.weight if limit == math.inf else self.bounded_weight
                i = rng.choices(fits, [weight[pool[i]] for i in fits])[0]
            else:
                i = fits[rng.randrange(len(fits))]
            value[c] = pool.pop(i)
        if self.lean:
            weights = [self.weight[v] for v in pool]
            for c in self.lean:
                i = rng.choices(range(len(pool)), weights)[0]
                value[c] = pool.pop(i)
                weights.pop(i)
        rng.shuffle(pool)
        for c, v in zip(self.plain + self.deck, pool):
            value[c] = v
        return value
