"""Isolated bots: loading submitted files, every kind of fault, no access to the engine, same play as in process.

The bot files live in tests/fault_bots/ (one per fault). Limits are short so the suite stays fast.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

import cabo_kit as ck
from cabo_kit.play import bot_random, run_game
from cabo_kit.tournament.isolation import (
    BotFault, IsolatedBot, Limits, Submission, SubmissionError, load_submission,
)

BOTS = Path(__file__).parent / "fault_bots"
FAST = Limits(decision_s=0.5, game_bank_s=20.0, memory_mb=512, cpu_s=20, log_bytes=64 * 1024, start_s=20.0)
LINUX = sys.platform.startswith("linux")
ROOT = hasattr(os, "geteuid") and os.geteuid() == 0

# Kept in this (engine) process only: a bot that finds it has read the engine's memory.
ENGINE_SECRET = "ENGINE-SECRET-" + uuid.uuid4().hex


def sub(name: str) -> Submission:
    return load_submission(BOTS / f"{name}.py", FAST)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def drive(bot: ck.Bot, preset: str = "deluxe", n: int = 3, seed: int = 1, decisions: int = 5) -> list[tuple[Any, Any]]:
    """Play ``bot`` at seat 0 against RandomBots for up to ``decisions`` of its own decisions.

    Returns (observation, action) pairs for seat 0. Faults propagate.
    """
    rules = ck.Rules.preset(preset)
    game = ck.Game(rules, seed, n)
    bots = [bot] + [ck.bots.RandomBot() for _ in range(n - 1)]
    for seat, b in enumerate(bots):
        b.random = bot_random(seed, seat)
        b.on_game_start(seat, n, rules)
    out = []
    while game.phase != "over" and len(out) < decisions:
        for seat in game.to_move:
            obs = game.observation(seat)
            action = bots[seat].choose(obs, obs.legal_actions)
            if seat == 0:
                out.append((obs, action))
            game.apply(action, seat)
    return out


def load_in_process(path: Path) -> type:
    """The bot class of a trusted test file, imported here (only for files we wrote)."""
    spec = importlib.util.spec_from_file_location(f"trusted_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return next(v for v in vars(module).values() if isinstance(v, type) and issubclass(v, ck.Bot)
                and v.__module__ == module.__name__)


def fault_of(bot: IsolatedBot, **kw: Any) -> tuple[BotFault, int]:
    """Drive the bot until it faults; return the fault and the harness pid (which must be gone)."""
    with pytest.raises(BotFault) as info:
        bot.on_game_start(0, 3, ck.Rules.preset(kw.get("preset", "deluxe")))
        pid = bot._h.proc.pid  # type: ignore[union-attr]
        drive_started(bot, **kw)
    assert bot.fault is info.value
    return info.value, pid


def drive_started(bot: IsolatedBot, preset: str = "deluxe", seed: int = 1, decisions: int = 5) -> None:
    game = ck.Game(ck.Rules.preset(preset), seed, 3)
    others = [ck.bots.RandomBot(), ck.bots.RandomBot()]
    made = 0
    while game.phase != "over" and made < decisions:
        for seat in game.to_move:
            obs = game.observation(seat)
            if seat == 0:
                action = bot.choose(obs, obs.legal_actions)
                made += 1
            else:
                action = others[seat - 1].choose(obs, obs.legal_actions)
            game.apply(action, seat)


# ---------------------------------------------------------------------- loading files


def test_load_submission_describes_a_good_file() -> None:
    s = sub("good")
    digest = __import__("hashlib").sha256((BOTS / "good.py").read_bytes()).hexdigest()
    assert (s.name, s.class_name, s.version) == ("good", "GoodBot", digest[:12])
    assert "cabo_submission" not in sys.modules  # the runner never imported it


@pytest.mark.parametrize("name, words", [
    ("bad_syntax", ["syntax error in bad_syntax.py", "SyntaxError"]),
    ("missing_import", ["failing import", "numpyy_does_not_exist", "ModuleNotFoundError"]),
    ("no_bot_class", ["no Bot subclass of its own"]),
    ("two_classes", ["several Bot subclasses (First, Second)"]),
    ("ctor_raises", ["constructor Fragile() raised", "KeyError", "missing key", "line 7"]),
])
def test_bad_files_are_rejected_with_their_reason(name: str, words: list[str]) -> None:
    with pytest.raises(SubmissionError) as info:
        sub(name)
    for word in words:
        assert word in info.value.reason, info.value.reason


def test_a_file_that_is_not_python_or_missing_is_rejected(tmp_path: Path) -> None:
    (tmp_path / "bot.txt").write_text("x")
    with pytest.raises(SubmissionError, match="not a Python file"):
        load_submission(tmp_path / "bot.txt")
    with pytest.raises(SubmissionError, match="is not a file"):
        load_submission(tmp_path / "absent.py")


def test_a_file_changed_after_loading_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "mutable.py"
    shutil.copy(BOTS / "good.py", path)
    s = load_submission(path, FAST)
    path.write_text(path.read_text() + "\n# edited\n")
    bot = IsolatedBot(s, FAST)
    with pytest.raises(BotFault, match="changed after it was loaded") as info:
        bot.on_game_start(0, 2, ck.Rules.preset("rush"))
    assert info.value.kind == "error"
    bot.close()


# ---------------------------------------------------------------------- same play as in process


@pytest.mark.parametrize("preset, n, seed", [("deluxe", 2, 3), ("rush", 3, 5), ("traveller", 4, 8)])
def test_isolated_bot_plays_the_same_game_as_in_process(preset: str, n: int, seed: int) -> None:
    rules = ck.Rules.preset(preset)
    iso = IsolatedBot(sub("good"), FAST)
    others = [ck.bots.GreedyBot() if i % 2 else ck.bots.RandomBot() for i in range(n - 1)]
    record_iso = ck.play_game([iso] + others, rules, seed=seed)
    iso.close()
    local = load_in_process(BOTS / "good.py")()
    local.name = "good"
    others = [ck.bots.GreedyBot() if i % 2 else ck.bots.RandomBot() for i in range(n - 1)]
    record_local = ck.play_game([local] + others, rules, seed=seed)
    assert record_iso.game_over and iso.decisions > 10
    assert record_iso.to_json() == record_local.to_json()


def test_a_game_loop_like_run_game_drives_isolated_bots_at_every_seat() -> None:
    rules = ck.Rules.preset("rush")
    s = sub("good")
    bots = [IsolatedBot(s, FAST) for _ in range(3)]
    game = ck.Game(rules, 12, 3)
    for seat, b in enumerate(bots):
        b.random = bot_random(12, seat)
        b.on_game_start(seat, 3, rules)
    run_game(game, bots, [b.name for b in bots])
    assert game.phase == "over"
    pids = [b._h.proc.pid for b in bots]  # type: ignore[union-attr]
    for b in bots:
        b.on_game_end(list(game.sheet.totals), list(game.sheet.winners))
        b.close()
        b.close()  # idempotent
    assert not any(alive(p) for p in pids)


@pytest.mark.parametrize("preset, memory", [("deluxe", "engine"), ("traveller", "none"), ("rush", "engine")])
def test_the_bot_process_rebuilds_each_observation_exactly(preset: str, memory: str) -> None:
    """The compact wire format carries every field: the harness's Observation equals the engine's."""
    rules = ck.Rules.preset(preset)
    iso = IsolatedBot(sub("good"), FAST)
    checked = 0
    phases = set()
    for seed in (21, 22, 23):
        game = ck.Game(rules, seed, 4, memory=memory)
        bots: list[ck.Bot] = [iso] + [ck.bots.RandomBot() for _ in range(3)]
        for seat, b in enumerate(bots):
            b.random = bot_random(seed, seat)
            b.on_game_start(seat, 4, rules)
        round_seen = -1
        while game.phase != "over":
            if game.round != round_seen:
                round_seen = game.round
                obs = game.observation(0)
                iso.on_round_start(obs)
                assert iso._echo() == obs.to_dict()
            for seat in game.to_move:
                obs = game.observation(seat)
                action = bots[seat].choose(obs, obs.legal_actions)
                if seat == 0:
                    assert iso._echo() == obs.to_dict()
                    checked += 1
                    phases.add(obs.phase)
                game.apply(action, seat)
    iso.close()
    assert checked >= 40 and len(phases) >= 3, (checked, phases)


# ---------------------------------------------------------------------- faults


def test_raising_bot_is_an_error_with_its_traceback() -> None:
    bot = IsolatedBot(sub("raises"), FAST)
    fault, pid = fault_of(bot)
    assert fault.kind == "error"
    assert "ValueError: boom: the bot's own bug" in fault.reason
    assert "raises.py" in fault.reason and "in compute" in fault.reason
    assert "harness.py" not in fault.reason
    assert not alive(pid)
    with pytest.raises(BotFault) as again:  # later calls repeat the fault until a new game starts
        bot.on_round_end(None)
    assert again.value is fault
    bot.close()


def test_hanging_bot_times_out_within_the_decision_limit() -> None:
    limits = Limits(decision_s=0.2, game_bank_s=10, memory_mb=512, cpu_s=20, log_bytes=4096)
    bot = IsolatedBot(sub("hangs"), limits)
    t0 = time.perf_counter()
    fault, pid = fault_of(bot)
    assert time.perf_counter() - t0 < 5.0
    assert fault.kind == "timeout" and "0.2 s limit" in fault.reason
    assert not alive(pid)
    bot.close()


def test_the_game_time_bank_caps_the_total(tmp_path: Path) -> None:
    path = tmp_path / "slow.py"
    path.write_text("import time\nimport cabo_kit as ck\n\nclass Slow(ck.Bot):\n"
                    "    def choose(self, obs, legal):\n        time.sleep(0.12)\n        return legal[0]\n")
    limits = Limits(decision_s=0.5, game_bank_s=0.3, memory_mb=512, cpu_s=20, log_bytes=4096)
    bot = IsolatedBot(load_submission(path, limits), limits)
    fault, _ = fault_of(bot)
    assert fault.kind == "timeout" and "time bank" in fault.reason
    assert 0.24 <= bot.time_used < 0.6
    bot.close()


def test_cpu_backstop_kills_a_spinner_as_a_crash() -> None:
    limits = Limits(decision_s=6.0, game_bank_s=10, memory_mb=512, cpu_s=1, log_bytes=4096)
    bot = IsolatedBot(sub("hangs"), limits)
    fault, pid = fault_of(bot)
    assert fault.kind == "crash" and "SIGXCPU" in fault.reason and "CPU time" in fault.reason
    assert not alive(pid)
    bot.close()


def test_illegal_action_is_illegal() -> None:
    bot = IsolatedBot(sub("illegal"), FAST)
    fault, pid = fault_of(bot)
    assert fault.kind == "illegal" and "'swap 0 9:9'" in fault.reason and "not legal" in fault.reason
    assert not alive(pid)
    bot.close()


@pytest.mark.parametrize("answer, words", [("42", "not an action"), ("'fly away'", "is not an action"),
                                           ("None", "not an action")])
def test_answers_that_are_not_actions_are_illegal(tmp_path: Path, answer: str, words: str) -> None:
    path = tmp_path / "odd.py"
    path.write_text(f"import cabo_kit as ck\n\nclass Odd(ck.Bot):\n    def choose(self, obs, legal):\n"
                    f"        return {answer}\n")
    bot = IsolatedBot(load_submission(path, FAST), FAST)
    fault, _ = fault_of(bot)
    assert fault.kind == "illegal" and words in fault.reason
    bot.close()


def test_bot_that_kills_its_process_is_a_crash_and_a_fresh_bot_works() -> None:
    bot = IsolatedBot(sub("kills_itself"), FAST)
    fault, pid = fault_of(bot)
    assert fault.kind == "crash" and "exited with code 3" in fault.reason
    assert not alive(pid)
    bot.close()
    good = IsolatedBot(sub("good"), FAST)
    assert len(drive(good)) == 5
    good.close()


def test_next_game_starts_a_fresh_process_after_a_fault() -> None:
    bot = IsolatedBot(sub("raises"), FAST)
    first, pid = fault_of(bot)
    assert first.kind == "error"
    actions = drive(bot, decisions=1)  # on_game_start restarts it; the fresh bot's first decision is fine
    assert len(actions) == 1 and bot.fault is None and bot._h.proc.pid != pid  # type: ignore[union-attr]
    bot.close()


def test_memory_hog_survives_a_caught_memory_error_then_faults(tmp_path: Path) -> None:
    bot = IsolatedBot(sub("memory_hog"), FAST, log_path=tmp_path / "hog.log")
    fault, pid = fault_of(bot)
    assert bot.decisions == 1  # the first decision (MemoryError caught) was answered
    assert "survived a MemoryError" in (tmp_path / "hog.log").read_text()
    assert fault.kind == "error" and "MemoryError" in fault.reason
    assert not alive(pid)
    bot.close()


def test_printing_goes_to_a_capped_log_and_never_into_the_channel(tmp_path: Path) -> None:
    log = tmp_path / "chatty.log"
    bot = IsolatedBot(sub("prints_a_lot"), FAST, log_path=log)
    pairs = drive(bot, decisions=3)
    bot.close()
    assert [a for _, a in pairs] == [obs.legal_actions[-1] for obs, _ in pairs]
    size = log.stat().st_size
    assert FAST.log_bytes - 200 <= size <= FAST.log_bytes
    assert "spam spam" in log.read_text()


def test_a_crafted_pickle_is_never_unpickled() -> None:
    marker = Path(f"/tmp/cabo-pickle-pwned-{os.getpid()}")
    marker.unlink(missing_ok=True)
    bot = IsolatedBot(sub("pickle_reply"), FAST)
    fault, pid = fault_of(bot)
    assert fault.kind == "error" and "not a JSON reply" in fault.reason
    assert not marker.exists()
    assert not alive(pid)
    bot.close()


def test_oversized_reply_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "flood.py"
    path.write_text("import os, sys\nimport cabo_kit as ck\n\nclass Flood(ck.Bot):\n"
                    "    def choose(self, obs, legal):\n        os.write(int(sys.argv[4]), b'[' * 200000)\n"
                    "        return legal[0]\n")
    bot = IsolatedBot(load_submission(path, FAST), FAST)
    fault, _ = fault_of(bot)
    assert fault.kind == "error" and "longer than 65536 bytes" in fault.reason
    bot.close()


def test_hooks_are_forwarded_and_their_faults_reported(tmp_path: Path) -> None:
    path = tmp_path / "hooks.py"
    path.write_text(
        "import cabo_kit as ck\n\nclass Hooks(ck.Bot):\n"
        "    def on_game_start(self, seat, n, rules):\n        print('start', seat, n, rules.name, self.random.random())\n"
        "    def on_round_start(self, obs):\n        print('round', obs.round, obs.seat)\n"
        "    def on_round_end(self, result):\n        print('end', result.index, result.ended_by)\n"
        "    def on_game_end(self, totals, winners):\n        raise RuntimeError('bad hook')\n"
        "    def choose(self, obs, legal):\n        return legal[0]\n")
    log = tmp_path / "hooks.log"
    bot = IsolatedBot(load_submission(path, FAST), FAST, log_path=log)
    with pytest.raises(BotFault) as info:
        ck.play_game([bot, ck.bots.RandomBot()], ck.Rules.preset("rush"), seed=2)
    bot.close()
    assert info.value.kind == "error" and "on_game_end() raised" in info.value.reason and "bad hook" in info.value.reason
    text = log.read_text()
    expected_random = bot_random(2, 0).random()
    assert f"start 0 2 rush {expected_random}" in text
    assert "round 0 0" in text and re.search(r"end 0 (cabo|deck|empty_hand|turn_limit)", text)


def test_gc_and_proc_spy_finds_nothing_of_the_engine(tmp_path: Path) -> None:
    secret_holder = {"token": ENGINE_SECRET}  # noqa: F841 - lives in the engine while the bot spies
    log = tmp_path / "spy.log"
    bot = IsolatedBot(sub("gc_spy"), FAST, log_path=log)
    rules = ck.Rules.preset("deluxe")
    game = ck.Game(rules, 7, 3)
    hidden = [[game.know.faces[c].text for c in game.know.hands[s]] for s in (1, 2)]
    bots: list[ck.Bot] = [bot, ck.bots.RandomBot(), ck.bots.RandomBot()]
    for seat, b in enumerate(bots):
        b.random = bot_random(7, seat)
        b.on_game_start(seat, 3, rules)
    obs = game.observation(0)
    bot.choose(obs, obs.legal_actions)
    bot.close()
    line = next(x for x in log.read_text().splitlines() if x.startswith("SPY-REPORT "))
    report = json.loads(line[len("SPY-REPORT "):])
    assert report["objects_seen"] > 1000  # it really walked the heap
    assert report["engine_objects"] == []
    assert report["secret_in_gc"] == 0
    for hand in hidden:
        assert hand not in report["card_sequences"]
    assert not re.search(r"[1-9]\d* secrets", str(report["mem"]))
    if LINUX:
        assert report["mem"] in ("PermissionError", "FileNotFoundError"), report
        assert report["fork"] != "allowed"
    if ROOT:
        assert report["uid"] != 0
        assert report["signal_engine"] == "PermissionError"
        assert report["shadow"] == "PermissionError"


def test_close_kills_the_process_and_the_runner_survives_every_fault() -> None:
    bot = IsolatedBot(sub("good"), FAST)
    drive(bot, decisions=2)
    pid = bot._h.proc.pid  # type: ignore[union-attr]
    assert alive(pid)
    bot.close()
    assert not alive(pid)
    from cabo_kit.tournament import isolation

    assert pid not in isolation._live


# ---------------------------------------------------------------------- check_bot

from cabo_kit.tournament.check import check_bot, check_bot_cli  # noqa: E402

CHECK = Limits(decision_s=0.3, game_bank_s=10, memory_mb=512, cpu_s=20, log_bytes=64 * 1024)


def test_check_bot_passes_a_good_file_played_isolated() -> None:
    report = check_bot(BOTS / "good.py", games=3, limits=CHECK)
    assert report.ok and report.isolated and report.games == 4 and report.decisions > 20, str(report)
    assert "No problems found" in str(report)


def test_check_bot_reports_an_exception_with_its_traceback_once_for_all_games() -> None:
    report = check_bot(BOTS / "raises.py", games=3, limits=CHECK)
    assert not report.ok and len(report.problems) == 1
    text = report.problems[0]
    assert text.startswith("In game 1 (deluxe, 2 players, seed 0, your seat 0), choose() at round 1")
    assert 'raises.py", line 16, in compute' in text and text.endswith("(3 times in all: games 1, 2 and 3.)")


def test_check_bot_reports_rejected_files_and_cli_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    assert check_bot_cli(BOTS / "two_classes.py") == 1
    out = capsys.readouterr().out
    assert "rejected" in out and "several Bot subclasses (First, Second)" in out


def test_check_bot_reports_timeouts_of_an_isolated_file() -> None:
    report = check_bot(BOTS / "hangs.py", games=1, limits=Limits(decision_s=0.2, game_bank_s=5, cpu_s=20))
    assert len(report.problems) == 1 and "too slow" in report.problems[0] and "0.2 s limit" in report.problems[0]


class Moody(ck.Bot):
    """Nondeterministic: draws from a generator the game does not seed."""

    def __init__(self) -> None:
        super().__init__()
        import random

        self.own = random.Random()

    def choose(self, observation, legal_actions):  # type: ignore[no-untyped-def]
        return legal_actions[self.own.randrange(len(legal_actions))]


class Sleepy(ck.Bot):
    calls = 0

    def choose(self, observation, legal_actions):  # type: ignore[no-untyped-def]
        self.calls += 1
        if self.calls == 3:
            time.sleep(0.06)
        return legal_actions[0]


def test_check_bot_in_process_finds_nondeterminism_and_slow_decisions() -> None:
    report = check_bot(Moody, games=1)
    assert len(report.problems) == 1 and "not deterministic" in report.problems[0]
    assert "its decision" in report.problems[0] and "self.random" in report.problems[0]
    slow = check_bot(Sleepy(), games=1, replays=0, limits=Limits(decision_s=0.05))
    assert not slow.ok and "took longer than the 0.05 s limit" in slow.problems[0]
    assert check_bot(ck.bots.RandomBot, games=3).ok


# ---------------------------------------------------------------------- the harness server

ORPHAN_SCRIPT = """
import sys, time
from cabo_kit.tournament import isolation
import cabo_kit as ck
bot = isolation.IsolatedBot(isolation.load_submission(sys.argv[1]))
bot.on_game_start(0, 3, ck.Rules.preset("rush"))
server = isolation._the_server
print(bot._h.proc.pid, server.proc.pid if server is not None else -1, flush=True)
time.sleep(60)
"""


def gone(pid: int) -> bool:
    """Dead or a zombie (an orphan waits for init to reap it)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return not alive(pid)


