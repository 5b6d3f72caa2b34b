"""Servers and a browser for the card table's real-browser tests (tests/browser) and
benchmarks/table_latency.py.

Voila and JupyterLab run on free loopback ports with their own config, runtime, data and
settings folders, serve a temporary copy of the notebooks (JupyterLab must never autosave into
the repo), and are stopped by their own PID. Chromium is Debian's (``/usr/bin/chromium``),
driven by Python Playwright; ``playwright install`` is never needed.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"  # screenshots; gitignored
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# What Debian's chromium needs here: root (no sandbox), no GPU, no display, no network.
CHROMIUM_FLAGS = [
    "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic",
]
INSTALL_HINT = "install chromium (apt-get install chromium, or run make test, which does it as root)"


def in_ci() -> bool:
    """True under CI=true: the browser tests must then run, never skip."""
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def missing_browser_parts() -> list[str]:
    """What the browser tests lack on this machine, each naming its fix (empty: all there)."""
    import importlib.util

    missing = []
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        missing.append(f"chromium is not installed: {INSTALL_HINT}")
    for module, extra in (("playwright", "browser"), ("voila", "notebook"), ("jupyterlab", "notebook")):
        if importlib.util.find_spec(module) is None:
            missing.append(f"{module} is not installed: pip install -e '.[{extra}]' (make test does it)")
    return missing


def require_browser() -> None:
    """Skip the calling test when a part is missing (the reason names the fix); under CI=true fail instead."""
    import pytest

    missing = missing_browser_parts()
    if not missing:
        return
    reason = "; ".join(missing)
    if in_ci():
        pytest.fail(f"CI=true, so the browser tests must run, but {reason}", pytrace=False)
    pytest.skip(f"browser tests skipped: {reason}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def copy_notebooks(target: Path) -> Path:
    """A copy of notebooks/ to serve: a server may write into what it serves, the repo must not change."""
    shutil.copytree(NOTEBOOKS, target, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    return target


def jupyter_env(home: Path, **extra: str) -> dict[str, str]:
    """This environment with Jupyter's folders inside ``home``: no user config or state leaks in or out."""
    env = dict(os.environ)
    for name, sub in (("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_RUNTIME_DIR", "runtime"),
                      ("JUPYTER_DATA_DIR", "data"), ("JUPYTERLAB_SETTINGS_DIR", "lab-settings"),
                      ("JUPYTERLAB_WORKSPACES_DIR", "lab-workspaces"), ("IPYTHONDIR", "ipython")):
        (home / sub).mkdir(parents=True, exist_ok=True)
        env[name] = str(home / sub)
    env.update(extra)
    return env


class Server:
    """A server process in its own process group, its output in a log file; stopped by its PID."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], log: Path, cwd: Path) -> None:
        self.name, self.log = name, log
        self._out = open(log, "wb")
        self.proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=self._out, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)

    def output(self) -> str:
        return self.log.read_text("utf-8", "replace")[-3000:]

    def wait_until(self, ready: Any, timeout: float = 60.0) -> None:
        """Poll ``ready()`` until it is true; fail with the server's log if it exits or takes too long."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited with status {self.proc.returncode}:\n{self.output()}")
            try:
                if ready():
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"{self.name} did not start within {timeout:.0f} s:\n{self.output()}")

    def stop(self) -> None:
        """SIGTERM (the server shuts its kernels down), then kill any of its processes still running."""
        children = _descendants(self.proc.pid)
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        for pid, started in children:  # kernels run in sessions of their own: a process-group kill would miss them
            if _started(pid) == started:  # still the same process, not a new one that reused the PID
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        self._out.close()


