"""The card table, driven through its own controls (the messages a click sends), without a browser.

After every click: what the table shows equals the person's observation, every clickable thing
maps to a legal action, and nothing synced to the page holds a face the person may not know.
Whole games are played this way in every preset at 2, 4 and 6 players, and the run as a whole
must have met every kind of decision: both multi-exchange outcomes, every power, right and
wrong snaps, a give, the end-of-turn Cabo call.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from typing import Any, Sequence

import pytest

pytest.importorskip("anywidget")
import ipywidgets  # noqa: E402

import cabo_kit as ck  # noqa: E402
from cabo_kit.table import CardTable, Replay  # noqa: E402
from cabo_kit.table.view import Chooser  # noqa: E402

CARD = re.compile(r'class="ck-card [^"]*cabo-s(\d+)-p(\d+)[^"]*" data-card="([^"]*)"')
ANY_CARD = re.compile(r'data-card="([^"]*)"')


@pytest.fixture(autouse=True)
def _close_widgets() -> Any:
    yield
    ipywidgets.Widget.close_all()


def send(table: CardTable, target: str) -> None:
    """A click exactly as the page sends it (to the table's handler directly: ipywidgets' dispatcher
    would log an exception instead of raising it)."""
    table._on_msg(table, {"type": "click", "target": target, "token": table.frame["token"]}, [])


def shown_cards(html: str) -> dict[tuple[int, int], str]:
    return {(int(s), int(p)): text for s, p, text in CARD.findall(html)}


def check_table(table: CardTable, seen: Counter[str]) -> None:
    """What the page has now is exactly what the person's seat may know."""
    game = table.game
    seat = table.seat
    assert seat is not None
    obs = game.observation(seat)
    state = table.get_state()
    html = state["frame"]["html"]
    assert table.frame["html"] == html
    cards = shown_cards(html)
    summary = table.view.overlay != ""
    # Every hand, position by position, as the observation has it (no reveal flash in memory="engine");
    # at a round's end the ended round's hands, turned up, behind its scoring.
    hands = game.results[-1].final_hands if summary else obs.hands
    expected = {(s, p): c.text for s, hand in enumerate(hands) for p, c in enumerate(hand)}
    assert cards == expected
    # No face anywhere in the synced state that the seat does not know: the faces the page may hold
    # are its known hand cards, the discard pile, the drawn card it may see; at a round's end the
    # final hands (turned up for everyone), the faces seen up to that end (its piles, the log) and the
    # next round's public discard top, but nothing the seat sees in the next round's deal before Next.
    if summary:
        events = game.events_seen(seat)
        end = max(i for i, e in enumerate(events) if e.kind == "end")
        allowed = {c.text for hand in game.results[-1].final_hands for c in hand}
        allowed |= {c.text for e in events[: end + 1] for c in e.cards if c.known}
        if obs.top is not None:
            allowed.add(obs.top.text)
    else:
        allowed = {c.text for hand in obs.hands for c in hand if c.known} | {c.text for c in obs.discard}
        if obs.drawn is not None and obs.drawn.known:
            allowed.add(obs.drawn.text)
    # Every synced value but the stylesheet and script (whose [data-card="JOKER"] selector is no card);
    # json.dumps escapes the quotes of data-card="..." in the HTML: they are read unescaped.
    synced = json.dumps({k: v for k, v in state.items() if k not in ("_css", "_esm")}).replace('\\"', '"')
    shown = set(ANY_CARD.findall(synced)) - {"??", ""}
    assert ANY_CARD.findall(synced), "the check reads the cards of the synced state"
    assert shown <= allowed, f"faces the seat may not know reached the page: {shown - allowed}"
    # Clickable things on the page are exactly the table's clickable set, and each is legal.
    on_page = set(re.findall(r'data-click="([^"]+)"', html))
    assert on_page == table.clickable()
    assert all(f'data-click="{t}"' in html for t in on_page)
    if not summary and seat in game.to_move:
        legal = set(game.legal_actions(seat)) if not isinstance(game.legal_actions(seat), ck.LegalActions) else None
        chooser = Chooser(obs)
        for action, _ in chooser.options:
            assert legal is None or action in legal
        seen[f"phase:{obs.phase}"] += 1
    assert 'class="cabo-status"' in html and 'class="cabo-log"' in html and 'class="cabo-scores"' in html
    if summary and table.memory == "engine":
        # Behind a round's scoring, that round's piles: every card of the deck is in a hand, the pile or the deck
        # (the next round, already dealt by the engine in every preset, would have a full deck and a pile of one).
        view = table.view
        in_hands = sum(len(hand) for hand in game.results[-1].final_hands)
        assert view.deck_size + view.pile_size + in_hands == len(table.rules.full_deck(game.n)), (
            view.deck_size, view.pile_size, in_hands)
        seen["round ends"] += 1