@pytest.mark.skipif(not LINUX, reason="the harness server is Linux-only")
def test_bot_processes_come_from_a_clean_server_and_die_with_the_engine(tmp_path: Path) -> None:
    import signal
    import subprocess

    from cabo_kit.tournament import isolation

    assert isolation.USE_SERVER
    bot = IsolatedBot(sub("good"), FAST)
    drive(bot, decisions=2)
    pid = bot._h.proc.pid  # type: ignore[union-attr]
    server = isolation._the_server
    assert server is not None
    with open(f"/proc/{pid}/stat") as f:
        parent = int(f.read().rsplit(")", 1)[1].split()[1])
    # Forked from the server (a fresh interpreter that never held engine state), never from the engine.
    assert parent == server.proc.pid != os.getpid()
    with open(f"/proc/{server.proc.pid}/cmdline", "rb") as f:
        assert b"zygote" in f.read()
    first = pid
    bot.on_game_start(0, 3, ck.Rules.preset("deluxe"))  # a new game: a new process
    assert bot._h.proc.pid != first and gone(first)  # type: ignore[union-attr]
    bot.close()

    # The engine is killed -9: its server sees end of file and takes every bot process with it.
    engine = subprocess.Popen([sys.executable, "-c", ORPHAN_SCRIPT, str(BOTS / "good.py")], stdout=subprocess.PIPE,
                              cwd=str(Path(__file__).resolve().parents[1]))
    assert engine.stdout is not None
    bot_pid, server_pid = map(int, engine.stdout.readline().split())
    assert server_pid > 0 and alive(bot_pid) and alive(server_pid)
    engine.send_signal(signal.SIGKILL)
    engine.wait()
    deadline = time.time() + 5
    while time.time() < deadline and not (gone(bot_pid) and gone(server_pid)):
        time.sleep(0.02)
    assert gone(bot_pid) and gone(server_pid)