def _started(pid: int) -> str | None:
    """A process's start time (Linux /proc), which tells it from a later process with the same PID."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def _descendants(pid: int) -> list[tuple[int, str | None]]:
    """(PID, start time) of a process's children, grandchildren, ... (Linux /proc; empty elsewhere)."""
    try:
        children = [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []
    return [(c, _started(c)) for c in children] + [d for c in children for d in _descendants(c)]


def port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


@contextmanager
def voila_server(notebook: Path, home: Path, *, seed: int | None = 1, pace: float = 0.0,
                 opponents: str = "2,3,4", preset: str = "deluxe", seat: str = "0") -> Iterator[str]:
    """Serve ``notebook`` as ``cabo-kit play`` does (its command and environment); yields the page's URL."""
    from cabo_kit.cli import build_parser, play_command

    port = free_port()
    words = ["play", "--preset", preset, "--opponents", opponents, "--seat", seat, "--pace", str(pace),
             "--port", str(port), "--no-browser"]
    if seed is not None:
        words += ["--seed", str(seed)]
    argv, env = play_command(build_parser().parse_args(words), notebook=notebook)
    argv += ["--Voila.port_retries=0"]
    home.mkdir(parents=True, exist_ok=True)
    env = {**jupyter_env(home), **{k: v for k, v in env.items() if k.startswith("CABO_KIT_")}}
    server = Server("Voila", argv, env, home / "voila.log", cwd=notebook.parent)
    try:
        server.wait_until(lambda: port_open(port))
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.stop()


def _write_lab_settings(settings: Path) -> None:
    # No news toast over the widgets, no update check, and no autosave.
    for plugin, values in (("@jupyterlab/apputils-extension/notification",
                            {"fetchNews": "false", "checkForUpdates": False}),
                           ("@jupyterlab/docmanager-extension/plugin", {"autosave": False})):
        path = settings / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values), "utf-8")


@contextmanager
def lab_server(root: Path, home: Path, **cabo_env: str) -> Iterator[tuple[str, str]]:
    """JupyterLab serving ``root``; yields (base URL, token). ``cabo_env`` sets CABO_KIT_* for its kernels."""
    port, token = free_port(), secrets.token_hex(16)
    home.mkdir(parents=True, exist_ok=True)
    env = jupyter_env(home, **cabo_env)
    _write_lab_settings(Path(env["JUPYTERLAB_SETTINGS_DIR"]))
    argv = [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
            "--ServerApp.port_retries=0", "--allow-root", f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={root}", "--LabApp.news_url=None",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    server = Server("JupyterLab", argv, env, home / "lab.log", cwd=root)
    base = f"http://127.0.0.1:{port}"
    try:
        server.wait_until(lambda: urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=1).status == 200)
        yield base, token
    finally:
        server.stop()


def delete_sessions(base: str, token: str) -> None:
    """Shut down every kernel session of a JupyterLab server (kernels outlive the page)."""
    with urllib.request.urlopen(f"{base}/api/sessions?token={token}", timeout=5) as reply:
        sessions = json.load(reply)
    for session in sessions:
        request = urllib.request.Request(f"{base}/api/sessions/{session['id']}?token={token}", method="DELETE")
        urllib.request.urlopen(request, timeout=10).close()


