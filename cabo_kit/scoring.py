"""Scoring: a round's scores from the final hands, and the scorepad across rounds.

>>> from cabo_kit import Rules, Card
>>> rules = Rules.preset("deluxe")
>>> hands = [[Card.parse(v) for v in h] for h in ([1, 2], [5, 5], [0, 13])]
>>> score_round(rules, hands, caller=0, ended_by="cabo")
[0, 10, 13]
>>> score_round(rules, hands, caller=1, ended_by="cabo")
[3, 20, 13]
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter
from typing import Sequence

from .cards import Card
from .rules import Rules

__all__ = ["score_round", "round_details", "RoundScoring", "ScoreSheet", "ScoreSheetError", "next_start_player", "ENDED_BY"]

_VALUE = attrgetter("value")

_NO_TOTAL = float("-inf")  # the highest total of a sheet without players: it ends no game

ENDED_BY = ("cabo", "deck", "empty_hand", "turn_limit")
"""The ways a round can end."""


class ScoreSheetError(ValueError):
    """A score sheet was used wrongly (a round added after the game ended, a wrong length)."""


@dataclass(frozen=True)
class RoundScoring:
    """What :func:`round_details` found: the scores and the facts behind them."""

    totals: tuple[int, ...]
    scores: tuple[int, ...]
    caller: int | None
    caller_won: bool | None
    kamikaze: tuple[int, ...]
    royal_roulette: tuple[int, ...]


def _is_kamikaze(hand: Sequence[Card]) -> bool:
    if len(hand) != 4 or hand[0].value not in (12, 13):  # the usual answer, without sorting
        return False
    return sorted(c.value for c in hand) == [12, 12, 13, 13]  # type: ignore[type-var]


def _is_royal_roulette(hand: Sequence[Card]) -> bool:
    if len(hand) != 4:
        return False
    black_kings = {c.text for c in hand if c.rank == "K" and c.suit in ("S", "C")}
    queens = sum(1 for c in hand if c.rank == "Q")
    return black_kings == {"KS", "KC"} and queens == 2


def round_details(rules: Rules, hands: Sequence[Sequence[Card]], caller: int | None, ended_by: str) -> RoundScoring:
    """Score a round as ``docs/rules.md`` says ("The end of a round" and the presets' table), and say why.

    ``hands`` are the final hands by seat, ``caller`` the seat that called Cabo (or
    ``None``), ``ended_by`` one of :data:`ENDED_BY`.

    >>> from cabo_kit import Rules, Card
    >>> kami = [Card.parse(v) for v in (12, 12, 13, 13)]
    >>> d = round_details(Rules.preset("deluxe"), [kami, [Card.parse("1")]], caller=1, ended_by="cabo")
    >>> d.scores, d.kamikaze
    ((0, 50), (0,))
    """
    if ended_by not in ENDED_BY:
        raise ValueError(f"ended_by={ended_by!r} is not one of {', '.join(map(repr, ENDED_BY))}")
    n = len(hands)
    if caller is not None and not 0 <= caller < n:
        raise ValueError(f"caller={caller!r} is not a seat of a {n}-player table")
    totals, scores, caller_won, kamikaze, royal_roulette = _round_facts(rules, hands, caller, ended_by)
    return RoundScoring(totals, scores, caller, caller_won, kamikaze, royal_roulette)


def _round_facts(rules: Rules, hands: Sequence[Sequence[Card]], caller: int | None,
                 ended_by: str) -> tuple[tuple[int, ...], tuple[int, ...], bool | None, tuple[int, ...], tuple[int, ...]]:
    """:func:`round_details`' facts as a plain tuple ``(totals, scores, caller_won, kamikaze, royal_roulette)``,
    its arguments taken as valid: the engine's way at every round's end (no dataclass to build).

    >>> from cabo_kit import Rules, Card
    >>> _round_facts(Rules.preset("deluxe"), [[Card.parse("1"), Card.parse("2")], [Card.parse("9")]], 0, "cabo")
    ((3, 9), (0, 9), True, (), ())
    """
    sums: list[int] = []
    for hand in hands:  # (a loop, not a comprehension: no function and frame made)
        sums.append(sum(map(_VALUE, hand)))
    totals = tuple(sums)
    kamis: tuple[int, ...] = ()
    if rules.kamikaze and 50 in totals:  # a Kamikaze hand (12, 12, 13, 13) adds up to 50
        kamis = tuple(s for s, hand in enumerate(hands) if _is_kamikaze(hand))
        if kamis:
            return totals, tuple(0 if s in kamis else 50 for s in range(len(hands))), None, kamis, ()
    roulettes: tuple[int, ...] = ()
    if rules.royal_roulette:
        roulettes = tuple(s for s, hand in enumerate(hands) if _is_royal_roulette(hand))
    if caller is None:
        if not roulettes:
            return totals, totals, None, kamis, roulettes
        scores_list = list(totals)
        caller_won: bool | None = None
    else:
        scores_list = list(totals)
        own = totals[caller]
        # Lowest alone, or tied when ties go to the caller (no list of the others made)
        caller_won = own == min(totals) and (rules.ties_to_caller or totals.count(own) == 1)
        if caller_won:
            bonus = rules.caller_win_bonus
            if ended_by == "empty_hand" and not rules.caller_bonus_on_empty_hand:
                scores_list[caller] = own
            else:
                scores_list[caller] = (own if rules.caller_win_keeps_total else 0) + bonus
        else:
            scores_list[caller] = own + rules.caller_loss_penalty
    for s in roulettes:
        scores_list[s] = -50
    return totals, tuple(scores_list), caller_won, kamis, roulettes


def score_round(rules: Rules, hands: Sequence[Sequence[Card]], caller: int | None, ended_by: str) -> list[int]:
    """The round scores by seat (``docs/rules.md``, "The end of a round"); see :func:`round_details` for the reasons.

    >>> from cabo_kit import Rules, Card
    >>> hands = [[Card.parse("KS"), Card.parse("KC"), Card.parse("QD"), Card.parse("QH")], [Card.parse("5S")]]
    >>> score_round(Rules.preset("traveller"), hands, caller=1, ended_by="cabo")
    [-50, 0]
    """
    return list(round_details(rules, hands, caller, ended_by).scores)


def next_start_player(
    rules: Rules,
    round_scores: Sequence[int],
    previous_start: int,
    caller: int | None = None,
    caller_won: bool | None = None,
) -> int:
    """The next round's start player: ``docs/rules.md``, the presets' table and "Decided by cabo-kit: where the rule
    texts are silent or disagree", point 3.

    The lowest round score starts (rush: a winning caller first). Ties go to the first
    tied player found clockwise from the previous start player's left neighbour, the
    previous start player being checked last.

    >>> from cabo_kit import Rules
    >>> next_start_player(Rules.preset("deluxe"), [3, 9, 3, 3], previous_start=2)
    3
    >>> next_start_player(Rules.preset("deluxe"), [3, 9, 3, 5], previous_start=2)
    0
    """
    n = len(round_scores)
    if rules.next_start == "winning_caller" and caller is not None and caller_won:
        return caller
    low = min(round_scores)
    seat = previous_start % n
    for _ in round_scores:  # n steps round the table (no range made)
        seat = seat + 1 if seat + 1 < n else 0
        if round_scores[seat] == low:
            return seat
    raise AssertionError("unreachable")  # pragma: no cover


class ScoreSheet:
    """The scorepad: game totals, the reset at exactly 100, the game end and its winners.

    >>> from cabo_kit import Rules
    >>> sheet = ScoreSheet(Rules.preset("deluxe"), 2)
    >>> sheet.add_round([60, 10]); sheet.add_round([40, 5])
    >>> sheet.totals, sheet.resets            # 100 exactly became 50
    ([50, 15], [True, False])
    >>> sheet.add_round([51, 0]); sheet.game_over, sheet.winners
    (True, [1])
    >>> sheet
    ScoreSheet('deluxe', rounds=3, totals=[101, 15], game over, winners [1])
    """

    def __init__(self, rules: Rules, n_players: int) -> None:
        self.rules = rules
        self.n_players = n_players
        self.rounds: list[list[int]] = []
        self.totals: list[int] = [0] * n_players
        self.resets: list[bool] = [False] * n_players
        self.hit_100: list[int] = [0] * n_players
        self.reset_rounds: list[list[int]] = []
        self.game_over = False

    def __repr__(self) -> str:
        state = f"game over, winners {self.winners}" if self.game_over else "in play"
        return f"ScoreSheet({self.rules.name!r}, rounds={len(self.rounds)}, totals={self.totals}, {state})"

    def add_round(self, scores: Sequence[int]) -> None:
        """Write one round's scores, apply the reset, and check the end of the game."""
        if self.game_over:
            raise ScoreSheetError("the game is over: no more rounds can be added")
        if len(scores) != self.n_players:
            raise ScoreSheetError(f"a round needs {self.n_players} scores, got {len(scores)}")
        rules = self.rules
        self.rounds.append([*scores])  # ([*x]: a list built without a call)
        totals, hit_100 = self.totals, self.hit_100
        resets_now: list[int] = []
        second_100 = False
        s = -1
        for score in scores:  # (no enumerate made)
            s += 1
            total = totals[s] = totals[s] + score
            if total == 100:
                hit_100[s] += 1
                if hit_100[s] >= 2:
                    second_100 = True
                if rules.reset_at_100 and not self.resets[s]:
                    totals[s] = 50
                    self.resets[s] = True
                    resets_now.append(s)
        self.reset_rounds.append(resets_now)
        top = max(totals) if totals else _NO_TOTAL  # (max's keyword argument is parsed slowly)
        ended = top > rules.end_score if rules.game_end == "over" else top >= rules.end_score
        if rules.second_exact_100_ends and second_100:
            ended = True
        if len(self.rounds) >= rules.max_rounds:
            ended = True
        self.game_over = ended

    @property
    def winners(self) -> list[int]:
        """The winning seats once the game is over (several on a shared win), else ``[]``."""
        if not self.game_over:
            return []
        low = min(self.totals)
        tied = [s for s, t in enumerate(self.totals) if t == low]
        if len(tied) > 1:
            last = self.rounds[-1]
            best = min(last[s] for s in tied)
            tied = [s for s in tied if last[s] == best]
        return tied

    def ranking(self) -> list[int]:
        """Each seat's final place, 1 for the best, shared places for full ties (tie-break by the last round).

        >>> from cabo_kit import Rules
        >>> sheet = ScoreSheet(Rules.preset("deluxe"), 3)
        >>> sheet.add_round([101, 20, 20]); sheet.ranking()
        [3, 1, 1]
        """
        last = self.rounds[-1] if self.rounds else [0] * self.n_players
        keys = [(self.totals[s], last[s]) for s in range(self.n_players)]
        return [1 + sum(1 for k in keys if k < keys[s]) for s in range(self.n_players)]