def test_without_the_server_each_bot_process_is_a_fresh_interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    from cabo_kit.tournament import isolation

    monkeypatch.setattr(isolation, "USE_SERVER", False)
    bot = IsolatedBot(sub("good"), FAST)
    moves = drive(bot, decisions=3)
    assert len(moves) == 3
    proc = bot._h.proc  # type: ignore[union-attr]
    assert isinstance(proc, __import__("subprocess").Popen)
    bot.close()
    assert not alive(proc.pid)


def test_mid_game_hooks_need_no_round_trip_but_their_faults_and_time_still_count(tmp_path: Path) -> None:
    path = tmp_path / "slow_hook.py"
    path.write_text(
        "import time\nimport cabo_kit as ck\n\nclass SlowHook(ck.Bot):\n"
        "    def on_round_start(self, obs):\n        time.sleep(0.3)\n"
        "    def choose(self, obs, legal):\n        return legal[0]\n")
    bot = IsolatedBot(load_submission(path, FAST), FAST)
    t0 = time.perf_counter()
    bot.on_game_start(0, 3, ck.Rules.preset("rush"))
    game = ck.Game(ck.Rules.preset("rush"), 1, 3)
    bot.on_round_start(game.observation(0))
    assert time.perf_counter() - t0 < 0.25  # the hook's request is sent, not waited for
    assert bot.time_used < 0.25
    obs = game.observation(0)
    bot.choose(obs, obs.legal_actions)  # waits for the hook, then the decision: within 2 x decision_s
    assert bot.time_used >= 0.3  # the hook's time is charged to the bot
    bot.close()

    path.write_text(
        "import cabo_kit as ck\n\nclass BadHook(ck.Bot):\n"
        "    def on_round_start(self, obs):\n        raise KeyError('round hook')\n"
        "    def choose(self, obs, legal):\n        return legal[0]\n")
    bot = IsolatedBot(load_submission(path, FAST), FAST)
    with pytest.raises(BotFault) as info:
        ck.play_game([bot, ck.bots.RandomBot()], ck.Rules.preset("rush"), seed=3)
    bot.close()
    assert info.value.kind == "error" and "on_round_start() raised" in info.value.reason
    assert "KeyError: 'round hook'" in info.value.reason


