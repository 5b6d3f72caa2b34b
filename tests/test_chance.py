"""The engine's Chance hooks: each random event can be fixed, and the default is the seeded game unchanged."""

from __future__ import annotations

import random

import pytest

import cabo_kit as ck
from cabo_kit.game import Game


def play_random(game: Game, seed: int, long: bool = False) -> Game:
    """Play random legal actions (seeded) to the game's end; ``long``: never call Cabo nor claim a card,
    so that rounds run until the deck runs out (and rush or traveller reshuffle)."""
    rng = random.Random(seed)
    while not game.is_over:
        seat = game.to_move[0]
        legal = game.legal_actions(seat)
        action = legal[rng.randrange(len(legal))]
        if long and isinstance(action, (ck.CallCabo, ck.Snap)):
            action = legal[0]  # Pass where a card could be claimed, else draw from the deck
        game.apply_unchecked(action, seat)
    return game


def transcript(game: Game) -> list[str]:
    return [str(e) for e in game.events_seen(None)]


class Counting(ck.Chance):
    """Answers None to everything (the seed decides) but counts what it was asked."""

    def __init__(self) -> None:
        self.asked = {"start_player": 0, "card": 0, "snap_race": 0, "reshuffle": 0}

    def start_player(self, game, n_players):  # type: ignore[no-untyped-def]
        self.asked["start_player"] += 1

    def card(self, game, deck):  # type: ignore[no-untyped-def]
        self.asked["card"] += 1

    def snap_race(self, game, claimers):  # type: ignore[no-untyped-def]
        self.asked["snap_race"] += 1

    def reshuffle(self, game, cards):  # type: ignore[no-untyped-def]
        self.asked["reshuffle"] += 1

    def copy(self) -> "Counting":
        return self  # one tally for the game and its clones


@pytest.mark.parametrize("preset,n", [("deluxe", 2), ("deluxe", 5), ("rush", 3), ("rush", 6), ("traveller", 4)])
def test_a_chance_that_never_answers_plays_the_seeded_game(preset: str, n: int) -> None:
    rules = ck.Rules.preset(preset)
    for seed in range(6):
        long = seed % 2 == 1  # rounds to the deck's end, with reshuffles in rush and traveller
        plain = play_random(Game(rules, seed=seed, n_players=n), seed, long)
        counting = Counting()
        asked = play_random(Game(rules, seed=seed, n_players=n, chance=counting), seed, long)
        assert transcript(asked) == transcript(plain)
        assert asked.history == plain.history and asked.totals == plain.totals
        # every kind of event was put to the Chance (races and reshuffles where the rules have them)
        assert counting.asked["start_player"] == 1
        assert counting.asked["card"] >= (n * rules.hand_size + 1) * (plain.round + 1)


def test_races_and_reshuffles_are_asked_where_they_happen() -> None:
    rules = ck.Rules.preset("rush")
    counting = Counting()
    for seed in range(10):
        play_random(Game(rules, seed=seed, n_players=6, chance=counting), seed)
        play_random(Game(rules, seed=seed, n_players=2, chance=counting), seed, long=True)
    assert counting.asked["snap_race"] > 0 and counting.asked["reshuffle"] > 0


def test_fixed_start_player_and_deal_and_flip_and_draw() -> None:
    deal = "13 12 11 10  0 1 2 3  7  9 8"
    game = Game(ck.Rules.preset("deluxe"), seed=3, n_players=2, chance=ck.FixedChance(start_player=1, cards=deal))
    assert game.start_player == 1
    assert [c.text for c in game.open_hands()[0]] == ["13", "12", "11", "10"]
    assert [c.text for c in game.open_hands()[1]] == ["0", "1", "2", "3"]
    game.apply("look 0,1", seat=0)
    events = game.apply("look 0,1", seat=1)
    assert str(events[-1]) == "the top card of the deck is turned up: 7"
    assert game.apply("deck")[0].cards == (ck.Card.parse("9"),)
    while game.current == 1:
        game.apply(game.legal_actions()[0])  # discard 9 (deluxe: a spy, passed up)
    # the list is used up: the seed decides from here on, and the cards still add up (conservation)
    game.apply("deck", seat=0)
    know = game.know
    ids = [c for h in know.hands for c in h] + list(game.deck) + list(know.pile) + [game.drawn]
    assert sorted(ids) == list(range(len(know.faces)))


@pytest.mark.parametrize("start", [0, 1, 2])
def test_each_start_player_can_be_fixed(start: int) -> None:
    game = Game(ck.Rules.preset("rush"), seed=1, n_players=3, chance=ck.FixedChance(start_player=start))
    assert game.start_player == start == game.first_start_player


def test_a_fixed_chance_copy_keeps_its_own_place() -> None:
    chance = ck.FixedChance(cards=["1", "2"])
    assert chance.card(None, ()) == ck.Card.parse("1")  # type: ignore[arg-type]
    twin = chance.copy()
    assert chance.card(None, ()) == twin.card(None, ()) == ck.Card.parse("2")  # type: ignore[arg-type]
    assert chance.card(None, ()) is None and chance.used == [2, 0, 0]  # type: ignore[arg-type]


def snap_window_with_claims(chance: ck.Chance) -> Game:
    """A rush game at the first discard's snap window, seats 0, 1 and 2 all claiming seat 2's position 0."""
    game = Game(ck.Rules.preset("rush"), seed=4, n_players=3, start_player=0, chance=chance)
    assert game.phase == "snap"
    for seat in (0, 1, 2):
        game.apply(ck.Snap(2, 0), seat=seat)
    return game


