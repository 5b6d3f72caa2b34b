"""Every fault is replayable: the game's record holds what the bot was given, and `tournament repro` replays the
faulted game with the bot's current file, saying "still fails" on the broken file and "fixed" once the file is fixed.

One test per kind of fault (exception, illegal answer, timeout, bad type, and a failing hook), the store of
tests/data/store_v1 (written by cabo-kit 8b557dd) opened unchanged and its faults replayed, the `--pytest` file run
by plain pytest, and the bots' and the teacher's pages' fault entries.
"""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import cabo_kit as ck
from cabo_kit.cli import main
from cabo_kit.observation import Observation
from cabo_kit.tournament import repro as package_repro
from cabo_kit.tournament.replay_fault import ReproError, find_fault, repro, short_ids, write_pytest
from cabo_kit.tournament.runner import run_tournament
from cabo_kit.tournament.store import DB_NAME, SCHEMA_VERSION, Store, load_faults, load_frames, load_record

V1 = Path(__file__).parent / "data" / "store_v1"
BOTS = Path(__file__).parent / "tournament_bots"

TOML = """presets = ["rush"]
table_sizes = [2]
games = 1
reference = ["RandomBot"]

[limits]
decision_s = 0.25
"""

HEAD = "import time\nimport cabo_kit as ck\n\n\n"

# Each kind: (broken file, fixed file, what the fault's sentence says). Both files answer every decision
# before the faulted one alike, so the replay reaches it.
KINDS = {
    "exception": (
        HEAD + "class Bot2(ck.Bot):\n    n = 0\n\n    def choose(self, obs, legal):\n        self.n += 1\n"
        "        if self.n == 2:\n            return self.helper(obs)\n        return legal[0]\n\n"
        "    def helper(self, obs):\n        return {}['missing']\n",
        "choose() raised KeyError: 'missing' (mine.py, line 15)",
    ),
    "illegal": (
        HEAD + "class Bot2(ck.Bot):\n    n = 0\n\n    def choose(self, obs, legal):\n        self.n += 1\n"
        "        if self.n == 2:\n            return ck.Swap(0, 9, 9)\n        return legal[0]\n",
        "choose() returned 'swap 0 9:9'",
    ),
    "timeout": (
        HEAD + "class Bot2(ck.Bot):\n    n = 0\n\n    def choose(self, obs, legal):\n        self.n += 1\n"
        "        if self.n == 2:\n            time.sleep(30)\n        return legal[0]\n",
        "choose() took longer than the 0.25 s limit",
    ),
    "bad type": (
        HEAD + "class Bot2(ck.SimpleBot):\n    def draw(self, obs):\n        return True\n",
        "draw() returned True",
    ),
    "failing hook": (
        HEAD + "class Bot2(ck.Bot):\n    def on_round_start(self, obs):\n        raise RuntimeError('not ready')\n\n"
        "    def choose(self, obs, legal):\n        return legal[0]\n",
        "on_round_start() raised RuntimeError: not ready (mine.py, line 7)",
    ),
    "failing start": (
        HEAD + "class Bot2(ck.Bot):\n    def on_game_start(self, seat, n, rules):\n        self.plan = rules.nope\n\n"
        "    def choose(self, obs, legal):\n        return legal[0]\n",
        "on_game_start() raised AttributeError: ",
    ),
}
FIXES = {
    "exception": ("return self.helper(obs)", "return legal[0]"),
    "illegal": ("return ck.Swap(0, 9, 9)", "return legal[0]"),
    "timeout": ("time.sleep(30)", "pass"),
    "bad type": ("return True", "return 'deck'"),
    "failing hook": ("raise RuntimeError('not ready')", "pass"),
    "failing start": ("rules.nope", "None"),
}
EXPECTED_KIND = {"exception": "error", "illegal": "illegal", "timeout": "timeout", "bad type": "error", "failing hook": "error",
                 "failing start": "error"}


def _class(tmp_path: Path, source: str) -> Path:
    folder = tmp_path / "class"
    (folder / "bots").mkdir(parents=True)
    (folder / "tournament.toml").write_text(TOML)
    (folder / "bots" / "mine.py").write_text(source)
    summary = run_tournament(folder, workers=1, progress=False, out=None)
    assert summary.played == 2 and summary.faults >= 1
    return folder