# ---------------------------------------------------------------------- speed paths keep the guarantees


def test_a_deeply_nested_reply_is_an_error_not_an_engine_crash(tmp_path: Path) -> None:
    path = tmp_path / "nest.py"
    path.write_text("import os, sys\nimport cabo_kit as ck\n\nclass Nest(ck.Bot):\n"
                    "    def choose(self, obs, legal):\n"
                    "        os.write(int(sys.argv[4]), b'[' * 30000 + b']' * 30000 + b'\\n')\n"
                    "        return legal[0]\n")
    bot = IsolatedBot(load_submission(path, FAST), FAST)
    fault, _ = fault_of(bot)
    assert fault.kind == "error" and "JSON" in fault.reason
    bot.close()


def test_without_msgspec_both_sides_fall_back_to_the_standard_json(monkeypatch: pytest.MonkeyPatch) -> None:
    from cabo_kit.tournament import harness, isolation

    monkeypatch.setitem(sys.modules, "msgspec", None)  # "import msgspec" now fails
    assert harness._decoder() is json.loads
    monkeypatch.setattr(isolation, "_msgspec", None)
    encode, decode = isolation._make_codec()
    assert decode is json.loads and json.loads(encode({"a": [1, "é", None]})) == {"a": [1, "é", None]}
    monkeypatch.setattr(isolation, "_encode", encode)
    monkeypatch.setattr(isolation, "_decode", decode)
    rules = ck.Rules.preset("traveller")
    iso = IsolatedBot(sub("good"), FAST)
    record_iso = ck.play_game([iso, ck.bots.GreedyBot(), ck.bots.RandomBot()], rules, seed=5)
    iso.close()
    local = load_in_process(BOTS / "good.py")()
    local.name = "good"
    record_local = ck.play_game([local, ck.bots.GreedyBot(), ck.bots.RandomBot()], rules, seed=5)
    assert iso.decisions > 10 and record_iso.to_json() == record_local.to_json()