@contextmanager
def chromium() -> Iterator[Any]:
    """Debian's chromium, headless, through Playwright (never ``playwright install``)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        try:
            yield browser
        finally:
            browser.close()


# ------------------------------------------------------------------ driving the card table in a page

# Every box of the table that must hold its text: (selector, what it is).
BOXES = [(".cabo-seat-head", "a seat's header"), (".cabo-seat", "a seat"), (".ck-power", "a power label"),
         (".cabo-status", "the status line"), (".cabo-header", "the title bar"), (".cabo-summary", "the scoring"),
         (".cabo-legend li", "a legend line")]

# The texts that run out of their box (page.evaluate(OVERFLOW_JS, BOXES)): an empty list when all fit.
OVERFLOW_JS = """(boxes) => {
  const out = [];
  for (const [sel, what] of boxes) {
    for (const e of document.querySelectorAll(sel)) {
      if (e.scrollWidth > e.clientWidth + 1) out.push(`${what} (${sel}): ${e.scrollWidth} > ${e.clientWidth}: ${e.innerText.slice(0, 60)}`);
    }
  }
  // a seat's header, a summary's table: inside their parent's box
  for (const [inner, outer] of [[".cabo-seat-head", ".cabo-seat"], [".cabo-final", ".cabo-summary"]]) {
    for (const e of document.querySelectorAll(inner)) {
      const box = e.closest(outer).getBoundingClientRect(), r = e.getBoundingClientRect();
      if (r.left < box.left - 1 || r.right > box.right + 1) out.push(`${inner} runs out of ${outer}: ${e.innerText.slice(0, 60)}`);
    }
  }
  return out;
}"""

# One JS call reads everything the tests check, so a snapshot is consistent and cheap.
SNAPSHOT_JS = """() => {
  const root = document.querySelector('.cabo-table');
  if (!root) return null;
  const text = sel => { const e = root.querySelector(sel); return e ? e.innerText.trim() : null; };
  const key = e => [...e.classList].find(c => /^cabo-(s\\d+-p\\d+|deck|discard|btn-[\\w-]+)$/.test(c)) || null;
  const cards = [...root.querySelectorAll('.cabo-card')].map(e => {
    const m = [...e.classList].map(c => c.match(/^cabo-s(\\d+)-p(\\d+)$/)).find(Boolean);
    return {key: key(e), seat: m ? +m[1] : null, pos: m ? +m[2] : null, text: e.innerText.trim(),
            card: e.getAttribute('data-card'), label: e.getAttribute('aria-label') || '',
            known: e.classList.contains('cabo-known'), hidden: e.classList.contains('cabo-hidden'),
            clickable: e.classList.contains('cabo-clickable')};
  });
  const buttons = [...root.querySelectorAll('button')].map(e => ({key: key(e), text: e.innerText.trim(),
    disabled: e.disabled, clickable: e.classList.contains('cabo-clickable')}));
  const focusable = [...root.querySelectorAll('.cabo-clickable')].map(e => ({key: key(e),
    label: e.getAttribute('aria-label') || e.innerText.trim(), tab: e.tagName === 'BUTTON' || e.tabIndex >= 0}));
  const clickable = [...root.querySelectorAll('.cabo-clickable')]
    .filter(e => !e.disabled).map(key).filter(Boolean);
  const summary = root.querySelector('.cabo-summary');  // the round-end scoring
  const names = [...root.querySelectorAll('.cabo-seat .cabo-name')].map(e => e.innerText.trim());
  return {seq: +root.dataset.seq, busy: root.dataset.busy, status: text('.cabo-status'), names,
          summary: summary && {text: summary.innerText,
            cards: [...summary.querySelectorAll('[data-card]')].map(e => e.getAttribute('data-card'))},
          scores: text('.cabo-scores'), log: text('.cabo-log'), deck_count: text('.cabo-deck-count'),
          discard: text('.cabo-discard'), next: !!root.querySelector('.cabo-btn-next'), cards, clickable,
          buttons, focusable};
}"""

# Click like a person (a DOM click event) and time it in the page: from dispatching the click to the
# table's data-seq changing (its next render), and on to the frame after it is painted (a task queued
# from the next animation frame runs after that frame's paint). Resolves null if nothing renders in 10 s.
CLICK_JS = """(selector) => new Promise(resolve => {
  const root0 = document.querySelector('.cabo-table');
  const seq0 = root0.dataset.seq;
  const target = root0.querySelector(selector);
  let rendered = null;
  const observer = new MutationObserver(() => {
    const root = document.querySelector('.cabo-table');
    if (rendered !== null || !root || root.dataset.seq === seq0) return;
    rendered = performance.now() - t0;
    observer.disconnect();
    requestAnimationFrame(() => setTimeout(() => resolve({render: rendered, paint: performance.now() - t0})));
  });
  observer.observe(document.body, {subtree: true, childList: true, attributes: true, attributeFilter: ['data-seq']});
  setTimeout(() => { if (rendered === null) { observer.disconnect(); resolve(null); } }, 10000);
  const t0 = performance.now();
  target.click();
})"""

SETTLED_JS = """(seq) => { const r = document.querySelector('.cabo-table');
  return r && +r.dataset.seq > seq && r.dataset.busy === '0'; }"""


class TablePage:
    """A page showing one CardTable: read it, click it like a person, time the clicks."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.latencies: list[float] = []  # ms from each click to the next render
        self.paints: list[float] = []  # ms from each click until that render is painted
        self.waits: list[float] = []  # ms from each click until the table is settled (bots done)

    def open(self, url: str, timeout: float = 90.0) -> None:
        self.page.goto(url)
        self.wait_for_table(timeout)

    def wait_for_table(self, timeout: float = 90.0) -> None:
        try:
            self.page.wait_for_selector(".cabo-table[data-busy='0']", timeout=timeout * 1000)
        except Exception as exc:
            raise AssertionError(f"no settled .cabo-table within {timeout:.0f} s; the page says:\n"
                                 f"{self.page.inner_text('body')[-2000:]}") from exc

    def snapshot(self) -> dict[str, Any]:
        snap = self.page.evaluate(SNAPSHOT_JS)
        assert snap is not None, "the page shows no .cabo-table"
        return dict(snap)

    def click(self, key: str, timeout: float = 30.0) -> float | None:
        """Click ``.{key}``; returns the ms until the table rendered (None: it did not), then waits until it
        is settled (``data-busy`` "0": the bots' moves are shown)."""
        seq = self.snapshot()["seq"]
        start = time.perf_counter()
        timing = self.page.evaluate(CLICK_JS, f".{key}")
        if timing is None:
            return None
        self.page.wait_for_function(SETTLED_JS, arg=seq, timeout=timeout * 1000, polling="raf")
        self.latencies.append(float(timing["render"]))
        self.paints.append(float(timing["paint"]))
        self.waits.append((time.perf_counter() - start) * 1000)
        return float(timing["render"])


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values``, nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered) + 0.5) - 1))]