def pick(table: CardTable, rng: random.Random, seen: Counter[str]) -> str:
    """A person who tries everything: multi-exchanges, every power, snaps, and sometimes Cabo."""
    clickable = sorted(table.clickable())
    if "btn:next" in clickable:
        return "btn:next"
    chooser = table._chooser
    assert chooser is not None
    cards = [t for t in clickable if t.startswith("card:")]
    phase = table.game.phase
    if phase == "drawn" and chooser.confirm and "btn:confirm" in clickable and len(chooser.selected) >= (2 if rng.random() < 0.5 else 1):
        return "btn:confirm"
    if phase == "drawn" and chooser.confirm and cards and rng.random() < 0.85:
        fresh = [t for t in cards if t not in chooser.selected]
        if fresh:
            return rng.choice(fresh)
    if phase in ("power", "swap") and cards:
        return rng.choice(cards)  # never skip a power
    if phase == "snap":
        return rng.choice(cards) if cards and rng.random() < 0.25 else "btn:pass"
    if "btn:cabo" in clickable and rng.random() < (0.25 if phase == "end_turn" else 0.04):
        return "btn:cabo"
    if phase == "choose":
        return "deck" if rng.random() < 0.8 or "discard" not in clickable else "discard"
    if phase == "end_turn":
        return "btn:pass"
    obs = table.observation
    if phase == "drawn" and obs is not None and obs.drawn_from == "deck" and obs.drawn is not None:
        if table.rules.power_of(obs.drawn) and "btn:discard" in clickable and rng.random() < 0.9:
            return "btn:discard"  # use the power
    return rng.choice(cards or clickable)


def play_by_clicks(table: CardTable, seed: int, seen: Counter[str], max_clicks: int = 4000) -> None:
    rng = random.Random(seed)
    check_table(table, seen)
    for _ in range(max_clicks):
        if table.game.is_over and table.view.overlay:
            break
        target = pick(table, rng, seen)
        before = len(table.game.history)
        send(table, target)
        assert table.view.notice == "" or "bot failed" in table.view.notice, table.view.notice
        if len(table.game.history) > before:
            seen["actions"] += 1
        check_table(table, seen)
    else:
        pytest.fail("the game did not end by clicking")
    for event in table.game.events_seen(None):
        seen[f"{event.kind}:{event.info}" if event.kind in ("multi", "snap") else event.kind] += 1


SEEN: Counter[str] = Counter()  # what the whole games below met, by kind
GAMES = [(preset, n) for n in (2, 4, 6) for preset in ("deluxe", "rush", "traveller")]
PLAYED: set[tuple[str, int]] = set()


