"""check_bot's summary and the name clashes a tournament would refuse (the newcomer's walk-through found both)."""

from __future__ import annotations

from pathlib import Path

from cabo_kit.tournament.check import check_bot
from cabo_kit.tournament.isolation import Limits

CHECK = Limits(decision_s=0.5, game_bank_s=10, memory_mb=512, cpu_s=20, log_bytes=64 * 1024)
SUBCLASS = "from cabo_kit.bots import RandomBot as _Base\n\n\nclass Mine(_Base):\n    pass\n"


def test_a_file_named_like_the_default_reference_bot_is_a_problem(tmp_path: Path) -> None:
    path = tmp_path / "RandomBot.py"
    path.write_text(SUBCLASS)
    report = check_bot(path, games=1, replays=0, limits=CHECK)
    assert not report.ok
    assert any("is the name of the built-in reference bot RandomBot" in p and "my_randombot.py" in p
               for p in report.problems), report.problems


def test_a_file_named_like_another_built_in_bot_gets_a_note(tmp_path: Path) -> None:
    path = tmp_path / "GreedyBot.py"
    path.write_text(SUBCLASS)
    report = check_bot(path, games=1, replays=0, limits=CHECK)
    assert report.ok, report.problems  # only a tournament that adds GreedyBot refuses it
    assert any(n.startswith("Note: The file's name 'GreedyBot.py'") for n in report.notes), report.notes


def test_the_summary_does_not_claim_games_that_were_not_played(tmp_path: Path) -> None:
    empty = tmp_path / "empty.py"
    empty.write_text("x = 1\n")
    assert str(check_bot(empty, limits=CHECK)).splitlines()[0] == "empty.py: not played."
    crashes = tmp_path / "crashes.py"
    crashes.write_text("import cabo_kit as ck\n\n\nclass Crash(ck.Bot):\n"
                       "    def choose(self, observation, legal_actions):\n        raise RuntimeError('boom')\n")
    first = str(check_bot(crashes, games=2, replays=0, limits=CHECK)).splitlines()[0]
    assert first.startswith("crashes (Crash): 2 games started") and "none reached a decision" in first, first
