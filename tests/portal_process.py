"""A real ``cabo-kit serve`` for the portal's tests: started in a process of its own, waited for, its links read.

Used by tests/test_portal_serve.py and the browser tests (tests/browser/test_portal*.py); each test
stops the server itself (SIGTERM), as what it checks about stopping differs.
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def start_serve(folder: Path, roster: Path, port: int, log: Path, *args: str, wait: float = 30.0) -> subprocess.Popen[bytes]:
    """``cabo-kit serve folder --roster roster --port port *args`` with its output in ``log``, once uvicorn runs.

    ``--same-user-bots`` is added where bots cannot get a user id of their own (the server refuses otherwise).
    """
    from cabo_kit.portal.server import bots_get_own_uid

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    same_user = [] if bots_get_own_uid() else ["--same-user-bots"]
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "cabo_kit.cli", "serve", str(folder), "--roster", str(roster),
                                 "--port", str(port), *args, *same_user], stdout=out, stderr=subprocess.STDOUT, env=env)
    deadline = time.monotonic() + wait
    while b"Uvicorn running" not in log.read_bytes():
        if proc.poll() is not None or time.monotonic() >= deadline:
            proc.kill()
            proc.wait()
            raise AssertionError(f"cabo-kit serve did not start:\n{log.read_text()}")
        time.sleep(0.1)
    return proc


def read_links(folder: Path) -> dict[str, str]:
    """Each person's sign-in link from ``portal-links.csv``."""
    with open(folder / "portal-links.csv", newline="") as f:
        return {row["id"]: row["link"] for row in csv.DictReader(f)}
