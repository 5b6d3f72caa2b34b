"""Issue 18 end to end, as a teacher runs it: a small class with a copied classmate, a renamed reference bot
and a slow file, through the commands of docs/teaching.md.

One class folder goes through every step in order (each test uses the state the one before left): the
slow file checked with the class's settings, the estimate against the run, the copies, the public report,
a late file with a precision target and an anchor, and the grades.
"""

from __future__ import annotations

import csv
import re
import shutil
import sys
import time
from pathlib import Path

import pytest

import cabo_kit
from cabo_kit.cli import main
from cabo_kit.tournament import grades
from cabo_kit.tournament.runner import estimate_tournament, run_tournament
from cabo_kit.tournament.store import DB_NAME, load_frames

ROOT = Path(__file__).resolve().parent.parent
CLASS = ROOT / "tests" / "class_bots"
STUDENTS = {"ana": "good.py", "ben": "copy_of_good.py", "cyd": "counting_renamed.py", "dot": "naive_low.py"}

BASE = """\
presets = ["rush"]
table_sizes = [3]
games = 6
seed = 18
anchor = "GreedyBot"
reference = ["RandomBot"]
"""
LIMITS = """\
[limits]                 # generous: a timeout on a busy machine would change the results
decision_s = 10.0
game_bank_s = 120.0
"""
TOML = BASE + LIMITS
PRECISION = "precision = 150\nmax_games = 60\n"


@pytest.fixture(scope="module")
def klass(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("class-2026")
    (folder / "bots").mkdir()
    for student, style in STUDENTS.items():
        shutil.copy(CLASS / style, folder / "bots" / f"{student}.py")
    (folder / "tournament.toml").write_text(TOML)
    return folder


def _elo(folder: Path) -> dict[str, float]:
    with open(folder / "leaderboard.csv", newline="") as f:
        return {r["bot"]: float(r["elo"]) for r in csv.DictReader(f)}


def _interval(folder: Path) -> dict[str, tuple[float, float]]:
    with open(folder / "leaderboard.csv", newline="") as f:
        return {r["bot"]: (float(r["elo_low"]), float(r["elo_high"])) for r in csv.DictReader(f)}


def test_1_the_check_with_the_class_settings_warns_about_the_slow_file(klass: Path, capsys) -> None:
    slow = ROOT / "tests" / "student_bots" / "monte_carlo.py"  # 0.1 s a decision
    code = main(["check-bot", str(slow), "--class", str(klass), "--games", "2", "--quiet"])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "Checked with the settings of" in out and "rush" in out
    assert "far slower than the reference bots" in out and "file class" in out, out


def test_2_the_estimate_is_within_a_factor_2_of_the_run(klass: Path, capsys) -> None:
    est = estimate_tournament(klass, workers=2, out=None)
    assert not (klass / DB_NAME).exists()  # the sample is not stored
    started = time.perf_counter()
    summary = run_tournament(klass, workers=2, progress=False, out=None)
    took = time.perf_counter() - started
    assert summary.played == est.games > 0
    assert 0.5 <= est.total_seconds / took <= 2.0, (est.total_seconds, took)
    assert main(["tournament", "report", str(klass)]) == 0
    capsys.readouterr()


def test_3_the_copies_are_flagged_and_independent_files_are_not(klass: Path, capsys) -> None:
    assert main(["tournament", "copies", str(klass)]) == 0
    out = capsys.readouterr().out
    flagged = [line for line in out.splitlines() if "%" in line]
    assert any("ana" in line and "ben" in line for line in flagged), out
    assert any("cyd" in line and "CountingBot" in line for line in flagged), out
    assert not any("dot" in line for line in flagged), out
    teacher = (klass / "teacher.html").read_text()
    assert "CountingBot" in teacher and "Possible copies" in teacher


def test_4_the_public_report_shows_no_source_no_traceback_and_no_path(klass: Path) -> None:
    # without the plotly.js library the page embeds (its own code has the word "Traceback")
    report = re.sub(r'<script type="text/javascript">.*?</script>', "", (klass / "report.html").read_text(),
                    count=1, flags=re.S)
    assert "Elo" in report and "ana" in report
    for student, style in STUDENTS.items():
        source = (CLASS / style).read_text().splitlines()
        # a few distinctive lines of each file: none may appear on the page shared with the class
        for line in [s.strip() for s in source if len(s.strip()) > 30][:5]:
            assert line not in report, (student, line)
    for place in (str(klass), str(klass.parent), str(Path(cabo_kit.__file__).parent), str(Path.home()), sys.prefix):
        assert place not in report, place
    assert "Traceback" not in report and "copies" not in report.lower()
    # each author's page quotes only their own bot, and no path of this machine either
    for page in (klass / "bot-pages").glob("*.html"):
        text = page.read_text()
        for place in (str(klass), str(Path(cabo_kit.__file__).parent), str(Path.home()), sys.prefix):
            assert place not in text, (page.name, place)


def test_5_a_late_file_adds_its_games_and_the_anchor_keeps_the_others(klass: Path) -> None:
    (klass / "tournament.toml").write_text(BASE + PRECISION + LIMITS)
    run_tournament(klass, workers=2, progress=False, out=None)  # the precision target, before the late file
    assert main(["tournament", "report", str(klass)]) == 0
    before, interval = _elo(klass), _interval(klass)
    stored = load_frames(klass / DB_NAME)[1]["game_id"].nunique()
    shutil.copy(CLASS / "naive_first.py", klass / "bots" / "eve.py")  # late
    late = run_tournament(klass, workers=2, progress=False, out=None)
    assert main(["tournament", "report", str(klass)]) == 0
    seats = load_frames(klass / DB_NAME)[1]
    eves = seats.loc[seats["bot"] == "eve", "game_id"].nunique()
    # eve's own games, and of the others at most as many again: never a re-plan of the stored games
    assert eves >= 6 and late.played <= 2 * eves and late.played < stored, (late.played, eves, stored)
    after = _elo(klass)
    assert after["GreedyBot"] == before["GreedyBot"] == 1000.0
    # Under the anchor an unchanged bot moves only by what its new games (tables with eve) tell: its new
    # estimate stays inside its earlier 95% interval. The anchor itself does not move at all.
    for bot in STUDENTS:
        low, high = interval[bot]
        assert low <= after[bot] <= high, (bot, before[bot], after[bot], interval[bot])


def test_6_the_grades_csv_has_a_row_per_student(klass: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setattr(grades, "BATCH_DEALS", 4)
    monkeypatch.setattr(grades, "MAX_GAMES", 16)
    (klass / "tournament.toml").write_text(BASE + PRECISION + 'grading = ["GreedyBot"]\n' + LIMITS)
    assert main(["tournament", "grades", str(klass)]) == 0
    capsys.readouterr()
    with open(klass / "grades.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert sorted(r["bot"] for r in rows) == sorted([*STUDENTS, "eve"])
    assert all(r["vs_GreedyBot"] in ("above", "level", "below") for r in rows), rows
    with open(klass / "leaderboard.csv", newline="") as f:
        board = list(csv.DictReader(f))
    assert any(r.get("vs GreedyBot", "").split(" ")[0] in ("above", "level", "below") for r in board)
