"""Fixtures of the real-browser tests: one Voila and one JupyterLab server per session (started on
first use), Debian's chromium through Playwright, and a fresh page per test.

Without chromium or the extras the tests skip, naming the fix; with CI=true they fail instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest

import harness

SEED = 5  # the Voila page's game: fixed, so a failure replays the same way (the person spies in round 1)


@pytest.fixture(scope="session")
def browser_parts() -> None:
    harness.require_browser()


@pytest.fixture(scope="session")
def served(tmp_path_factory: pytest.TempPathFactory, browser_parts: None) -> Path:
    """A temporary copy of notebooks/ for the servers."""
    return harness.copy_notebooks(tmp_path_factory.mktemp("served") / "notebooks")


@pytest.fixture(scope="session")
def voila_url(served: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """play.ipynb served as ``cabo-kit play --seed SEED --pace 0`` serves it."""
    with harness.voila_server(served / "play.ipynb", tmp_path_factory.mktemp("voila"), seed=SEED, pace=0.0) as url:
        yield url


@pytest.fixture(scope="session")
def lab(served: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """JupyterLab on the copy; its kernels get the play page's options through the environment."""
    with harness.lab_server(served, tmp_path_factory.mktemp("lab"), CABO_KIT_SEED=str(SEED),
                            CABO_KIT_PACE="0") as (base, token):
        yield base, token


@pytest.fixture(scope="session")
def browser(browser_parts: None) -> Iterator[Any]:
    with harness.chromium() as b:
        yield b


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1100, "height": 760})
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    harness.ARTIFACTS.mkdir(exist_ok=True)
    return harness.ARTIFACTS
