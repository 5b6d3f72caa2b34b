"""Every notebook runs to the end, cell by cell, as a learner would run it (no Jupyter needed).

The test executes the code cells in order in one namespace; a failing cell fails the test
with the notebook's name and the cell's number.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks() -> None:
    assert NOTEBOOKS, "the notebooks/ folder should hold the course notebooks"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_top_to_bottom(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cells = json.loads(path.read_text("utf-8"))["cells"]
    namespace: dict[str, object] = {"__name__": "__notebook__"}
    ran = 0
    for number, cell in enumerate(cells, start=1):
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        try:
            exec(compile(source, f"{path.name} cell {number}", "exec"), namespace)
        except Exception as exc:  # pragma: no cover - the message is the point
            pytest.fail(f"{path.name}, cell {number} raised {exc!r}")
        ran += 1
    assert ran >= 3
    out = capsys.readouterr().out
    # The first-steps notebook's own checks: the checker found the bot fine, and the duel printed a rate.
    if path.name.startswith("01-"):
        assert "No problems found." in out and "MyBot won" in out
        assert namespace["report"].ok  # type: ignore[attr-defined]
