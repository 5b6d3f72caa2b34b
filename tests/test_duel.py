"""ck.duel and `cabo-kit duel`: a bot measured against built-in bots, fairly, with its interval and its faults."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import cabo_kit as ck
from cabo_kit.cli import main
from cabo_kit.tournament.duel import DuelError, duel, wilson_interval
from cabo_kit.tournament.isolation import Limits, SubmissionError
from cabo_kit.tournament.outcomes import wilson

BOTS = Path(__file__).parent / "tournament_bots"
FAST = Limits(decision_s=0.3, game_bank_s=10, memory_mb=512, cpu_s=20, log_bytes=64 * 1024)
MIRROR = "import cabo_kit as ck\n\n\nclass Mirror(ck.bots.GreedyBot):\n    pass\n"


@pytest.fixture
def mirror(tmp_path: Path) -> Path:
    """A bot file that plays exactly as the built-in GreedyBot."""
    path = tmp_path / "mirror.py"
    path.write_text(MIRROR)
    return path


def test_a_file_against_greedy_and_random_bot(mirror: Path) -> None:
    for opponent, games in (("GreedyBot", 6), ("RandomBot", 5)):
        result = duel(mirror, opponent, games=games, seed=3, limits=FAST)
        assert result.isolated and result.games == games and result.faults == {}
        assert result.low <= result.rate <= result.high
        low, high = wilson(result.wins, games)  # the report's numpy version: the two formulas agree
        assert result.low == pytest.approx(float(low)) and result.high == pytest.approx(float(high))
    assert result.rate > 0.5  # GreedyBot's play beats RandomBot


def test_duplicate_deals_make_a_bot_against_itself_exactly_even(mirror: Path) -> None:
    # Each deal is played with the bot in every seat and the same random streams per seat: a bot that plays
    # like its opponents wins exactly its even share, whatever the cards.
    assert duel(mirror, "GreedyBot", games=8, seed=5, limits=FAST).rate == 0.5
    assert duel(ck.bots.CountingBot, "CountingBot", "level3", games=6, rules="rush", seed=2).wins == 2.0


def test_the_same_seed_gives_the_same_result(mirror: Path) -> None:
    first = duel(mirror, "RandomBot", "GreedyBot", games=6, seed=11, limits=FAST, rules="traveller")
    again = duel(mirror, "RandomBot", "GreedyBot", games=6, seed=11, limits=FAST, rules="traveller")
    assert str(first) == str(again) and first.wins == again.wins


def test_the_bot_takes_every_seat_of_every_deal() -> None:
    seats: list[int] = []

    class Seated(ck.bots.GreedyBot):
        def on_game_start(self, seat: int, n_players: int, rules: ck.Rules) -> None:
            seats.append(seat)

    result = duel(Seated, "RandomBot", 1, games=7)
    assert result.games == 7 and len(seats) == 7
    assert sorted(seats[:3]) == sorted(seats[3:6]) == [0, 1, 2]
    assert "2 deals x 3 seats + 1 games of one more deal" in str(result)


def test_a_faulting_file_loses_its_games_and_is_reported(tmp_path: Path) -> None:
    result = duel(BOTS / "raises_late.py", "GreedyBot", games=4, limits=FAST)
    assert result.faults == {"error": 4} and result.rate == 0.0 and result.games == 4
    text = str(result)
    assert "Faults: 4 of 4 games lost to a fault of the bot (error 4); each counts as a loss." in text
    assert 'raises_late.py", line 13, in choose' in text and "ZeroDivisionError: planned failure" in text
    illegal = duel(BOTS / "illegal_move.py", "RandomBot", games=2, limits=FAST)
    assert illegal.faults == {"illegal": 2} and "'peek 40', which is not legal" in illegal.first_fault["illegal"]
    slow = duel(BOTS / "dozes.py", "RandomBot", games=2, limits=Limits(decision_s=0.1, game_bank_s=5))
    assert slow.faults == {"timeout": 2} and "longer than the 0.1 s limit" in str(slow)


def test_a_class_in_process_faults_too_but_an_opponent_bug_is_raised() -> None:
    class Crash(ck.Bot):
        def choose(self, observation, legal_actions):  # type: ignore[no-untyped-def]
            raise RuntimeError("my bug")

    result = duel(Crash, "GreedyBot", games=2)
    assert not result.isolated and result.faults == {"error": 2} and "RuntimeError: my bug" in str(result)
    with pytest.raises(RuntimeError, match="my bug"):
        duel(ck.bots.GreedyBot, Crash, games=1)


def test_an_interrupted_duel_keeps_the_games_played() -> None:
    class Impatient(ck.bots.GreedyBot):
        games = 0

        def on_game_start(self, seat: int, n_players: int, rules: ck.Rules) -> None:
            Impatient.games += 1
            if Impatient.games == 3:
                raise KeyboardInterrupt

    result = duel(Impatient, "RandomBot", games=6)
    assert (result.games, result.asked) == (2, 6)
    assert "Interrupted after 2 of the 6 games asked for: the numbers are for those." in str(result)


def test_bad_arguments_name_the_choices(tmp_path: Path) -> None:
    with pytest.raises(DuelError, match=r"unknown opponent 'Foo': choose RandomBot, GreedyBot, CountingBot, SearchBot, "
                                        r"or a level: 1 \(easy\)"):
        duel(ck.bots.GreedyBot, "Foo", games=1)
    with pytest.raises(DuelError, match="rush is for 2 to 6 players, but this duel seats 7"):
        duel(ck.bots.GreedyBot, *["RandomBot"] * 6, rules="rush", games=1)
    with pytest.raises(DuelError, match="no such file"):
        duel(tmp_path / "missing.py", games=1)
    broken = tmp_path / "broken.py"
    broken.write_text("class Oops(:\n")
    with pytest.raises(SubmissionError, match="syntax error in broken.py"):
        duel(broken, games=1)


def test_the_interval_is_the_reports_wilson() -> None:
    np = pytest.importorskip("numpy")
    from cabo_kit.tournament.outcomes import wilson

    for wins, games in ((0, 1), (1, 1), (3.5, 7), (37, 50), (200, 200), (61.5, 300)):
        low, high = wilson(np.float64(wins), games)
        assert wilson_interval(wins, games) == pytest.approx((float(low), float(high)), abs=1e-12)


def test_cli_prints_the_rate_the_interval_and_the_faults(mirror: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["duel", str(mirror), "GreedyBot", "--games", "4", "--no-progress"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("mirror vs GreedyBot: deluxe, 2 players, 4 games (2 deals x 2 seats")
    assert lines[0].endswith("seed 0; played in its own process, as in a tournament")
    assert lines[1] == "win rate 50.0% (2 wins in 4 games), 95% interval 15.0% to 85.0%"
    assert lines[2].startswith("Not told apart from an even match yet: the interval contains 50%.")
    assert lines[3] == "Faults: none."
    assert main(["duel", str(BOTS / "raises_late.py"), "level1", "--games", "2", "--no-progress"]) == 1
    out = capsys.readouterr().out
    assert "raises_late vs RandomBot" in out and "Faults: 2 of 2 games lost to a fault of the bot (error 2)" in out


@pytest.mark.parametrize("argv, message", [
    (["GreedBot"], "unknown opponent 'GreedBot' (did you mean GreedyBot?): choose RandomBot, GreedyBot, CountingBot"),
    (["7"], "unknown opponent '7': choose"),
    (["--games", "0"], "argument --games: 0 must be at least 1"),
    (["--preset", "rushh"], "argument --preset: invalid choice: 'rushh'"),
])
def test_cli_bad_arguments(mirror: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    assert main(["duel", str(mirror), *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cabo-kit duel") and message in err, err


def test_cli_wants_a_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["duel", "GreedyBot", "RandomBot"]) == 2
    assert "'GreedyBot' is not a bot file: give your bot's .py file" in capsys.readouterr().err


def test_import_cabo_kit_does_not_load_the_duel() -> None:
    code = "import sys, cabo_kit as ck; print('cabo_kit.tournament.duel' in sys.modules, callable(ck.duel))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True"]


def test_a_fault_in_a_hook_is_named_after_the_hook_as_in_a_tournament() -> None:
    class AtRound(ck.bots.GreedyBot):
        def on_round_start(self, observation):  # type: ignore[no-untyped-def]
            raise ValueError("round hook")

    result = duel(AtRound, "GreedyBot", games=1, rules="rush")
    assert result.faults == {"error": 1}
    assert "seat 0): on_round_start() raised:\nTraceback" in result.first_fault["error"]