@pytest.mark.parametrize("kind", list(KINDS))
def test_each_kind_of_fault_still_fails_on_the_broken_file_and_is_fixed_after_the_fix(tmp_path: Path, kind: str) -> None:
    source, sentence = KINDS[kind]
    folder = _class(tmp_path, source)
    fault = find_fault(folder, "mine")
    assert fault.kind == EXPECTED_KIND[kind] and fault.hook is not None
    broken = repro(folder, "mine")
    assert broken.status == "fails" and not broken.fixed
    assert broken.message.startswith("the faulted decision still fails: ") and sentence in broken.message, broken.message
    assert broken.version == fault.version  # the very file that played
    old, new = FIXES[kind]
    bot = folder / "bots" / "mine.py"
    bot.write_text(source.replace(old, new))
    fixed = repro(folder, fault.game_id[:8])
    assert fixed.status == "fixed", fixed.message
    assert fixed.version != fault.version
    if kind == "failing start":
        by_seat = {f.seat: repro(folder, f.game_id) for f in load_faults(folder)}
        # Seat 1 failed before anyone answered: the record ends there, and so does the replay.
        assert by_seat[1].message == ("fixed: on_game_start() no longer fails (the tournament's game stopped there, "
                                      "at round 1, turn 0, phase snap, so the replay ends)")
        fixed = by_seat[0]  # seat 0 answers first: its first decision is replayed
    assert fixed.answer is not None
    assert fixed.observation is not None and fixed.answer in fixed.observation.legal_actions
    assert fixed.message.startswith("fixed: ") and f"answers {fixed.answer} (legal)" in fixed.message
    if kind in ("failing hook", "failing start"):
        assert fixed.message.startswith(f"fixed: {fault.hook} no longer fails, and at the decision after it")


def test_the_record_holds_what_the_bot_was_given_and_the_replay_gives_it_again(tmp_path: Path) -> None:
    folder = _class(tmp_path, KINDS["illegal"][0])
    faults = load_faults(folder)
    assert len(faults) == 2 and {f.seat for f in faults} == {0, 1}
    for f in faults:
        assert f.hook == "choose()" and f.kind == "illegal" and f.bot == "mine"
        assert f.preset == "rush" and f.table_size == 2
        record = load_record(folder, f.game_id)
        assert record.seed == f.deal_seed
        assert record.info["fault"] == {"seat": f.seat, "bot": "mine", "kind": "illegal", "reason": f.reason}
        # The record ends at the faulted call: what the bot was given is the record's view of that seat there.
        given = record.view(f.seat, len(record.actions))
        replayed = repro(folder, f.game_id).observation
        assert replayed is not None and replayed.to_dict() == given.to_dict()
        assert given.seat == f.seat and given.legal_actions and isinstance(given, Observation)


def test_an_earlier_answer_that_changed_is_named_with_the_record_s_answer(tmp_path: Path) -> None:
    source = KINDS["exception"][0]
    folder = _class(tmp_path, source)
    (folder / "bots" / "mine.py").write_text(source.replace("        return legal[0]\n\n", "        return legal[-1]\n\n"))
    result = repro(folder, "mine")
    assert result.status == "differs" and result.recorded is not None and result.answer != result.recorded
    assert result.message.startswith("your bot's earlier answers now differ from the record at round 1, turn 0")
    assert f"it answered {result.answer}, the record has {result.recorded}" in result.message
    assert "cannot go on faithfully" in result.message
    # A file given with --file is replayed instead of the one in bots/.
    other = tmp_path / "elsewhere.py"
    other.write_text(source.replace("return self.helper(obs)", "return legal[0]"))
    assert repro(folder, "mine", file=other).status == "fixed"


def test_faults_are_named_by_a_game_id_prefix_or_a_bot_and_a_bad_name_lists_the_choices(tmp_path: Path) -> None:
    folder = _class(tmp_path, KINDS["exception"][0])
    faults = load_faults(folder)
    ids = short_ids([f.game_id for f in faults])
    assert all(len(v) >= 8 for v in ids.values())
    assert find_fault(folder, faults[1].game_id[:6].upper()).game_id == faults[1].game_id
    assert find_fault(folder, "mine").game_id == faults[0].game_id
    with pytest.raises(ReproError, match=r"no fault 'nobody'.*by a bot's name \(faulted: mine\)"):
        find_fault(folder, "nobody")
    with pytest.raises(ReproError, match="at least 4 hex digits"):
        find_fault(folder, faults[0].game_id[:3])
    # A reference bot's fault cannot be replayed from a file: pretend RandomBot faulted.
    con = sqlite3.connect(folder / DB_NAME)
    con.execute("UPDATE seats SET status='error', fault='x' WHERE game_id=? AND bot='RandomBot'", (faults[0].game_id,))
    con.commit()
    con.close()
    with pytest.raises(ReproError, match="RandomBot is a built-in reference bot"):
        repro(folder, "RandomBot")
    # The package-level name is the function, whichever way it was imported.
    assert callable(ck.tournament.repro) and callable(package_repro) and package_repro is repro