def test_prestart_loads_the_next_games_process_ahead_and_close_kills_it() -> None:
    rules = ck.Rules.preset("rush")
    bot = IsolatedBot(sub("good"), FAST)
    bot.prestart()
    ahead = bot._next[0].proc.pid  # type: ignore[index]
    assert bot._h is None and alive(ahead)
    bot.on_game_start(0, 3, rules)
    assert bot._h is not None and bot._h.proc.pid == ahead and bot._next is None
    game = ck.Game(rules, 2, 3)
    obs = game.observation(game.to_move[0])
    assert bot.choose(obs, obs.legal_actions) in obs.legal_actions
    bot.prestart()  # the game's process ends, the next one starts
    second = bot._next[0].proc.pid  # type: ignore[index]
    assert second != ahead and bot._h is None
    bot.close()
    assert not alive(second)
    lazy = IsolatedBot(sub("good"), FAST)
    lazy.prestart()
    lazy.random = bot_random(2, 0)
    assert lazy.choose(obs, obs.legal_actions) in obs.legal_actions  # the first call waits for it to be ready
    lazy.close()


@pytest.mark.skipif(not LINUX, reason="the harness server is Linux-only")
def test_between_games_the_old_process_is_killed_and_reaped_by_the_server() -> None:
    rules = ck.Rules.preset("rush")
    bot = IsolatedBot(sub("good"), FAST)
    bot.on_game_start(0, 3, rules)
    first = bot._h.proc.pid  # type: ignore[union-attr]
    bot.on_game_start(0, 3, rules)  # a new game: a fresh process; the old one is killed, not waited for
    deadline = time.time() + 5
    while time.time() < deadline and not gone(first):
        time.sleep(0.01)
    assert gone(first)
    bot.on_game_start(0, 3, rules)  # the server reaps released processes at its next request
    assert not os.path.exists(f"/proc/{first}")
    bot.close()