class SimplePlayer:
    """A person who plays by clicking the first sensible thing: their own cards for the initial look,
    then the deck, then a card (a one-card exchange), then buttons. On their ``discard_on_turn``
    they discard the drawn card instead (and use its power, if any, on the first cards offered);
    they call Cabo on their ``call_on_turn``."""

    BUTTONS = ("cabo-btn-confirm", "cabo-btn-pass", "cabo-btn-discard", "cabo-btn-left", "cabo-btn-right")

    def __init__(self, seat: int = 0, call_on_turn: int = 3, discard_on_turn: int = 2) -> None:
        self.seat, self.call_on_turn, self.discard_on_turn = seat, call_on_turn, discard_on_turn
        self.turns = 0
        self.picked: set[str] = set()  # cards clicked in this decision (a second click would unselect)

    def choose(self, snap: dict[str, Any]) -> str | None:
        """The class to click next, or None when there is nothing to do."""
        can = snap["clickable"]
        if "cabo-btn-next" in can:
            return None
        if "cabo-deck" in can:
            self.picked.clear()
            if self.turns + 1 >= self.call_on_turn and "cabo-btn-cabo" in can:
                return "cabo-btn-cabo"
            self.turns += 1
            return "cabo-deck"
        if "cabo-btn-confirm" in can:
            self.picked.clear()
            return "cabo-btn-confirm"
        if self.turns == self.discard_on_turn and "cabo-btn-discard" in can:
            return "cabo-btn-discard"
        mine = [k for k in can if k.startswith(f"cabo-s{self.seat}-p") and k not in self.picked]
        others = [k for k in can if k.startswith("cabo-s") and k not in self.picked]
        for key in mine or others:
            self.picked.add(key)
            return key
        for key in self.BUTTONS:
            if key in can:
                self.picked.clear()
                return key
        return can[0] if can else None
