"""Golden transcripts: every seat's view of short seeded games, diffed against tests/golden/*.txt.

A difference means the engine now deals, plays or shows something else. If the change is
intended, regenerate with ``make golden`` and review the diff (a card appearing in a
seat's view that the seat never saw is a leak).
"""

from __future__ import annotations

import difflib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

GOLDEN = Path(__file__).parent / "golden"
REGENERATE = "make golden   (runs .venv/bin/python tests/golden/make_golden.py)"


def _maker() -> ModuleType:
    spec = importlib.util.spec_from_file_location("cabo_golden_maker", GOLDEN / "make_golden.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


MAKER = _maker()


@pytest.mark.parametrize("name", sorted(MAKER.GAMES))
def test_golden_transcript_unchanged(name: str) -> None:
    path = MAKER.path_of(name)
    assert path.exists(), f"{path} is missing: run {REGENERATE}"
    expected = path.read_text(encoding="utf-8")
    actual = MAKER.render(name)
    if actual != expected:
        diff = list(
            difflib.unified_diff(
                expected.splitlines(), actual.splitlines(), f"{path.name} (golden)", f"{path.name} (engine now)",
                lineterm="",
            )
        )
        shown = "\n".join(diff[:120]) + ("\n... (diff cut)" if len(diff) > 120 else "")
        pytest.fail(f"golden transcript {path.name} changed:\n{shown}\nIf intended, regenerate: {REGENERATE}")


def test_golden_files_are_small_and_cover_each_preset() -> None:
    files = sorted(GOLDEN.glob("*.txt"))
    assert {p.stem for p in files} == set(MAKER.GAMES)
    assert sum(p.stat().st_size for p in files) < 300_000
    for p in files:
        text = p.read_text(encoding="utf-8")
        assert text.startswith(f"# cabo-kit golden transcript: {MAKER.GAMES[p.stem][0]},")
        assert "calls Cabo" in text and "spies on seat" in text and "swaps own position" in text


def test_golden_views_show_private_faces_only_to_their_seat() -> None:
    """In every golden view, a draw, look, peek or spy shows its face to the seat that made it, and to nobody else."""
    private = (" draws from the deck", " looks at own positions", " peeks at own position", " spies on seat ")
    checked = 0
    for name in MAKER.GAMES:
        viewer = -1
        for line in MAKER.path_of(name).read_text(encoding="utf-8").splitlines():
            if line.startswith("seat ") and ", round " in line:
                viewer = int(line.split(",")[0].split()[1])
            elif line.startswith("    * seat ") and any(k in line for k in private):
                actor = int(line.split()[2])
                assert (": " in line) == (actor == viewer), (name, viewer, line)
                checked += 1
    assert checked > 30
