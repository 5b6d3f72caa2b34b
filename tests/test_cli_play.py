"""``cabo-kit play``: the options reach the page through the environment, bad ones fail in the terminal,
and the Voila command is right (no server is started here; tests/browser serves the page for real)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import pytest

import cabo_kit as ck
from cabo_kit import cli
from cabo_kit.cli import PLAY_CELL, UsageError, build_parser, main, play_command, play_options


@pytest.fixture(autouse=True)
def _signals_as_in_a_terminal() -> Any:
    """Ctrl+C and a closed terminal act as in a terminal, also when the suite itself runs in the background
    (`cmd &` or nohup ignore SIGINT/SIGHUP, children inherit that, and `cabo-kit play` keeps a signal it
    was started ignoring, as a background job should)."""
    import signal

    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGHUP)
    if before[0] == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if before[1] == signal.SIG_IGN:
        signal.signal(signal.SIGHUP, signal.SIG_DFL)
    yield
    signal.signal(signal.SIGINT, before[0])
    signal.signal(signal.SIGHUP, before[1])

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "play.ipynb"


def parse(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["play", *argv])


class FakePopen:
    """Stands in for subprocess.Popen: records the command and 'serves' until wait() returns."""

    calls: list[tuple[list[str], dict[str, str]]] = []

    def __init__(self, argv: list[str], env: dict[str, str], **kwargs: Any) -> None:
        FakePopen.calls.append((argv, env))

    def wait(self, timeout: float | None = None) -> int:
        return 0

    def poll(self) -> int:
        return 0


@pytest.fixture
def fake_popen(monkeypatch: pytest.MonkeyPatch) -> type[FakePopen]:
    import subprocess

    FakePopen.calls = []
    monkeypatch.setattr(subprocess, "Popen", FakePopen)
    return FakePopen


def test_defaults_are_deluxe_against_levels_2_3_4_in_seat_0() -> None:
    options = play_options({})
    assert options["rules"] == ck.Rules.preset("deluxe")
    assert options["opponents"] == [2, 3, 4]
    assert (options["seat"], options["seed"], options["memory"], options["pace"]) == (0, None, "engine", 0.6)


def test_the_command_line_reaches_the_page_through_the_environment() -> None:
    argv, env = play_command(parse("--preset", "rush", "--opponents", "1,hard,GreedyBot", "--seat", "2",
                                   "--seed", "11", "--memory", "none", "--pace", "0", "--port", "9123",
                                   "--no-browser"))
    assert argv[:4] == [sys.executable, "-m", "voila", str(NOTEBOOK)]
    assert "--port=9123" in argv and "--no-browser" in argv and "--Voila.ip=127.0.0.1" in argv
    options = play_options(env)  # what the page's cell will call
    assert options["rules"] == ck.Rules.preset("rush")
    assert options["opponents"][:2] == [1, 4] and isinstance(options["opponents"][2], ck.bots.GreedyBot)
    assert (options["seat"], options["seed"], options["memory"], options["pace"]) == (2, 11, "none", 0.0)


def test_without_port_and_flag_voila_picks_the_port_and_opens_the_browser() -> None:
    argv, env = play_command(parse())
    assert not any(a.startswith("--port") for a in argv) and "--no-browser" not in argv
    assert env["CABO_KIT_SEED"] == "" and play_options(env)["seed"] is None


def test_seat_none_watches_the_bots_and_they_fill_the_table() -> None:
    options = play_options({"CABO_KIT_SEAT": "none", "CABO_KIT_OPPONENTS": "1,2"})
    assert options["seat"] is None and options["opponents"] == [1, 2]


@pytest.mark.parametrize("env, message", [
    ({"CABO_KIT_OPPONENTS": "2,foo"}, "--opponents: 'foo' is not a bot"),
    ({"CABO_KIT_OPPONENTS": "1,1,1,1,1,1"}, "deluxe is for 2 to 6 players, but this table has 7"),
    ({"CABO_KIT_SEAT": "4", "CABO_KIT_OPPONENTS": "1,2,3"}, "--seat 4: a table of 4 players has seats 0 to 3"),
    ({"CABO_KIT_SEAT": "first"}, "--seat 'first' is not a whole number"),
    ({"CABO_KIT_MEMORY": "some"}, "--memory 'some'"),
    ({"CABO_KIT_PACE": "-1"}, "--pace -1.0: seconds per bot move cannot be negative"),
    ({"CABO_KIT_PRESET": "poker"}, "fix the --preset"),
])
def test_bad_options_name_the_option_and_the_fix(env: dict[str, str], message: str) -> None:
    with pytest.raises(UsageError) as info:
        play_options(env)
    assert message in str(info.value)


def test_a_bad_option_fails_in_the_terminal_before_any_server(fake_popen: type[FakePopen],
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--opponents", "2,foo"]) == 2
    assert "cabo-kit play: --opponents: 'foo' is not a bot" in capsys.readouterr().err
    assert fake_popen.calls == []


def test_play_runs_voila_with_the_options(fake_popen: type[FakePopen], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--opponents", "3", "--seed", "5", "--no-browser"]) == 0
    [(argv, env)] = fake_popen.calls
    assert argv[1:3] == ["-m", "voila"] and "--no-browser" in argv
    assert env["CABO_KIT_OPPONENTS"] == "3" and env["CABO_KIT_SEED"] == "5"
    assert "Ctrl+C stops it" in capsys.readouterr().out


def test_without_voila_the_message_names_the_extra(monkeypatch: pytest.MonkeyPatch, fake_popen: type[FakePopen],
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "voila" else real(name, *a))
    assert main(["play"]) == 2
    err = capsys.readouterr().err
    assert "needs voila" in err and 'pip install "cabo-kit[notebook]"' in err
    assert fake_popen.calls == []


def code_of(path: Path) -> str:
    cells = json.loads(path.read_text("utf-8"))["cells"]
    return "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")


def test_the_page_is_one_quiet_cell_equal_to_the_installed_fallback(monkeypatch: pytest.MonkeyPatch,
                                                                  tmp_path: Path) -> None:
    assert code_of(NOTEBOOK) == PLAY_CELL
    assert cli.play_notebook() == NOTEBOOK
    # An installed wheel has no notebooks/ folder: play writes the same page to a temporary folder.
    import tempfile

    monkeypatch.setattr(cli, "__file__", str(tmp_path / "site-packages" / "cabo_kit" / "cli.py"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    copy = cli.play_notebook()
    assert copy.parent.parent == tmp_path and copy.name == "play.ipynb"
    assert code_of(copy) == PLAY_CELL and json.loads(copy.read_text("utf-8"))["nbformat"] == 4


_tree = cli._descendants  # (PID, start time) of a process's descendants, from /proc
_start_time = cli._started


def _port_open(port: int) -> bool:
    import socket

    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_a_signal_stops_the_server_and_its_kernel(signame: str, tmp_path: Path) -> None:
    """Ctrl+C (SIGINT, exit 130), `kill PID` (SIGTERM) or a closed terminal (SIGHUP) stop Voila and its
    kernel: the port is free and no process of the server is left, within a few seconds."""
    import os
    import signal
    import socket
    import subprocess
    import time
    import urllib.request

    pytest.importorskip("voila")
    if not Path("/proc/self/stat").exists():
        pytest.skip("reads the process tree from /proc (Linux)")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=str(root), JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"))
    play = subprocess.Popen([sys.executable, "-m", "cabo_kit.cli", "play", "--no-browser", f"--port={port}",
                             "--pace", "0", "--seed", "1"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    tree: list[tuple[int, str]] = []
    try:
        deadline = time.monotonic() + 60
        while not _port_open(port):
            assert play.poll() is None and time.monotonic() < deadline, "cabo-kit play did not start serving"
            time.sleep(0.1)
        urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=60).read()  # the page starts a kernel
        tree = _tree(play.pid)
        assert any("ipykernel" in Path(f"/proc/{pid}/cmdline").read_text() for pid, _ in tree), tree
        start = time.monotonic()
        play.send_signal(getattr(signal, signame))
        assert play.wait(timeout=15) == 128 + getattr(signal, signame)
        while time.monotonic() - start < 5 and (_port_open(port) or any(_start_time(p) == t for p, t in tree)):
            time.sleep(0.1)
        assert not _port_open(port), f"the port is still served {time.monotonic() - start:.1f} s after {signame}"
        left = [p for p, t in tree if _start_time(p) == t]
        assert not left, f"processes of the server left running after {signame}: {left}"
    finally:
        if play.poll() is None:
            play.kill()
        for pid, started in tree:
            if _start_time(pid) == started:
                os.kill(pid, signal.SIGKILL)


def _sleeper(tmp_path: Path, *, ignore_term: bool = False) -> tuple[list[str], Path]:
    """A stand-in server: writes its PID to a file once running (and ignoring SIGTERM if asked), then sleeps."""
    ready = tmp_path / "ready"
    code = ("import signal, sys, time, pathlib\n"
            + ("signal.signal(signal.SIGTERM, signal.SIG_IGN)\n" if ignore_term else "")
            + "import os\npathlib.Path(sys.argv[1]).write_text(str(os.getpid()))\ntime.sleep(60)\n")
    return [sys.executable, "-c", code, str(ready)], ready


def test_a_signal_while_the_server_starts_stops_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """SIGTERM in the moment the server is being started is not lost: once it runs it is stopped
    (no orphan), and the handlers in place before are back."""
    import os
    import signal
    import subprocess

    started: list[subprocess.Popen[bytes]] = []

    class Starting(subprocess.Popen):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            started.append(self)
            os.kill(os.getpid(), signal.SIGTERM)  # arrives before serve knows its server

    def reached_the_test(signum: int, _frame: Any) -> None:
        raise AssertionError("the SIGTERM reached the caller's handler, not serve's")

    monkeypatch.setattr(subprocess, "Popen", Starting)
    argv, _ = _sleeper(tmp_path)
    before = signal.signal(signal.SIGTERM, reached_the_test), signal.getsignal(signal.SIGINT)
    try:
        assert cli.serve(argv, dict(os.environ), grace=5) == 128 + signal.SIGTERM
        assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) == (reached_the_test, before[1])
    finally:
        signal.signal(signal.SIGTERM, before[0])
        for server in started:
            if server.poll() is None:
                server.kill()
    assert started[0].poll() is not None  # stopped, not left running


def test_a_second_ctrl_c_while_stopping_kills_the_server_now(tmp_path: Path) -> None:
    """A server that ignores SIGTERM would be given the whole grace; a second Ctrl+C kills it at once,
    and cabo-kit itself is not killed by it (it still ends with KeyboardInterrupt, exit 130)."""
    import os
    import signal
    import threading
    import time

    argv, ready = _sleeper(tmp_path, ignore_term=True)

    def interrupt_twice() -> None:
        deadline = time.monotonic() + 30
        while not ready.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.5)
        os.kill(os.getpid(), signal.SIGINT)

    thread = threading.Thread(target=interrupt_twice, daemon=True)
    before = signal.getsignal(signal.SIGINT)
    start = time.monotonic()
    thread.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            cli.serve(argv, dict(os.environ), grace=60)
        assert time.monotonic() - start < 20  # well under the grace of 60 s
        thread.join(5)
        assert signal.getsignal(signal.SIGINT) == before
        assert cli._started(int(ready.read_text())) == "", "the server was left running"
    finally:
        if ready.exists() and cli._started(pid := int(ready.read_text())):
            os.kill(pid, signal.SIGKILL)