@pytest.mark.parametrize("preset, memory", [("deluxe", "engine"), ("rush", "engine"), ("traveller", "none")])
def test_the_typed_and_the_plain_request_parsers_rebuild_the_same_observations(preset: str, memory: str) -> None:
    """The bot process parses an observation request with msgspec's typed parser (tuples, events and cards
    built in C) or, without msgspec, with the standard json plus ``ObsDecoder.typed``: both give the engine's
    observation, decision after decision, with the legal-action sets defined once and then named by number."""
    from cabo_kit.tournament import harness, isolation

    rules = ck.Rules.preset(preset)
    parse = harness.typed_parser()
    assert parse is not None  # msgspec is installed in the test environment
    for seed in (3, 4):
        game = ck.Game(rules, seed, 4, memory=memory)
        encoder = isolation._ObsEncoder()
        typed, plain = harness.ObsDecoder(), harness.ObsDecoder()
        bots = [ck.bots.RandomBot() for _ in range(4)]
        for seat, b in enumerate(bots):
            b.random = bot_random(seed, seat)
        numbered = 0
        while game.phase != "over":
            for seat in game.to_move:
                obs = game.observation(seat)
                if seat == 0:
                    body, _texts = encoder.encode(obs, obs.legal_actions)
                    numbered += body[9].__class__ is int  # the legal actions, named by number
                    data = isolation._encode(body)
                    from_typed = typed.decode(parse(data))
                    from_plain = plain.decode(plain.typed(json.loads(data)))
                    assert from_typed.to_dict() == from_plain.to_dict() == obs.to_dict()
                    assert from_typed == obs and from_plain == obs  # every field, in place, of the same types
                    assert [type(x) for x in from_typed] == [type(x) for x in obs]
                game.apply(bots[seat].choose(obs, obs.legal_actions), seat)
        assert numbered > 5