def _play_clicked_game(preset: str, n: int) -> CardTable:
    rules = ck.Rules.preset(preset)
    if n < rules.min_players:
        rules = rules.replace(min_players=n)
    levels = [1, 2, 3, 2, 1][: n - 1]
    table = CardTable(rules, opponents=levels, seat=n // 2, seed=40 + n, pace=0)
    play_by_clicks(table, seed=n, seen=SEEN)
    PLAYED.add((preset, n))
    return table


@pytest.mark.parametrize("preset, n", GAMES)
def test_whole_games_by_clicking(preset: str, n: int) -> None:
    table = _play_clicked_game(preset, n)
    assert table.game.is_over and "Game over" in table.view.overlay
    assert len(table.game.results) >= 1 and table.game.winners
    # The scorepad shows every round.
    assert table.frame["html"].count("<tr>") >= len(table.game.results) + 1


def test_the_clicked_games_met_every_kind_of_decision() -> None:
    """Together the whole games above used every decision of every preset (played here if run alone)."""
    for preset, n in GAMES:
        if (preset, n) not in PLAYED:
            _play_clicked_game(preset, n)
    needed = ["multi:ok", "multi:fail", "peek", "spy", "swap", "snap:match", "snap:miss", "give", "place", "penalty",
              "cabo", "take", "phase:end_turn", "phase:give", "phase:place", "phase:swap", "phase:look",
              "round ends"]
    missing = [k for k in needed if not SEEN[k]]
    assert not missing, f"the clicked games never met: {missing} (seen: {dict(SEEN)})"


def test_a_multi_exchange_by_clicks_then_confirm() -> None:
    # Seat 0 holds 5 5 9 9; deluxe; seat 0 starts and draws a 2.
    table = CardTable("deluxe", opponents=[1], seed=1, pace=0, start_player=0, deck="5 5 9 9  1 2 3 4  7  2")
    send(table, "card:0:0")
    send(table, "card:0:1")
    send(table, "deck")
    assert table.status.startswith("You drew 2")
    send(table, "card:0:0")
    send(table, "card:0:1")
    assert table.view.selected == {"card:0:0", "card:0:1"}
    assert "Exchange 2 cards" in table.frame["html"]
    send(table, "btn:confirm")
    assert table.game.phase == "place" and table.status.startswith("They match")
    assert table.clickable() == {"card:0:0", "card:0:1"}
    send(table, "card:0:1")
    assert [c.text for c in table.game.open_hands()[0]] == ["2", "9", "9"]
    assert [c.text for c in table.observation.my_hand] == ["2", "??", "??"]  # type: ignore[union-attr]


def test_a_failed_multi_exchange_asks_for_an_end() -> None:
    table = CardTable("deluxe", opponents=[1], seed=1, pace=0, start_player=0, deck="5 6 9 9  1 2 3 4  7  2")
    send(table, "card:0:0")
    send(table, "card:0:1")
    send(table, "deck")
    send(table, "card:0:0")
    send(table, "card:0:1")
    send(table, "btn:confirm")
    assert table.status.startswith("Not all equal")
    assert table.clickable() == {"btn:left", "btn:right"}
    assert 'cabo-btn-left' in table.frame["html"] and 'cabo-btn-right' in table.frame["html"]
    send(table, "btn:left")
    hand = table.game.open_hands()[0]
    assert [c.text for c in hand][:1] == ["2"]


def test_an_unclickable_target_changes_nothing_and_says_why() -> None:
    table = CardTable("deluxe", opponents=[1], seed=1, pace=0)
    before = table.game.event_count
    send(table, "deck")  # the set-up look comes first
    assert table.game.event_count == before
    assert "cannot be clicked now" in table.view.notice and "card:" in table.view.notice
    with pytest.raises(ValueError, match="'btn:cabo' cannot be clicked now"):
        table.click("btn:cabo")


def test_pace_unfolds_bot_moves_one_tick_at_a_time() -> None:
    table = CardTable("deluxe", opponents=[2, 2], seat=0, seed=7, pace=0.5, start_player=1)
    send(table, "card:0:0")
    send(table, "card:0:1")
    steps = 0
    while table.busy:
        frame = dict(table.frame)
        assert frame["busy"] and frame["hold"] == 0.5
        table._on_msg(table, {"type": "tick", "token": frame["token"] - 1}, [])  # a stale tick: ignored
        assert table.frame == frame
        table._on_msg(table, {"type": "tick", "token": frame["token"]}, [])
        steps += 1
    assert steps >= 2 and 0 in table.stepper.waiting
    assert table.frame["busy"] is False and table.clickable()


def test_a_click_while_bots_move_skips_to_the_end_of_their_moves() -> None:
    table = CardTable("deluxe", opponents=[2, 2], seat=0, seed=7, pace=0.5, start_player=1)
    send(table, "card:0:0")
    send(table, "card:0:1")
    assert table.busy
    table._on_msg(table, {"type": "skip"}, [])
    assert not table.busy and 0 in table.stepper.waiting


def test_watching_bots_shows_every_card_and_plays_round_by_round() -> None:
    table = CardTable("traveller", opponents=[1, 2, 3], seat=None, seed=2, pace=0)
    assert table.names == ["Ada", "Bea", "Cy"]
    rounds = 0
    while True:
        assert table.view.overlay, "without a person the table plays to the end of a round"
        open_hands = table.game.open_hands()
        rounds += 1
        if table.game.is_over:
            break
        send(table, "btn:next")
        cards = shown_cards(table.frame["html"])
        ended = table.game.results[-1].final_hands
        assert cards == {(s, p): c.text for s, hand in enumerate(ended) for p, c in enumerate(hand)}
        assert open_hands is not None
    assert rounds == len(table.game.results)


class Broken(ck.Bot):
    def choose(self, observation: ck.Observation, legal_actions: Sequence[ck.Action]) -> ck.Action:
        if observation.phase == "choose":
            raise RuntimeError("my bot is broken")
        return legal_actions[0]


def test_a_broken_bot_does_not_freeze_the_table() -> None:
    table = CardTable("deluxe", opponents=[Broken()], seed=5, pace=0, start_player=1)
    send(table, "card:0:0")
    send(table, "card:0:1")
    assert "Bea's bot failed: raised RuntimeError. It played a random legal move instead." == table.view.notice
    assert "my bot is broken" in table.stepper.faults[0].message  # the details stay in Python
    assert any(line.startswith("⚠ Bea's bot failed") for line in table.log_lines)
    assert table.game.phase in ("choose", "drawn") and 0 in table.stepper.waiting  # the game went on to you


def test_playing_from_memory_flashes_a_seen_card_then_hides_it() -> None:
    table = CardTable("deluxe", opponents=[1], seed=1, pace=0.2, memory="none", start_player=0, deck="5 6 9 3  1 2 3 4  7")
    send(table, "card:0:0")
    send(table, "card:0:1")
    # The look: both faces shown for a moment (a busy frame held long enough to read), then hidden.
    cards = shown_cards(table.frame["html"])
    assert (cards[(0, 0)], cards[(0, 1)]) == ("5", "6") and table.frame["busy"] and table.frame["hold"] >= 1.5
    table.fast_forward()
    cards = shown_cards(table.frame["html"])
    assert (cards[(0, 0)], cards[(0, 1)]) == ("??", "??")
    assert not any(re.search(r": 5, 6|5 and 6", line) for line in table.log_lines)
    assert any(line.startswith("You look at your cards 1 and 2") for line in table.log_lines)


def test_new_game_and_bad_arguments() -> None:
    table = CardTable("rush", opponents=["easy"], seed=1, pace=0)
    table.new_game(seed=99)
    assert table.seed == 99 and table.game.seed == 99 and "seed 99" in table.frame["html"]
    with pytest.raises(ValueError, match="opponents is empty"):
        CardTable(opponents=[])
    with pytest.raises(TypeError, match="give a level"):
        CardTable(opponents=[object()])
    with pytest.raises(ValueError, match="no bot level 7"):
        CardTable(opponents=[7])
    with pytest.raises(ValueError, match="seat=5"):
        CardTable(opponents=[1], seat=5)
    with pytest.raises(ValueError, match="memory='all'"):
        CardTable(opponents=[1], memory="all")
    with pytest.raises(ValueError, match="seats 2 to 6"):
        CardTable(ck.Rules.preset("deluxe", max_players=8), opponents=[1] * 6)
    with pytest.raises(ck.RulesError, match="traveller is for 3 to 6 players"):
        CardTable("traveller", opponents=[1])


def test_your_own_bot_class_can_sit_at_the_table() -> None:
    class Mine(ck.SimpleBot):
        pass

    table = CardTable("rush", opponents=[Mine, Mine()], seed=3, pace=0)
    assert table.labels[1:] == ["Mine", "Mine"]


# ------------------------------------------------------------------ replay


def test_replay_matches_the_record_at_every_step_in_any_order() -> None:
    record = ck.play_game([ck.bots.GreedyBot(), ck.bots.RandomBot(), ck.bots.CountingBot()], ck.Rules.preset("rush"), seed=4)
    replay = Replay(record, seat=1, checkpoint=25)
    rng = random.Random(0)
    steps = [rng.randrange(replay.steps + 1) for _ in range(25)] + [replay.steps, 0, replay.steps - 1]
    for step in steps:
        replay.go(step)
        obs = record.view(1, step)
        html = replay.table.frame["html"]
        assert shown_cards(html) == {(s, p): c.text for s, hand in enumerate(obs.hands) for p, c in enumerate(hand)}
        assert replay.slider.value == step
    replay.go(replay.steps)
    assert "Game over" in replay.table.frame["html"]


def test_replay_scrubbing_replays_from_the_nearest_checkpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    record = ck.play_game([ck.bots.GreedyBot(), ck.bots.RandomBot()], ck.Rules.preset("deluxe"), seed=8)
    replay = Replay(record, seat=None, checkpoint=20)
    replay.go(replay.steps)  # walks forward once, keeping checkpoints
    calls = []
    original = ck.Game.apply

    def counting(self: ck.Game, *args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(ck.Game, "apply", counting)
    for step in range(replay.steps - 1, max(0, replay.steps - 60), -1):  # scrub backwards one by one
        calls.clear()
        replay.go(step)
        assert len(calls) <= 20
    # Every card face up for a spectator.
    cards = shown_cards(replay.table.frame["html"])
    assert "??" not in cards.values()


def test_replay_buttons_move_the_slider() -> None:
    record = ck.play_game([ck.bots.GreedyBot(), ck.bots.RandomBot()], ck.Rules.preset("deluxe"), seed=8)
    replay = Replay(record)
    forward = [c for c in replay.children[0].children if "cabo-replay-forward" in c._dom_classes][0]
    forward.click()
    forward.click()
    assert replay.step == 2 and replay.slider.value == 2
    replay.slider.value = 30
    assert replay.step == 30
    with pytest.raises(TypeError, match="needs a cabo_kit.GameRecord"):
        Replay("not a record")  # type: ignore[arg-type]


def test_a_tournament_game_replays_by_its_id(tmp_path: Any) -> None:
    import shutil
    from pathlib import Path

    from cabo_kit.tournament.runner import run_tournament
    from cabo_kit.tournament.store import StoreError, load_frames

    folder = tmp_path / "class"
    (folder / "bots").mkdir(parents=True)
    for name in ("steady.py", "raises_late.py"):
        shutil.copy(Path(__file__).parent / "tournament_bots" / name, folder / "bots" / name)
    (folder / "tournament.toml").write_text('presets = ["rush"]\ntable_sizes = [2]\ngames = 2\nseed = 1\nreference = []\n')
    run_tournament(folder, workers=1, progress=False, out=None)
    games, seats = load_frames(folder)
    for gid in games.game_id:
        replay = Replay.from_tournament(folder, gid, seat=0)
        replay.go(replay.steps)
        record = replay.record
        assert replay.steps == len(record.actions) > 0
        hands = shown_cards(replay.table.frame["html"])
        obs = record.view(0, replay.steps)
        assert hands == {(s, p): c.text for s, hand in enumerate(obs.hands) for p, c in enumerate(hand)}
    with pytest.raises(StoreError, match="no game 'nope'"):
        Replay.from_tournament(folder, "nope")
    with pytest.raises(StoreError, match="no results store"):
        Replay.from_tournament(tmp_path / "elsewhere", "x")


class Leaky(ck.Bot):
    """A learner's bug whose exception text holds the card only this bot drew."""

    def choose(self, observation: ck.Observation, legal_actions: Sequence[ck.Action]) -> ck.Action:
        if observation.phase == "drawn":
            raise KeyError(f"drawn {observation.drawn.text}")  # type: ignore[union-attr]
        return legal_actions[0]


def test_a_failing_bot_s_exception_text_never_reaches_the_page() -> None:
    table = CardTable("deluxe", opponents=[Leaky()], seed=3, pace=0, start_player=1)
    send(table, "card:0:0")
    send(table, "card:0:1")
    fault = table.stepper.faults[0]
    assert fault.short == "raised KeyError" and "drawn" in fault.message
    secret = fault.message  # e.g. "raised KeyError: 'drawn 4'"
    state = json.dumps(table.get_state())
    assert "raised KeyError." in table.view.notice and secret not in state and "'drawn " not in state


class BadHook(ck.bots.RandomBot):
    def on_round_start(self, observation: ck.Observation) -> None:
        raise RuntimeError("hook")


def test_a_raising_hook_does_not_freeze_the_table() -> None:
    table = CardTable("deluxe", opponents=[BadHook()], seed=2, pace=0)
    send(table, "card:0:0")
    send(table, "card:0:1")
    assert table.game.phase != "look" and "raised RuntimeError in on_round_start()" in table.view.notice
    seen: Counter[str] = Counter()
    play_by_clicks(table, seed=1, seen=seen)
    assert table.game.is_over


def test_a_double_click_plays_one_move() -> None:
    table = CardTable("rush", opponents=[2], seed=4, pace=0, start_player=0)
    while "deck" not in table.clickable():
        send(table, "btn:pass")
    send(table, "deck")
    token = table.frame["token"]
    table._on_msg(table, {"type": "click", "target": "card:0:1", "token": token}, [])
    moves = len(table.game.history)
    table._on_msg(table, {"type": "click", "target": "card:0:1", "token": token}, [])  # the second click of a double click
    assert len(table.game.history) == moves


def test_stepper_apply_refuses_to_act_for_a_bot_or_out_of_seat_order() -> None:
    game = ck.Game(ck.Rules.preset("deluxe"), seed=2, n_players=3, start_player=1)
    stepper = ck.Stepper(game, {0: ck.bots.GreedyBot(), 2: ck.bots.GreedyBot()})
    with pytest.raises(ck.IllegalActionError, match="GreedyBot answers before seat 1"):
        stepper.apply("look 0,1", seat=1)
    stepper.advance()
    stepper.apply("look 0,1")  # the one waiting seat
    stepper.advance()
    assert stepper.waiting == (1,) and game.current == 1
    stepper.apply("deck")
    stepper.apply("discard")
    stepper.advance()
    if game.to_move and 1 not in game.to_move:
        with pytest.raises(ck.IllegalActionError, match="no seat without a bot must decide now"):
            stepper.apply("deck")


def test_playing_rush_from_memory_flashes_the_cards_seen_at_the_deal() -> None:
    table = CardTable("rush", opponents=[1, 1], seed=6, pace=0, memory="none", start_player=1)
    seen = {(s, p): t for (s, p), t in shown_cards(table.frame["html"]).items() if s == 0 and t != "??"}
    assert len(seen) == 2  # rush: your last two cards, shown for their moment
    # You decide next (the first snap window), yet the cards turn down when their moment is over.
    assert table.frame["expire"] >= 1.5 and not table.frame["busy"]
    clickable, token = table.clickable(), table.frame["token"]
    table._on_msg(table, {"type": "expire", "token": token}, [])
    assert all(t == "??" for (s, _), t in shown_cards(table.frame["html"]).items() if s == 0)
    assert table.clickable() == clickable and not table.frame["expire"]  # still your decision, nothing else changed
    # A click made on the picture just before it turned its cards down is the same decision: it counts.
    history = len(table.game.history)
    table._on_msg(table, {"type": "click", "target": "btn:pass", "token": token}, [])  # seat 0 answers the first snap window
    assert len(table.game.history) > history
    table.fast_forward()
    assert all(t == "??" for (s, _), t in shown_cards(table.frame["html"]).items() if s == 0)


def test_at_a_pace_every_bot_look_is_logged() -> None:
    table = CardTable("deluxe", opponents=[1, 1, 1], seed=3, pace=0.5, start_player=1)
    send(table, "card:0:0")
    send(table, "card:0:1")
    table.fast_forward()
    looks = [line for line in table.log_lines if "look at their cards" in line or "looks at their cards" in line]
    assert len(looks) == 3


def test_the_round_summary_says_what_a_beaten_caller_scores_in_each_preset() -> None:
    from cabo_kit.table.view import round_summary_html

    result = ck.RoundResult(
        index=0, start_player=0, caller=0, caller_won=False, ended_by="cabo", final_hands=[[ck.Card.parse("9")], [ck.Card.parse("3")]],
        totals=[9, 3], scores=[19, 3], game_totals=[19, 3], kamikaze=[], royal_roulette=[], resets=[], turns=4, snap_windows=0,
        stats=[{}, {}],
    )
    deluxe = round_summary_html(result, ["You", "Bea"], {}, over=False, rules=ck.Rules.preset("deluxe"))
    traveller = round_summary_html(result, ["You", "Bea"], {}, over=False, rules=ck.Rules.preset("traveller"))
    assert "another hand was lower, so you score the hand plus 10" in deluxe
    assert "so you score the hand." in traveller
    # The table's summary ends with its button to move on; the portal's replay draws it without one.
    with_next = round_summary_html(result, ["You", "Bea"], {}, over=False, next_label="Next round")
    assert "btn:next" not in deluxe
    assert with_next.endswith('<button type="button" class="cabo-btn cabo-btn-next cabo-clickable" '
                              'data-click="btn:next">Next round</button></div>')
    assert with_next.startswith(round_summary_html(result, ["You", "Bea"], {}, over=False)[: -len("</div>")])


def test_an_expiry_of_an_older_picture_keeps_a_choice_being_made() -> None:
    table = CardTable("deluxe", opponents=[1], seed=1, pace=0, memory="none", start_player=0, deck="5 5 9 9  1 2 3 4  7  11")
    old = table.frame["token"]
    send(table, "card:0:0")
    table._on_msg(table, {"type": "expire", "token": old}, [])  # late: a newer picture is shown
    assert table.view.selected == {"card:0:0"} and "(1 of 2 chosen)" in table.status


def test_the_prompts_say_what_is_allowed() -> None:
    # Seat 0 holds 5 5 9 9, the pile starts with 7, seat 0 draws 2 (a second game: 11, a swap).
    table = CardTable("deluxe", opponents=[1], seed=1, pace=0, start_player=0, deck="5 5 9 9  1 2 3 4  7  2")
    send(table, "card:0:2")
    assert table.status == "Choose 2 of your cards to look at (1 of 2 chosen)."
    send(table, "card:0:3")
    send(table, "deck")
    assert table.status == ("You drew 2: click one of your cards to exchange it; several equal cards: click them all, "
                            "then Exchange; or Discard.")
    send(table, "card:0:0")
    send(table, "card:0:1")
    assert table.status.startswith("You drew 2: 2 cards chosen — click more equal cards")
    table = CardTable("deluxe", opponents=[1], seed=1, pace=0, start_player=0, deck="5 5 9 9  1 2 3 4  7  11")
    send(table, "card:0:2")
    send(table, "card:0:3")
    send(table, "deck")
    send(table, "btn:discard")
    assert "(0 of 2 chosen)" in table.status
    send(table, "card:1:1")  # the first card of the swap: shown chosen, and said so
    assert table.status.startswith("Power: swap — 1 of 2 chosen: now click one of your cards")
    assert re.search(r'class="ck-card [^"]*cabo-s1-p1[^"]*cabo-selected', table.frame["html"])
    send(table, "card:0:3")
    assert (0, ck.Swap(3, 1, 1)) in [tuple(h) for h in table.game.history]
    # Taken from the pile (deluxe: it must be kept): no Discard offered, and the prompt says why.
    table = CardTable("deluxe", opponents=[1], seed=1, pace=0, start_player=0, deck="5 5 9 9  1 2 3 4  7  2")
    send(table, "card:0:2")
    send(table, "card:0:3")
    send(table, "discard")
    assert table.status == ("You took 7: click one of your cards to exchange it; several equal cards: click them all, "
                            "then Exchange (a card taken from the discard pile must be kept).")


class _Caller(ck.Bot):
    """Calls Cabo as soon as it may."""

    def choose(self, obs: ck.Observation, legal: Sequence[ck.Action]) -> ck.Action:
        return ck.CallCabo() if ck.CallCabo() in legal else legal[0]


def test_after_a_cabo_call_your_status_says_it_is_your_last_turn() -> None:
    table = CardTable("deluxe", opponents=[_Caller()], seed=1, pace=0, start_player=1, deck="5 5 9 9  1 2 3 4  7  2")
    send(table, "card:0:0")
    send(table, "card:0:1")
    assert table.status == "Bea called Cabo: this is your last turn. Click the deck or the discard pile to draw."
    assert "called Cabo" in table.frame["html"]
    send(table, "deck")
    assert table.status.startswith("Bea called Cabo: this is your last turn. You drew 2: click one of your cards")


def test_the_table_has_a_title_a_rules_link_and_a_legend() -> None:
    from cabo_kit.table.view import RULES_URL

    # Each preset's own powers (RULES.md): the black king's power only where the preset has one.
    for preset, colours, powers, king in (
        ("deluxe", "green 0 to 4", "peek (7, 8), spy (9, 10), swap (11, 12):", None),
        ("rush", "red and black suits", "peek (7, 8), spy (9, 10), swap (J, Q), peek+swap (black K):", "peek+swap"),
        ("traveller", "a joker", "peek (7, 8), spy (9, 10), swap (J, Q), spy+swap (black K):", "spy+swap"),
    ):
        table = CardTable(preset, opponents=[1, 1], seed=1, pace=0)
        html = table.frame["html"]
        assert '<span class="cabo-title">Cabo</span>' in html
        assert f'href="{RULES_URL}#the-three-presets-at-a-glance"' in html and f"Rules ({preset})" in html
        legend = html[html.index('<details class="cabo-help">'):html.index("</details>")]
        for words in ("▴", "face up", "you may click it now", "the last move touched", "decides now", colours,
                      powers, '<span class="ck-power">peek</span>'):
            assert words in legend, (preset, words)
        assert [w for w in ("peek+swap", "spy+swap") if w in legend] == ([king] if king else []), preset
        assert "data-card" not in legend and "cabo-clickable" not in legend  # samples, not cards of the game
        assert "ck-id" not in legend


def test_without_a_rules_address_the_table_has_no_rules_link(monkeypatch: pytest.MonkeyPatch) -> None:
    """The page of `cabo-kit play` sets RULES_URL to None (its server cannot serve docs/rules.md)."""
    from cabo_kit.table import view

    monkeypatch.setattr(view, "RULES_URL", None)
    html = CardTable("rush", opponents=[1], seed=1, pace=0).frame["html"]
    assert "cabo-rules-link" not in html and "href=" not in html
    assert '<span class="cabo-rules">rush · seed 1 · round 1</span>' in html


def test_mock_patch_of_the_rules_address_s_old_place_ends_cleanly() -> None:
    """unittest.mock.patch deletes the attribute it patched when it ends: the old place puts draw's default back."""
    from unittest import mock

    from cabo_kit.table import draw, view

    with mock.patch("cabo_kit.table.view.RULES_URL", None):
        assert draw.RULES_URL is None and draw.rules_link() is None
        assert "cabo-rules-link" not in CardTable("rush", opponents=[1], seed=1, pace=0).frame["html"]
    assert view.RULES_URL == draw.RULES_URL == "../docs/rules.md"
    view.RULES_URL = "https://example.org/rules"
    del view.RULES_URL
    assert draw.rules_link() == "../docs/rules.md#the-three-presets-at-a-glance"


def test_behind_the_scoring_the_ended_round_s_piles() -> None:
    """A 3-player rush round: behind its scoring, its last pile and deck, not the next round's deal
    (already made: its first card turned up, a deck of 52 - 12 - 1)."""
    table = CardTable("rush", opponents=[1, 1], seed=7, pace=0)
    rng = random.Random(3)
    seen: Counter[str] = Counter()
    while not table.view.overlay:
        send(table, pick(table, rng, seen))
    game, view = table.game, table.view
    events = game.events_seen(table.seat)
    end = max(i for i, e in enumerate(events) if e.kind == "end")
    last = events[end - 1]  # the round ended as you exchanged your card 6 (J♣) for the drawn 4♥
    assert (last.kind, last.seat, last.target, [c.text for c in last.cards]) == ("exchange", 0, (5,), ["JC", "4H"])
    assert (view.round, game.round) == (0, 1)
    assert (view.discard_top, view.pile_size, view.deck_size) == (ck.Card.parse("JC"), 7, 31)
    assert (table.observation.top, table.observation.deck_size) == (ck.Card.parse("KC"), 39)  # the next round's
    assert 'aria-label="the discard pile, top card J♣"' in table.frame["html"] and ">31<" in table.frame["html"]


@pytest.mark.parametrize("preset, n, memory, seed", [
    ("rush", 3, "engine", 0), ("traveller", 6, "none", 0), ("deluxe", 6, "engine", 0),
    # a round ended by the move after a matched multi-exchange (its cards reach the pile as the drawn card is placed)
    ("deluxe", 2, "engine", 1), ("deluxe", 2, "engine", 7), ("deluxe", 2, "none", 1), ("deluxe", 2, "none", 7),
])
def test_behind_every_round_s_scoring_the_piles_the_engine_had(preset: str, n: int, memory: str, seed: int,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine's own pile and deck as each round ended (read as it deals the next) against what the
    table shows behind that round's scoring, over whole games (snaps, reshuffles, multi-exchange penalties)."""
    from cabo_kit.game import Game

    truth: list[tuple[ck.Card | None, int, int]] = []
    deal = Game._start_round

    def piles(game: Any) -> tuple[ck.Card | None, int, int]:
        pile = [game.know.faces[c] for c in game.know.pile]
        return pile[-1] if pile else None, len(pile) if memory == "engine" else min(1, len(pile)), len(game.deck)

    def start_round(game: Any, start: int, stack: Any) -> None:
        if game.results:  # a round ended: its pile and deck, before the next deal
            truth.append(piles(game))
        deal(game, start, stack)

    monkeypatch.setattr(Game, "_start_round", start_round)
    rules = ck.Rules.preset(preset).replace(min_players=2, end_score=300)  # more rounds
    table = CardTable(rules, opponents=[1, 2, 3, 4, 1][: n - 1], seed=seed, pace=0, memory=memory)
    rng = random.Random(seed)
    seen: Counter[str] = Counter()
    checked = 0
    for _ in range(20000):
        if table.busy:
            table.fast_forward()
        if table.view.overlay:
            view, over = table.view, table.game.is_over
            expected = piles(table.game) if over else truth[-1]  # the last round: no next deal
            assert (view.discard_top, view.pile_size, view.deck_size) == expected, (checked, table.game.results[-1].ended_by)
            checked += 1
            if over:
                break
        send(table, pick(table, rng, seen))
    assert table.game.is_over and checked == len(truth) + 1 >= 4


class _CallsCabo(ck.Bot):
    """Calls Cabo at once (else the first legal action): the next player's turn is the round's last."""

    def choose(self, observation: Any, legal_actions: Any) -> Any:
        return next((a for a in legal_actions if isinstance(a, ck.CallCabo)), legal_actions[0])


def test_a_matched_multi_exchange_that_ends_the_round_leaves_its_cards_on_the_pile() -> None:
    """Deluxe, 2 players: the bot calls Cabo, so your turn is the round's last. You hold 5 5 9 9 and
    draw a 5: Exchange your cards 1 and 2 (they match), then place the drawn 5, which ends the round.
    Behind the scoring: the two 5s on the pile over the first discard (they land as the drawn card is
    placed, a move after the exchange), the deck less the one card drawn; the engine's own fact."""
    table = CardTable("deluxe", opponents=[_CallsCabo()], seed=1, pace=0, start_player=1,
                      deck="5 5 9 9  1 2 3 4  7  5")
    for target in ("card:0:0", "card:0:1", "deck", "card:0:0", "card:0:1", "btn:confirm"):
        send(table, target)
    assert table.game.phase == "place" and table.game.caller == 1 and not table.view.overlay
    send(table, "card:0:0")
    game, view = table.game, table.view
    assert view.overlay and game.results[-1].ended_by == "cabo" and (view.round, game.round) == (0, 1)
    deck = len(table.rules.full_deck(2)) - 8 - 1 - 1
    assert (view.discard_top, view.pile_size, view.deck_size) == (ck.Card.parse("5"), 3, deck)
    assert game.last_round_piles == (ck.Card.parse("5"), 3, deck)
    assert [c.text for c in game.results[-1].final_hands[0]] == ["5", "9", "9"]
    assert 'aria-label="the discard pile, top card 5"' in table.frame["html"]
