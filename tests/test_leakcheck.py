"""The leak checker over many seeded fuzz games, and proof that it catches planted leaks (RULES.md §7)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import cabo_kit as ck  # noqa: E402
from cabo_kit import UNKNOWN, Card, Event, Game, Observation  # noqa: E402
from cabo_kit.play import bot_random  # noqa: E402
from fuzzbot import BlindFuzzBot, FuzzBot  # noqa: E402
from leakcheck import CheckerOutOfSync, Knowledge, Watcher, event_leaks, gaps, knowledge, leaks  # noqa: E402

PRESETS = ("deluxe", "rush", "traveller")
GAMES_PER_PRESET = 10


def _play_watched(preset: str, seed: int, n: int, memory: str = "engine") -> tuple[list[str], int, int]:
    """Play a fuzz game checking every seat's observation after every action.

    Returns the problems found, the number of observations checked, and how many
    face-down cards the checker's pictures knew in all (so the check is not vacuous).
    """
    rules = ck.Rules.preset(preset)
    game = Game(rules, seed, n, memory=memory)
    bots = [FuzzBot() if memory == "engine" else BlindFuzzBot() for _ in range(n)]
    for seat, bot in enumerate(bots):
        bot.random = bot_random(seed, seat)
    watchers = [Watcher(s) for s in range(n)]
    problems: list[str] = []
    checked = 0
    known_face_down = 0
    while not game.is_over:
        for seat in game.to_move:
            obs = game.observation(seat)
            game.apply(bots[seat].choose(obs, obs.legal_actions), seat)
            step = len(game.history)
            for v, watcher in enumerate(watchers):
                view = game.observation(v)
                found = watcher.leaks(view) + watcher.gaps(view)
                problems.extend(f"{preset} seed={seed} n={n} step={step} seat={v}: {m}" for m in found)
                checked += 1
                if watcher.known is not None and memory == "engine":
                    known_face_down += sum(
                        1
                        for s, hand in enumerate(view.hands)
                        for p, c in enumerate(hand)
                        if c.known and not view.face_up[s][p]
                    )
    return problems, checked, known_face_down


@pytest.mark.parametrize("preset", PRESETS)
def test_no_leak_in_fuzz_games(preset: str) -> None:
    rules = ck.Rules.preset(preset)
    counts = range(rules.min_players, rules.max_players + 1)
    problems: list[str] = []
    checked = known = 0
    for i in range(GAMES_PER_PRESET):
        n = counts[i % len(counts)]
        found, c, k = _play_watched(preset, 1000 + i, n)
        problems += found
        checked += c
        known += k
    assert not problems, "\n".join(problems[:20])
    assert checked > 1000 and known > 500, (checked, known)


@pytest.mark.parametrize("preset", PRESETS)
def test_no_leak_with_memory_none(preset: str) -> None:
    rules = ck.Rules.preset(preset)
    problems, checked, _ = _play_watched(preset, 77, rules.min_players + 1, memory="none")
    assert not problems, "\n".join(problems[:20])
    assert checked > 100


# ---------------------------------------------------------------- planted leaks


def _deluxe_table() -> Game:
    """Deluxe, 3 players, seat 0 starts; every seat has looked at its positions 0 and 1.

    seat 0: 1 2 3 4; seat 1: 5 6 7 8; seat 2: 10 10 10 10; first discard 0; draws 9, 11.
    """
    game = Game(ck.Rules.preset("deluxe"), seed=5, n_players=3, start_player=0,
                deck="1 2 3 4  5 6 7 8  10 10 10 10  0  9 11")
    for seat in range(3):
        game.apply("look 0,1", seat=seat)
    return game


def _with_card(obs: Observation, seat: int, position: int, card: Card) -> Observation:
    hands = [list(h) for h in obs.hands]
    hands[seat][position] = card
    return obs._replace(hands=tuple(tuple(h) for h in hands))


def test_planted_spied_card_is_flagged() -> None:
    game = _deluxe_table()
    game.apply("deck")
    drawing = game.observation(1)
    assert drawing.drawn == UNKNOWN and not leaks(drawing)
    assert leaks(drawing._replace(drawn=Card.parse("9"))), "another seat shown the drawn card"
    game.apply("discard")
    game.apply("spy 1:2")
    spy_view = game.observation(0)
    assert spy_view.hands[1][2] == Card.parse("7") and not leaks(spy_view)
    for seat in (1, 2):  # the spied card's owner and a bystander only know that seat 0 spied
        view = game.observation(seat)
        assert view.hands[1][2] == UNKNOWN and not leaks(view)
        problems = leaks(_with_card(view, 1, 2, Card.parse("7")))
        assert problems == [f"seat {seat} is shown seat 1 position 2 as 7, but its events allow only ??"]
    # The same spy event with its face planted into a bystander's events is flagged too.
    bystander = game.observation(2)
    planted = tuple(e._replace(cards=(Card.parse("7"),)) if e.kind == "spy" else e for e in bystander.events)
    assert event_leaks(planted, 2) == ["seat 2's events show seat 0's spy: 7"]


def test_planted_face_of_a_kept_card_is_flagged() -> None:
    """Seat 0 keeps the 9 it drew: the others see the card that left, never the one kept."""
    game = _deluxe_table()
    game.apply("deck")
    game.apply("exchange 3")
    for seat in (1, 2):
        view = game.observation(seat)
        assert not leaks(view)
        events = tuple(
            e._replace(cards=(e.cards[0], Card.parse("9"))) if e.kind == "exchange" else e for e in view.events
        )
        assert leaks(view._replace(events=events)) == [f"seat {seat}'s events show the card seat 0 kept unseen: 9"]


def test_planted_blind_swap_value_is_flagged() -> None:
    game = _deluxe_table()
    for action in ("deck", "exchange 3"):  # seat 0 keeps the 9 in place of its 4
        game.apply(action)
    game.apply("deck")  # seat 1 draws the 11
    game.apply("discard")
    game.apply("swap 0 2:3")  # seat 1's known 5 goes blind to seat 2, seat 2's unseen 10 comes back
    swapper = game.observation(1)
    assert swapper.hands[2][3] == Card.parse("5") and swapper.hands[1][0] == UNKNOWN
    assert not leaks(swapper) and not gaps(swapper)
    receiver = game.observation(2)
    assert receiver.hands[2][3] == UNKNOWN and not leaks(receiver)
    assert leaks(_with_card(receiver, 2, 3, Card.parse("5"))), "a blind swap created knowledge for the receiver"
    # Seat 1 no longer knows its position 0: showing the old 5 there is stale knowledge, a leak of a kind too.
    assert leaks(_with_card(swapper, 1, 0, Card.parse("5")))
    # Seat 0's kept 9 was not part of the swap: seat 0 still knows it, and nobody else does.
    assert game.observation(0).hands[0][3] == Card.parse("9")
    assert leaks(_with_card(receiver, 0, 3, Card.parse("9")))


def test_planted_leaks_in_real_fuzz_observations() -> None:
    """Real fuzz games: each spied card, and each card a blind swap moved, planted into the view
    of every seat that never saw it at that moment, is flagged."""
    planted = {"spy": 0, "swap": 0}
    for preset in PRESETS:
        record = ck.play_game([FuzzBot() for _ in range(4)], ck.Rules.preset(preset), seed=21)
        game = record.new_game()
        for seat, action in record.actions:
            game.apply(action, seat)
            if type(action) is ck.Spy:
                slots = [(action.seat, action.position)]
            elif type(action) is ck.Swap:
                slots = [(action.seat, action.position), (seat, action.own)]
            else:
                continue
            truth = game.observation(seat)  # the actor's own picture after the move
            for ts, tp in slots:
                card = truth.hands[ts][tp]
                if not card.known:
                    continue
                for other in range(4):
                    view = game.observation(other)
                    if view.hands[ts][tp].known:
                        continue
                    assert leaks(_with_card(view, ts, tp, card)), (preset, other, action)
                    planted[type(action).__name__.lower()] += 1
    assert planted["spy"] >= 10 and planted["swap"] >= 5, planted


# ---------------------------------------------------------------- the checker's own rules


def _cards(text: str) -> tuple[Card, ...]:
    return tuple(Card.parse(c) for c in text.split())


def test_knowledge_follows_a_give_and_never_creates_it() -> None:
    events = [
        Event("round", None, (0, 0)),
        Event("look", 0, (0, 1), _cards("4 6")),
        Event("flip", None, (), _cards("6")),
        Event("snap", 0, (1, 2), _cards("6"), "match"),  # seat 0 snaps seat 1's card 2 ...
        Event("give", 0, (1, 1, 2)),                     # ... and gives its known 6 into the gap
    ]
    giver = knowledge(events, 0, 2, 4)
    assert giver.hands[0] == [Card.parse("4"), UNKNOWN, UNKNOWN]
    assert giver.hands[1][2] == Card.parse("6")
    receiver_events = [e._replace(cards=(UNKNOWN, UNKNOWN)) if e.kind == "look" else e for e in events]
    receiver = knowledge(receiver_events, 1, 2, 4)
    assert receiver.hands[1] == [UNKNOWN] * 4
    assert receiver.pile == list(_cards("6 6"))


def test_reshuffle_forgets_the_pile_and_take_follows_it() -> None:
    k = Knowledge(seat=1, n_players=2, hand_size=2)
    for e in [
        Event("flip", None, (), _cards("3")),
        Event("discard", 0, (), _cards("8")),
        Event("take", 1, (), _cards("8")),
        Event("exchange", 1, (0,), _cards("5 8")),
        Event("reshuffle", None, (1,)),
    ]:
        k.apply(e)
    assert k.hands[1] == [Card.parse("8"), UNKNOWN]  # taken from the pile: known to all for the round
    assert k.pile == [Card.parse("5")]               # the 3 went back into the deck


def test_multi_exchange_places_follow_the_cards() -> None:
    k = Knowledge(seat=0, n_players=2, hand_size=4)
    for e in [
        Event("flip", None, (), _cards("1")),
        Event("draw", 0, (), _cards("2")),
        Event("multi", 0, (1, 3), _cards("9 9"), "ok"),
        Event("place", 0, (3,)),
    ]:
        k.apply(e)
    assert k.hands[0] == [UNKNOWN, UNKNOWN, Card.parse("2")] and k.pile == list(_cards("1 9 9"))
    for e in [
        Event("draw", 0, (), _cards("7")),
        Event("multi", 0, (0, 1, 2), _cards("5 6 2"), "fail"),
        Event("place", 0, (0,)),
        Event("penalty", 0, (4,), (UNKNOWN,)),
    ]:
        k.apply(e)
    assert k.hands[0] == [Card.parse("7"), *_cards("5 6 2"), UNKNOWN]


def test_checker_refuses_events_it_cannot_follow() -> None:
    k = Knowledge(seat=0, n_players=2, hand_size=4)
    with pytest.raises(CheckerOutOfSync, match="does not have"):
        k.apply(Event("spy", 0, (1, 7), _cards("3")))
    with pytest.raises(CheckerOutOfSync, match="pile top"):
        k.apply(Event("take", 1, (), _cards("3")))
    with pytest.raises(CheckerOutOfSync, match="unknown event kind"):
        k.apply(Event("teleport", 0))


class _ResultKeeper(FuzzBot):
    def __init__(self) -> None:
        super().__init__()
        self.results: list[ck.RoundResult] = []

    def on_round_end(self, result: ck.RoundResult) -> None:
        self.results.append(result)


def test_round_results_given_to_bots_hide_losing_snap_claims() -> None:
    """RULES.md §5: losing claims are shown to nobody, so a bot's round summary cannot count them."""
    bots = [_ResultKeeper() for _ in range(4)]
    record = ck.play_game(bots, ck.Rules.preset("rush"), seed=3)
    rounds: list[list[Event]] = []
    for e in record.events:
        if e.kind == "round":
            rounds.append([])
        rounds[-1].append(e)
    assert sum(r.stats[s]["snap_claims"] for r in record.rounds for s in range(4)) > sum(
        1 for e in record.events if e.kind == "snap"
    ), "this game should have losing claims, or the test proves nothing"
    for bot in bots:
        assert len(bot.results) == len(rounds)
        for result, events in zip(bot.results, rounds):
            for s, stats in enumerate(result.stats):
                assert "snap_claims" not in stats
                assert stats["snaps"] == sum(1 for e in events if e.kind == "snap" and e.seat == s)
