"""Notebook HTML: cards, hands, observations (never a face the seat has not seen) and game records."""

from __future__ import annotations

import re

import pytest

import cabo_kit as ck
from cabo_kit import UNKNOWN, Card
from cabo_kit.render import card_html, hand_html, observation_html, record_html

DATA_CARD = re.compile(r'data-card="([^"]*)"')


# ------------------------------------------------------------------ cards and hands


@pytest.mark.parametrize("text, face, colour", [
    ("QD", "Q♦", "#c62828"), ("KH", "K♥", "#c62828"), ("AS", "A♠", "#212121"), ("10C", "10♣", "#212121"),
    ("JOKER", "JOKER", "#6a1b9a"), ("0", "0", "#2e7d32"), ("13", "13", "#ad1457"),
])
def test_a_card_shows_its_face_in_its_colour(text: str, face: str, colour: str) -> None:
    html = card_html(Card.parse(text))
    assert f">{face}</span>" in html
    assert f"color:{colour}" in html
    assert DATA_CARD.findall(html) == [text]
    assert f"{Card.parse(text).value} point" in html  # the tooltip says what it counts


def test_an_unseen_card_is_a_back() -> None:
    html = card_html(UNKNOWN)
    assert DATA_CARD.findall(html) == ["??"]
    assert "unseen card" in html and ">??</span>" in html
    assert "repeating-linear-gradient" in html and "repeating-linear-gradient" not in card_html(Card.parse("5"))


def test_face_up_cards_are_marked() -> None:
    up, down = card_html(Card.parse("7H"), face_up=True), card_html(Card.parse("7H"))
    assert "face up" in up and "&#9652;" in up
    assert "face up" not in down and "&#9652;" not in down


def test_card_repr_html_is_card_html() -> None:
    assert Card.parse("QD")._repr_html_() == card_html(Card.parse("QD"))


def test_hand_shows_cards_in_order_with_positions_and_marks() -> None:
    cards = [Card.parse("3"), UNKNOWN, Card.parse("12")]
    html = hand_html(cards, face_up=[False, False, True])
    assert DATA_CARD.findall(html) == ["3", "??", "12"]
    assert [p for p in re.findall(r">(\d)</div>", html)] == ["0", "1", "2"]
    assert html.count("face up") == 1 and html.index("face up") > html.index('data-card="12"')
    assert re.findall(r">(\d)</div>", hand_html(cards, positions=False)) == []
    assert "(no cards)" in hand_html([])


# ------------------------------------------------------------------ observations


def shown_cards(obs: ck.Observation) -> list[str]:
    """The card faces the observation holds, in the order observation_html draws them."""
    out = [c.text for hand in obs.hands for c in hand]
    if obs.top is not None:
        out.append(obs.top.text)
    if obs.drawn is not None:
        out.append(obs.drawn.text)
    return out


def visible_faces(obs: ck.Observation) -> set[Card]:
    faces = {c for hand in obs.hands for c in hand} | set(obs.discard) | {e_c for e in obs.events for e_c in e.cards}
    if obs.drawn is not None:
        faces.add(obs.drawn)
    return {c for c in faces if c.known}


def play_and_check(preset: str, n: int, seed: int, max_steps: int = 250) -> int:
    """Play a seeded game step by step; at every step render every seat's observation and check it."""
    rules = ck.Rules.preset(preset)
    game = ck.Game(rules, seed, n)
    bots = [ck.bots.GreedyBot() if s % 2 else ck.bots.RandomBot() for s in range(n)]
    for s, bot in enumerate(bots):
        bot.random = ck.play.bot_random(seed, s)
    checked = 0
    for _ in range(max_steps):
        if game.phase == "over":
            break
        held = [game.know.faces[c] for hand in game.know.hands for c in hand]
        if game.drawn is not None:
            held.append(game.know.faces[game.drawn])
        for seat in range(n):
            obs = game.observation(seat)
            html = observation_html(obs, recent=len(obs.events))
            # Exactly the observation's cards are drawn, in order: nothing added, nothing revealed.
            assert DATA_CARD.findall(html) == shown_cards(obs)
            if rules.deck == "standard":  # one standard deck: every face is unique, so a hidden one must not appear
                hidden = set(held) - visible_faces(obs)
                for card in hidden:
                    assert card.pretty not in html and f'"{card.text}"' not in html, (seat, card)
            checked += 1
        seat = game.to_move[0]
        obs = game.observation(seat)
        game.apply(bots[seat].choose(obs, obs.legal_actions), seat)
    return checked


@pytest.mark.parametrize("preset, n, seed", [("rush", 3, 1), ("traveller", 4, 2), ("deluxe", 2, 3), ("deluxe", 4, 4)])
def test_observation_html_never_shows_an_unseen_face(preset: str, n: int, seed: int) -> None:
    assert play_and_check(preset, n, seed) > 100


def rush_game() -> ck.Game:
    # Rush: each seat has seen its last two cards; the first discard is 9D, the next draw 7C.
    game = ck.Game(ck.Rules.preset("rush"), seed=1, n_players=2, start_player=0,
                   deck="2S 3S 4S 5S  2H 3H 4H 5H  9D  7C")
    game.apply(ck.Pass(), 0)
    game.apply(ck.Pass(), 1)
    game.apply(ck.DrawDeck(), 0)
    return game