def test_a_store_written_by_8b557dd_opens_without_losing_a_game_and_its_faults_replay(tmp_path: Path) -> None:
    folder = tmp_path / "old"
    shutil.copytree(V1, folder)
    (folder / "bots").mkdir()
    for name in ("raises_late.py", "steady.py"):  # the files that played (same versions)
        shutil.copy(BOTS / name, folder / "bots" / name)
    con = sqlite3.connect(folder / DB_NAME)
    assert con.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone() == ("1",)
    con.close()
    before = load_frames(folder, current_only=False)
    Store(folder / DB_NAME).close()  # the writer's open changes nothing stored
    con = sqlite3.connect(folder / DB_NAME)
    assert con.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone() == (str(SCHEMA_VERSION),)
    con.close()
    after = load_frames(folder, current_only=False)
    assert before[0].equals(after[0]) and before[1].equals(after[1])
    faults = load_faults(folder)
    assert len(faults) == 4 and all(f.hook == "choose()" and f.bot == "raises_late" for f in faults)
    result = repro(folder, faults[0].game_id[:8])  # from the record alone
    assert result.status == "fails" and result.version == faults[0].version
    assert result.message == ("the faulted decision still fails: choose() raised ZeroDivisionError: planned failure "
                              "in choose (raises_late.py, line 13)")
    run_tournament(folder, workers=1, progress=False, out=None)  # a run on the migrated store keeps every old game
    assert set(before[0].game_id) <= set(load_frames(folder, current_only=False)[0].game_id)


def test_cli_repro_prints_the_replay_and_its_pytest_file_fails_until_the_fix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = KINDS["exception"][0]
    folder = _class(tmp_path, source)
    gid = load_faults(folder)[0].game_id
    test_file = folder / "test_fault.py"
    assert main(["tournament", "repro", str(folder), gid[:8], "--pytest", str(test_file)]) == 1
    out = capsys.readouterr().out
    assert f"fault {gid[:8]}: mine (seat 0)" in out and "what your bot was given there:" in out
    assert "the faulted decision still fails: choose() raised KeyError: 'missing' (mine.py, line 15)" in out
    assert 'File "' in out and f"wrote {test_file}" in out
    text = test_file.read_text()  # the whole id: a later run may add a fault with the same first digits
    assert f"result = repro(FOLDER, {gid!r}, file=FILE)" in text and f"Replays fault {gid[:8]} of" in text
    assert f"Written by: cabo-kit tournament repro {folder} {gid} --pytest {test_file}" in text
    spaced = write_pytest(folder / "my tests" / "t.py", folder, gid[:8], file=folder / "bots" / "mine.py")
    assert f"--file {folder}/bots/mine.py --pytest '{folder}/my tests/t.py'" in spaced.read_text()  # shlex-quoted

    def pytest_in_class() -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                               test_file.name], cwd=folder, capture_output=True, text=True, timeout=120)

    failed = pytest_in_class()
    assert failed.returncode == 1 and "the faulted decision still fails: choose() raised KeyError" in failed.stdout
    (folder / "bots" / "mine.py").write_text(source.replace("return self.helper(obs)", "return legal[0]"))
    passed = pytest_in_class()
    assert passed.returncode == 0, passed.stdout
    assert main(["tournament", "repro", str(folder), "mine"]) == 0
    assert "fixed: at the faulted decision (round 1" in capsys.readouterr().out
    assert main(["tournament", "repro", str(folder), "zzzz"]) == 2
    assert "no fault 'zzzz'" in capsys.readouterr().err


def test_the_bot_page_and_the_teacher_page_show_the_repro_command_for_each_fault(tmp_path: Path) -> None:
    from cabo_kit.tournament.runner import write_outputs

    folder = _class(tmp_path, KINDS["illegal"][0])
    write_outputs(folder, out=None)
    public = (folder / "report.html").read_text(encoding="utf-8")
    mine = (folder / "bot-pages" / "mine.html").read_text(encoding="utf-8")
    teacher = (folder / "teacher.html").read_text(encoding="utf-8")
    for f in load_faults(folder):
        # the bot's page names the folder only (a student gets it), the teacher's page its whole path
        assert f"<code>cabo-kit tournament repro class {f.game_id[:8]}</code>" in mine
        assert f"<code>cabo-kit tournament repro {folder} {f.game_id[:8]}</code>" in teacher
    assert "tournament repro" not in public and str(folder) not in public