def test_a_reply_to_no_pending_request_is_skipped_if_older_and_a_fault_if_ahead(tmp_path: Path) -> None:
    """The engine matches replies to requests by id: a stale one (an id already answered) is ignored, one
    naming a request not yet sent is a protocol error, whichever path the decision takes."""
    stale = tmp_path / "stale.py"
    stale.write_text("import os, sys\nimport cabo_kit as ck\nclass Stale(ck.Bot):\n"
                     "    def choose(self, obs, legal):\n"
                     "        os.write(int(sys.argv[4]), b'{\"i\":1}\\n')\n"
                     "        return legal[0]\n")
    bot = IsolatedBot(load_submission(stale, FAST), FAST)
    assert len(drive(bot, decisions=4)) == 4 and bot.fault is None
    bot.close()
    ahead = tmp_path / "ahead.py"
    ahead.write_text("import os, sys\nimport cabo_kit as ck\nclass Ahead(ck.Bot):\n"
                     "    def choose(self, obs, legal):\n"
                     "        os.write(int(sys.argv[4]), b'{\"i\":999999,\"a\":\"deck\"}\\n')\n"
                     "        return legal[0]\n")
    bot = IsolatedBot(load_submission(ahead, FAST), FAST)
    with pytest.raises(BotFault) as info:
        drive(bot, decisions=4)
    assert info.value.kind == "error" and "out of turn" in info.value.reason
    bot.close()


# ---------------------------------------------------------------------- CPU: one core, fewer costs per start


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity on this platform")
def test_bot_processes_run_on_the_engines_cores(tmp_path: Path) -> None:
    """Pinned (as a pool worker is), the engine's bots share its core; they take turns with it anyway."""
    path = tmp_path / "where.py"
    path.write_text("import os\nimport cabo_kit as ck\n\nclass Where(ck.Bot):\n"
                    "    def __init__(self):\n        super().__init__()\n"
                    "        print('cores', sorted(os.sched_getaffinity(0)), flush=True)\n"
                    "    def choose(self, obs, legal):\n        return legal[0]\n")
    before = os.sched_getaffinity(0)
    core = max(before)
    try:
        os.sched_setaffinity(0, {core})
        bot = IsolatedBot(load_submission(path, FAST), FAST)
        drive(bot, decisions=2)
        assert bot._h is not None and bot._h.spin_under == 0  # one core: no spinning for the reply
        assert f"cores [{core}]" in bot.log_text
        bot.close()
    finally:
        os.sched_setaffinity(0, before)
    bot = IsolatedBot(load_submission(path, FAST), FAST)
    drive(bot, decisions=1)
    assert bot._h is not None and (bot._h.spin_under > 0) == (len(before) > 1)
    bot.close()


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity on this platform")
def test_pool_workers_are_pinned_to_one_core_each() -> None:
    from cabo_kit.tournament.executors import LocalExecutor

    with LocalExecutor(2, pin=True) as ex:
        cores = list(ex.run(os.sched_getaffinity, [0] * 6))
    assert all(len(c) == 1 for c in cores)
    with LocalExecutor(1, pin=False) as ex:
        assert list(ex.run(os.sched_getaffinity, [0])) == [os.sched_getaffinity(0)]


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2,
                    reason="needs CPU affinity and two cores")
