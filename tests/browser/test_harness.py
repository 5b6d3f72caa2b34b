"""The browser tests' own machinery: without chromium they skip naming the fix, under CI=true they fail."""

from __future__ import annotations

from pathlib import Path

import pytest

import harness


def test_missing_chromium_names_the_fix(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(harness, "CHROMIUM", str(tmp_path / "chromium"))
    [missing] = [m for m in harness.missing_browser_parts() if "chromium" in m]
    assert "apt-get install chromium" in missing and "make test" in missing


@pytest.mark.parametrize("ci, outcome", [("", pytest.skip.Exception), ("true", pytest.fail.Exception)])
def test_skips_without_ci_and_fails_under_ci(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, ci: str,
                                             outcome: type[BaseException]) -> None:
    monkeypatch.setattr(harness, "CHROMIUM", str(tmp_path / "chromium"))
    monkeypatch.setenv("CI", ci)
    with pytest.raises(outcome, match="apt-get install chromium"):
        harness.require_browser()


def test_with_everything_installed_nothing_is_missing() -> None:
    if harness.missing_browser_parts() and not harness.in_ci():
        pytest.skip("this machine lacks a browser part; the test above covers the message")
    assert harness.missing_browser_parts() == []