@pytest.mark.parametrize("winner", [0, 1, 2])
def test_each_snap_race_winner_can_be_fixed(winner: int) -> None:
    game = snap_window_with_claims(ck.FixedChance(snap_races=[winner]))
    snap = [e for e in game.events_seen(None) if e.kind == "snap"]
    assert len(snap) == 1 and snap[0].seat == winner


def test_a_fixed_reshuffle_gives_that_order() -> None:
    class Reverse(ck.Chance):
        given: tuple[ck.Card, ...] = ()

        def reshuffle(self, game, cards):  # type: ignore[no-untyped-def]
            self.given = cards
            return [c.text for c in reversed(cards)]

    rules = ck.Rules.preset("rush")
    for seed in range(60):
        reverse = Reverse()
        game = Game(rules, seed=seed, n_players=2, chance=reverse)
        rng = random.Random(seed)
        while not game.is_over and not reverse.given:
            mark = game.event_count
            seat = game.to_move[0]
            legal = game.legal_actions(seat)
            action = legal[rng.randrange(len(legal))]
            game.apply_unchecked(legal[0] if isinstance(action, (ck.CallCabo, ck.Snap)) else action, seat)
        if reverse.given:
            break
    else:  # pragma: no cover
        pytest.fail("no reshuffle in 60 random rush games")
    shuffle = [e for e in game.events_seen(None, since=mark) if e.kind == "reshuffle"]
    assert len(shuffle) == 1 and shuffle[0].target == (len(reverse.given),)
    answer = list(reversed(reverse.given))
    deck_now = [game.know.faces[c] for c in reversed(game.deck)]  # top first
    drawn_since = len(answer) - len(deck_now)
    assert drawn_since >= 1 and deck_now == answer[drawn_since:]


def test_wrong_answers_are_clear_errors() -> None:
    class Bad(ck.Chance):
        def card(self, game, deck):  # type: ignore[no-untyped-def]
            return "JOKER" if len(deck) < 50 else None

    with pytest.raises(ValueError, match="Bad.card answered JOKER, which is not in the deck now"):
        Game(ck.Rules.preset("deluxe"), seed=1, n_players=2, chance=Bad())
    with pytest.raises(ValueError, match=r"Chance.start_player answered 5: answer one of seats 0, 1 or None"):
        Game(ck.Rules.preset("deluxe"), seed=1, n_players=2, chance=ck.FixedChance(start_player=5))
    with pytest.raises(ValueError, match="snap_race answered 7"):
        snap_window_with_claims(ck.FixedChance(snap_races=[7]))

    class BadShuffle(ck.Chance):
        def reshuffle(self, game, cards):  # type: ignore[no-untyped-def]
            return list(cards)[1:]

    game = Game(ck.Rules.preset("rush"), seed=1, n_players=2, chance=BadShuffle())
    with pytest.raises(ValueError, match="Chance.reshuffle answered .* cards for a deck of"):
        play_random(game, 1, long=True)
    # the answer is checked before the pile is gathered: the pile and what was known of it are left as they were
    assert game.deck == [] and len(game.know.pile) > 1
    assert len(game.observation(0).discard) == len(game.know.pile)


def test_a_clone_keeps_its_own_place_in_the_lists() -> None:
    chance = ck.FixedChance(start_player=0, cards="1 2 3 4  5 6 7 8  9  10 11")
    game = Game(ck.Rules.preset("deluxe"), seed=2, n_players=2, chance=chance)
    game.apply("look 0,1", seat=0)
    game.apply("look 0,1", seat=1)
    twin = game.clone()
    assert twin.chance is not game.chance
    assert game.apply("deck")[0].cards == twin.apply("deck")[0].cards == (ck.Card.parse("10"),)


class Shaker(ck.Chance):
    """Decides every random event from its own generator, not the game's seed."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def start_player(self, game, n_players):  # type: ignore[no-untyped-def]
        return self.rng.randrange(n_players)

    def card(self, game, deck):  # type: ignore[no-untyped-def]
        return deck[self.rng.randrange(len(deck))]

    def snap_race(self, game, claimers):  # type: ignore[no-untyped-def]
        return claimers[-1]

    def reshuffle(self, game, cards):  # type: ignore[no-untyped-def]
        return list(reversed(cards))


@pytest.mark.parametrize("preset,n", [("rush", 3), ("deluxe", 4), ("traveller", 3)])
def test_a_game_played_with_a_chance_is_recorded_so_that_it_replays(preset: str, n: int) -> None:
    races = shuffles = 0
    for seed in range(4):
        game = play_random(Game(ck.Rules.preset(preset), seed=seed, n_players=n, chance=Shaker(seed)), seed, seed % 2 == 1)
        record = ck.GameRecord.from_game(game)
        assert record.chance is not None
        races += len(record.chance["snap_races"])
        shuffles += len(record.chance["reshuffles"])
        again = ck.GameRecord.from_json(record.to_json())
        assert transcript(again.replay()) == transcript(game)
        assert again.replay().totals == game.totals
        assert again.transcript(0).splitlines()[1:] == record.transcript(0).splitlines()[1:]
        assert again.view(1, len(record.actions) // 2) == record.view(1, len(record.actions) // 2)
    # the seed alone does not replay these games: what the Chance chose is what the record keeps
    assert preset == "deluxe" or races + shuffles > 0


def test_records_of_games_without_a_chance_keep_their_form() -> None:
    record = ck.play_game([ck.bots.RandomBot(), ck.bots.RandomBot()], ck.Rules.preset("rush"), seed=4)
    data = record.to_dict()
    assert record.chance is None and "chance" not in data
    assert ck.GameRecord.from_dict(data).to_json() == record.to_json()