def test_local_dask_workers_are_pinned_to_one_core_each_with_their_task_threads() -> None:
    pytest.importorskip("distributed")
    from cabo_kit.tournament.executors import DaskExecutor

    ex = DaskExecutor(len(os.sched_getaffinity(0)))
    try:
        cores = list(ex.run(os.sched_getaffinity, [0] * 4))  # called in the worker's task thread
    finally:
        ex.close()
    assert all(len(c) == 1 for c in cores)


def test_cpu_used_counts_the_engine_the_server_and_ended_bot_processes() -> None:
    from cabo_kit.tournament import isolation

    bot = IsolatedBot(sub("good"), FAST)
    drive(bot, decisions=1)  # the server (when used) is running now
    before = isolation.cpu_used()
    drive(bot, decisions=20)
    bot.close()
    after = isolation.cpu_used()
    assert after["engine"] > before["engine"]
    assert after["bots"] > before["bots"]  # the closed bot's whole life, start to exit
    if isolation.USE_SERVER:
        assert after["server"] > before["server"]


@pytest.mark.parametrize("source", [
    "import os, sys\nfrom collections import deque, abc as a  # x\nimport cabo_kit as ck\n",
    "from cabo_kit.bots import GreedyBot\n\nclass S(GreedyBot):\n    pass\n",
    "import os; import json\n",                      # a statement after ";": parsed
    "x = 1  # important\nimport os\n",              # "import" inside a word: parsed
    "'''\nimport antigravity\n'''\n",               # in a string: parsed (and never preloaded)
    "from os import (path,\n    sep)\n",             # parentheses: parsed
    "def f():\n    import xml.dom.minidom\n",       # not loaded yet: parsed
    "from . import sibling\n", "from os import *\n", "import email.mime as m\n",
])
def test_the_quick_import_check_only_skips_sources_whose_imports_are_loaded(source: str) -> None:
    """The bot process skips parsing its source only when every import it names is loaded already (what
    the parsed path would preload is then nothing): the same modules are importable after the uid drop."""
    import ast

    from cabo_kit.tournament import harness

    names = harness._imported_names(ast.parse(source))
    if harness._imports_loaded(source):
        for name in names:
            parent, _, leaf = name.rpartition(".")
            assert name in sys.modules or (parent in sys.modules and leaf in vars(sys.modules[parent]))


def test_preset_rules_are_found_equal_to_parsing_them() -> None:
    from cabo_kit.tournament import harness

    harness.warm_caches()
    for preset in ("deluxe", "rush", "traveller"):
        data = json.loads(json.dumps(ck.Rules.preset(preset).to_dict()))
        assert harness._rules(data) == ck.Rules.from_dict(data)
    custom = json.loads(json.dumps(ck.Rules.preset("rush").replace(hand_size=6).to_dict()))
    assert harness._rules(custom) == ck.Rules.from_dict(custom) != ck.Rules.preset("rush")


def test_quiet_hooks_go_out_with_the_next_call_and_run_before_it(tmp_path: Path) -> None:
    """A mid-game hook wakes the bot's process only with the next ordinary request (one write, hooks first)."""
    path = tmp_path / "order.py"
    path.write_text(
        "import cabo_kit as ck\n\nclass Order(ck.Bot):\n"
        "    def on_round_start(self, obs):\n        print('round', obs.round, flush=True)\n"
        "    def on_round_end(self, result):\n        print('end', result.index, flush=True)\n"
        "    def choose(self, obs, legal):\n        print('choose', flush=True)\n        return legal[0]\n")
    bot = IsolatedBot(load_submission(path, FAST), FAST)
    rules = ck.Rules.preset("rush")
    bot.on_game_start(0, 3, rules)
    game = ck.Game(rules, 1, 3)
    bot.on_round_start(game.observation(0))
    time.sleep(0.05)
    assert "round" not in bot.log_text  # not sent yet
    obs = game.observation(0)
    bot.choose(obs, obs.legal_actions)
    assert bot.log_text.split() == ["round", "0", "choose"]
    record = ck.play_game([bot, ck.bots.RandomBot(), ck.bots.RandomBot()], rules, seed=4)
    lines = bot.log_text.splitlines()
    assert lines.count("choose") == sum(1 for a in record.actions if a[0] == 0) + 1
    assert lines[-1] == f"end {len(record.rounds) - 1}"  # the last round's end went out with on_game_end
    bot.close()