def test_observation_shows_the_table_as_one_seat_sees_it() -> None:
    game = rush_game()
    mine, theirs = game.observation(0), game.observation(1)
    html0, html1 = observation_html(mine), observation_html(theirs)
    assert "<b>seat 0's view</b>" in html0
    assert "<b>you</b>" in html0 and html0.index("<b>you</b>") < html0.index("seat 1")
    assert "deck: 42 cards" in html0 and "phase <b>drawn</b>" in html0 and "to move: seat 0 (you)" in html0
    assert "drawn by seat 0 from the deck" in html0 and 'data-card="7C"' in html0  # the drawer sees it
    assert 'data-card="7C"' not in html1 and "7♣" not in html1  # the other seat sees a back
    assert DATA_CARD.findall(html1)[-1] == "??"
    assert DATA_CARD.findall(html0)[:4] == ["??", "??", "4S", "5S"]
    assert DATA_CARD.findall(html1)[:8] == ["??"] * 4 + ["??", "??", "4H", "5H"]
    assert "your options:" in html0 and "discard" in html0 and "your options:" not in html1
    assert "the top card of the deck is turned up: 9♦" in html0


def test_observation_marks_the_caller_and_lists_recent_events() -> None:
    game = ck.Game(ck.Rules.preset("deluxe"), seed=5, n_players=3, start_player=0)
    for seat in range(3):
        game.apply(ck.InitialPeek((0, 1)), seat)
    game.apply(ck.CallCabo(), 0)
    obs = game.observation(1)
    html = observation_html(obs, recent=2)
    assert "called Cabo" in html
    assert html.count("<li>") == 2 and f'start="{len(obs.events) - 1}"' in html
    assert "seat 0 calls Cabo" in html
    assert "<li>" not in observation_html(obs, recent=0)
    assert obs._repr_html_() == observation_html(obs)


def test_observation_shows_the_decision_in_progress() -> None:
    obs = rush_game().observation(0)
    html = observation_html(obs._replace(phase="place", picked=(0, 2), exchange_ok=False))
    assert "picked positions 0, 2 (not all equal)" in html
    html = observation_html(obs._replace(phase="swap", power="spy_swap", target=(1, 3)))
    assert "power: spy then swap" in html and "target: seat 1, position 3" in html
    html = observation_html(obs._replace(phase="give", give_to=(1, 0)))
    assert "give to seat 1, position 0" in html
    assert "picked positions" not in observation_html(obs) and "power:" not in observation_html(obs)


def test_observation_text_is_escaped() -> None:
    obs = rush_game().observation(0)
    odd = obs._replace(rules=obs.rules.replace(name="<script>alert(1)</script>"))
    html = observation_html(odd)
    assert "<script>" not in html and "&lt;script&gt;" in html


# ------------------------------------------------------------------ records


@pytest.fixture(scope="module")
def record() -> ck.GameRecord:
    return ck.play_game([ck.bots.GreedyBot(), ck.bots.RandomBot(), ck.bots.RandomBot()], ck.Rules.preset("deluxe"), seed=3)


def test_record_html_summarises_rules_bots_rounds_and_winners(record: ck.GameRecord) -> None:
    html = record_html(record)
    assert "<b>deluxe</b> rules" in html and "3 players" in html and f"{len(record.rounds)} rounds" in html
    assert "seat 0 (GreedyBot)" in html and "seat 2 (RandomBot)" in html
    assert html.count('class="ck-round"') == len(record.rounds)
    rows = html.split('class="ck-round"')[1:]
    for r, row in zip(record.rounds, rows):
        row = row.split("</tr>")[0]
        assert f">{r.ended_by.replace('_', ' ')}<" in row
        if r.caller is not None:
            assert f"seat {r.caller} ({'won' if r.caller_won else 'lost'})" in row
        assert DATA_CARD.findall(row) == [c.text for hand in r.final_hands for c in hand]
        for s in range(record.n_players):
            assert f"total {r.totals[s]}, scores <b>{r.scores[s]}</b> &rarr; {r.game_totals[s]}" in row
    winners = ", ".join(f"seat {s} ({record.bots[s]})" for s in record.winners)
    assert f"winner{'s' if len(record.winners) > 1 else ''}: {winners}" in html
    assert html.count("&#9733; winner") == len(record.winners)
    assert record._repr_html_() == html


def test_record_html_names_rule_changes_and_escapes_bot_names() -> None:
    rules = ck.Rules.preset("deluxe").replace(hand_size=6, initial_peeks=3)

    class Sneaky(ck.bots.RandomBot):
        name = "<img src=x onerror=alert(1)>"

    rec = ck.play_game([Sneaky(), ck.bots.GreedyBot()], rules, seed=1)
    html = record_html(rec)
    assert "hand_size=6, initial_peeks=3" in html
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html


def test_record_html_marks_special_hands() -> None:
    rec = ck.play_game([ck.bots.GreedyBot(), ck.bots.RandomBot()], ck.Rules.preset("deluxe"), seed=3)
    first = rec.rounds[0]
    special = ck.game.RoundResult.from_dict({**first.to_dict(), "kamikaze": [1], "resets": [0]})
    rec.rounds = [special]
    html = record_html(rec)
    assert "Kamikaze" in html and "reset to 50" in html and "Royal Roulette" not in html


def test_unfinished_record_says_so() -> None:
    game = ck.Game(ck.Rules.preset("deluxe"), seed=1, n_players=2)
    html = record_html(ck.GameRecord.from_game(game, ["A", "B"]))
    assert "the game is not over" in html and 'class="ck-round"' not in html


def test_the_table_style_card_carries_its_text_form_for_tests_and_screen_readers() -> None:
    html = card_html(Card.parse("QD"), inline=False, classes="cabo-card")
    assert ">Q♦</span>" in html and '<span class="ck-id">QD</span>' in html and 'style=' not in html
    assert "ck-id" not in card_html(Card.parse("7"), inline=False)  # the face already is its text
    assert card_html(UNKNOWN, inline=False).count("??") == 1  # only data-card: a back shows no text
