"""The ``cabo-kit`` command line: simulate's table, its numbers, seat rotation, determinism, and usage errors."""

from __future__ import annotations

import re
from typing import Any

import pytest

import cabo_kit as ck
from cabo_kit import cli
from cabo_kit.cli import BotEntry, UsageError, game_seed, main, parse_settings, resolve_bots, simulate


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def table_rows(out: str) -> dict[str, list[str]]:
    """The bot rows of a simulate table, by bot name, split into columns."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("bot "))
    rows = {}
    for line in lines[start + 2:]:
        if not line.strip() or line.startswith("rounds:"):
            break
        cells = re.split(r"\s{2,}", line.strip())
        rows[cells[0]] = cells
    return rows


# ------------------------------------------------------------------ the table


def test_simulate_prints_a_row_per_bot_with_sensible_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "simulate", "--preset", "deluxe", "--bots", "RandomBot,GreedyBot", "--games", "10",
                         "--seed", "4", "--no-progress")
    assert code == 0, err
    assert out.splitlines()[0] == "deluxe, 2 players, 10 games, seed 4, memory engine; seats rotate every game"
    rows = table_rows(out)
    assert set(rows) == {"RandomBot", "GreedyBot"}
    header = re.split(r"\s{2,}", next(line for line in out.splitlines() if line.startswith("bot ")).strip())
    assert header[:5] == ["bot", "games", "win rate", "mean total", "Cabo calls/won"]
    rates = []
    for name, cells in rows.items():
        assert cells[1] == "10"
        rates.append(float(cells[2].rstrip("%")))
        assert 0 <= float(cells[3]) < 300  # a deluxe game ends just over 100
        calls, won = map(int, cells[4].split("/"))
        assert 0 <= won <= calls
    assert sum(rates) == pytest.approx(100.0, abs=0.2)
    # GreedyBot keeps low cards; RandomBot does not: over 10 games the difference is not subtle.
    assert float(rows["GreedyBot"][3]) < float(rows["RandomBot"][3])
    assert re.search(r"^rounds: \d+ \([\d.]+ turns each\); ended by cabo \d+", out, re.M)
    assert err == ""  # not a TTY: no progress bar


def test_simulate_counts_match_the_games_it_played() -> None:
    """The summary equals what the game records say, seat by seat, with seats rotated per game."""
    rules = ck.Rules.preset("rush")
    entries = resolve_bots("GreedyBot,RandomBot,RandomBot")
    summary = simulate(rules, entries, games=4, seed=9)
    n = len(entries)
    wins = [0.0] * n
    totals = [0] * n
    calls = [0] * n
    snaps_right = [0] * n
    rounds = 0
    for i in range(4):
        order = [(s + i) % n for s in range(n)]
        bots = [[ck.bots.GreedyBot, ck.bots.RandomBot, ck.bots.RandomBot][e]() for e in order]
        record = ck.play_game(bots, rules, game_seed(9, i))
        rounds += len(record.rounds)
        for seat, e in enumerate(order):
            totals[e] += record.totals[seat]
            if seat in record.winners:
                wins[e] += 1 / len(record.winners)
        for r in record.rounds:
            if r.caller is not None:
                calls[order[r.caller]] += 1
            for seat, e in enumerate(order):
                snaps_right[e] += r.stats[seat]["snaps_right"]
    assert [b.games for b in summary.bots] == [4, 4, 4]
    assert [b.wins for b in summary.bots] == pytest.approx(wins)
    assert [b.total for b in summary.bots] == totals
    assert [b.cabo_calls for b in summary.bots] == calls
    assert [b.snaps_right for b in summary.bots] == snaps_right
    assert summary.rounds == rounds == sum(summary.ended_by.values())


def test_seats_rotate_so_each_bot_sits_in_each_seat_equally() -> None:
    seats: dict[str, list[int]] = {"A": [], "B": [], "C": []}

    def recording(label: str) -> Any:
        class Recorder(ck.bots.RandomBot):
            def on_game_start(self, seat: int, n_players: int, rules: ck.Rules) -> None:
                seats[label].append(seat)

        return Recorder

    entries = [BotEntry(label, recording(label)) for label in seats]
    simulate(ck.Rules.preset("deluxe"), entries, games=6, seed=1)
    for label, got in seats.items():
        assert sorted(got) == [0, 0, 1, 1, 2, 2], label


def test_same_seed_same_output_and_another_seed_differs(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", "--preset", "traveller", "--bots", "greedybot,randombot,randombot", "--games", "6", "--no-progress"]
    _, first, _ = run(capsys, *argv, "--seed", "5")
    _, again, _ = run(capsys, *argv, "--seed", "5")
    _, other, _ = run(capsys, *argv, "--seed", "6")
    assert first == again
    assert first.splitlines()[1:] != other.splitlines()[1:]


def test_set_changes_the_rules_and_the_header_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "simulate", "--bots", "GreedyBot,RandomBot", "--games", "2", "--no-progress",
                         "--set", "hand_size=6", "--set", "initial_peeks=3")
    assert code == 0, err
    assert out.startswith("deluxe (hand_size=6, initial_peeks=3), 2 players")
    code, out, _ = run(capsys, "simulate", "--preset", "rush", "--bots", "GreedyBot,RandomBot", "--games", "2",
                       "--no-progress", "--set", "deck_out=end_round", "--set", "kamikaze=true")
    assert code == 0
    assert "deck_out='end_round'" in out.splitlines()[0] and "Kamikaze" in out  # the column follows the rule


def test_columns_follow_the_rules_in_play(capsys: pytest.CaptureFixture[str]) -> None:
    _, deluxe, _ = run(capsys, "simulate", "--bots", "GreedyBot,RandomBot", "--games", "2", "--no-progress")
    _, traveller, _ = run(capsys, "simulate", "--preset", "traveller", "--bots", "GreedyBot,RandomBot,RandomBot",
                          "--games", "2", "--no-progress")
    assert "Kamikaze" in deluxe and "multi tried/failed" in deluxe and "snaps" not in deluxe
    assert "Royal Roulette" in traveller and "snaps tried/right" in traveller and "Kamikaze" not in traveller


def test_memory_none_runs(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "simulate", "--bots", "GreedyBot,RandomBot", "--games", "2", "--memory", "none",
                       "--no-progress")
    assert code == 0 and "memory none" in out.splitlines()[0]


def test_names_listed_twice_get_their_own_rows(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "simulate", "--bots", "RandomBot,RandomBot,GreedyBot", "--games", "3", "--no-progress")
    assert code == 0
    assert set(table_rows(out)) == {"RandomBot", "RandomBot#2", "GreedyBot"}


def test_demo_without_a_tournament_folder_simulates_every_preset(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # An installed cabo-kit has no tournaments/demo folder: the demo falls back to simulations.
    monkeypatch.setattr(cli, "demo_folder", lambda: None)
    code, out, _ = run(capsys, "demo", "--games", "2", "--no-progress")
    assert code == 0
    heads = [line for line in out.splitlines() if "players," in line]
    assert [h.split(",")[0] for h in heads] == list(ck.PRESETS)
    assert all("4 players, 2 games" in h for h in heads)
    assert out.rstrip().splitlines()[-1].startswith("Next: cabo-kit simulate")


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.strip() == f"cabo-kit {ck.__version__}"


def test_help_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "simulate" in out and "demo" in out


# ------------------------------------------------------------------ bad input


BAD = [
    (["simulate", "--preset", "poker"], ["'poker'", "deluxe", "rush", "traveller"]),
    (["simulate", "--bots", "GreedyBot,Clever"], ["unknown bot 'Clever'", "RandomBot", "GreedyBot"]),
    (["simulate", "--bots", "GreedyBot,,RandomBot"], ["empty name", "commas"]),
    (["simulate", "--set", "handsize=6"], ["unknown rules field 'handsize'", "hand_size"]),
    (["simulate", "--set", "hand_size=six"], ["hand_size='six'", "whole number"]),
    (["simulate", "--set", "hand_size=[1"], ["not readable", "number"]),
    (["simulate", "--bots", "bots/greedy_bot.py,RandomBot"], ["built-in bots only", "duel bots/greedy_bot.py GreedyBot"]),
    (["simulate", "--set", "hand_size", "6"], ["--set 'hand_size' has no value", "--set hand_size=6"]),
    (["simulate", "--set", "snapping=maybe"], ["snapping='maybe'", "True or False"]),
    (["simulate", "--set", "caller_win_bonus=x"], ["caller_win_bonus='x'", "whole number"]),
    (["simulate", "--set", "hand_size"], ["no value", "field=value"]),
    (["simulate", "--set", "deck_out=sometimes"], ["deck_out='sometimes'", "'reshuffle'"]),
    (["simulate", "--preset", "traveller", "--bots", "GreedyBot,RandomBot"], ["3 to 6 players", "names 2"]),
    (["simulate", "--bots", ",".join(["RandomBot"] * 7)], ["2 to 6 players", "names 7"]),
    (["simulate", "--games", "0"], ["--games", "at least 1"]),
    (["simulate", "--games", "many"], ["--games", "'many' is not a whole number"]),
    (["simulate", "--memory", "total"], ["--memory", "'total'"]),
    (["simulate", "--bots", "level2"], ["level2"]),
    (["frobnicate"], ["'frobnicate'", "simulate"]),
    ([], ["simulate|demo"]),
]


@pytest.mark.parametrize("argv, words", BAD, ids=[" ".join(a) or "(nothing)" for a, _ in BAD])
def test_bad_input_exits_2_with_one_clear_line(
    argv: list[str], words: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delattr(ck.bots, "by_level", raising=False)  # level names are unknown without the ladder
    code, out, err = run(capsys, *argv, "--no-progress") if argv[:1] == ["simulate"] else run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("cabo-kit")
    assert "Traceback" not in err
    for word in words:
        assert word in err, (word, err)


def test_level_names_use_the_ladder_when_it_exists(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    ladder = {1: ck.bots.RandomBot, 2: ck.bots.GreedyBot}
    monkeypatch.setattr(ck.bots, "by_level", ladder, raising=False)
    entries = resolve_bots("Level1,level2")
    assert [e.name for e in entries] == ["level1", "level2"]
    assert isinstance(entries[0].make(), ck.bots.RandomBot) and isinstance(entries[1].make(), ck.bots.GreedyBot)
    assert "level1" in cli.available_bot_names()
    with pytest.raises(UsageError, match="level9 is not on the bot ladder"):
        resolve_bots("level9")
    monkeypatch.setattr(ck.bots, "by_level", lambda n: ladder[n], raising=False)  # a function works too
    assert isinstance(resolve_bots("level2")[0].make(), ck.bots.GreedyBot)


def test_parse_settings_reads_literals_and_words() -> None:
    assert parse_settings(["hand_size=6", "snapping=False", "royal_roulette=true", "deck_out=reshuffle",
                           "double_deck_from=None", "powers=((7, 'peek'),)"]) == {
        "hand_size": 6, "snapping": False, "royal_roulette": True, "deck_out": "reshuffle",
        "double_deck_from": None, "powers": ((7, "peek"),),
    }
    assert cli.make_rules("deluxe", {"powers": "7:peek,9:spy"}).powers == ((7, "peek"), (9, "spy"))


def test_game_seeds_are_stable_and_distinct() -> None:
    seeds = {game_seed(s, i) for s in range(5) for i in range(200)}
    assert len(seeds) == 1000
    assert game_seed(0, 0) == game_seed(0, 0) and 0 <= game_seed(0, 0) < 2**48


def test_simulate_with_too_few_bots_raises_usage_error() -> None:
    with pytest.raises(UsageError, match="for 2 to 6 players"):
        simulate(ck.Rules.preset("deluxe"), resolve_bots("GreedyBot"), games=1)


def test_commands_table_drives_the_parser() -> None:
    import argparse

    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert list(sub.choices) == list(cli.COMMANDS)
    for name, (_, _, run_command) in cli.COMMANDS.items():
        assert sub.choices[name].get_default("run") is run_command


def test_random_bot_calls_cabo_at_5_percent_at_the_end_of_a_traveller_turn() -> None:
    """simulate's Cabo column is only meaningful if RandomBot does what its docstring says:
    "calling Cabo: 5% whenever it is allowed" (traveller offers it at the end of a turn, RULES.md §2)."""
    import random

    game = ck.Game(ck.Rules.preset("traveller"), seed=1, n_players=3)
    while game.phase != "end_turn":
        seat = game.to_move[0]
        game.apply(game.legal_actions(seat)[0], seat)
    obs = game.observation(game.current)
    assert set(map(type, obs.legal_actions)) == {ck.CallCabo, ck.Pass}
    bot = ck.bots.RandomBot()
    bot.random = random.Random(7)
    calls = sum(type(bot.choose(obs, obs.legal_actions)) is ck.CallCabo for _ in range(4000))
    assert 0.03 < calls / 4000 < 0.07, f"RandomBot called Cabo in {calls / 40:.1f}% of end-of-turn decisions"


def test_without_the_report_extra_the_demo_simulates_and_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(cli, "missing_report_modules", lambda: ["pandas", "plotly"])
    assert main(["demo", "--games", "3", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "need pandas, plotly: pip install 'cabo-kit[report]'" in out
    assert "deluxe, 4 players, 3 games" in out and "traveller" in out  # the simulation demo ran instead


def test_without_the_report_extra_a_tournament_stops_with_the_install_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Any
) -> None:
    monkeypatch.setattr(cli, "missing_report_modules", lambda: ["numpy"])
    assert main(["tournament", "run", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "tournaments need numpy" in err and "cabo-kit[report]" in err
    assert not (tmp_path / "results.sqlite").exists()
