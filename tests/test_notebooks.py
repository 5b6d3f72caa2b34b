"""The course notebooks: how they are saved.

Running them is nbval's job: ``pyproject.toml`` puts ``notebooks/`` in ``testpaths`` with
``--nbval-lax --nbval-current-env``, so ``make test`` (and a plain ``pytest``) runs every
notebook top to bottom in this environment's kernel, cell by cell; a failing cell (the
notebooks' check cells are ``assert``s) fails its test. Outputs are not compared.

These tests add what nbval does not check: the notebooks are committed executed, without
errors, with figures that do not need the internet, at a sane size, and each has check cells.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

FOLDER = Path(__file__).resolve().parent.parent / "notebooks"
NOTEBOOKS = sorted(FOLDER.glob("*.ipynb"))
# The course notebooks this suite holds to the saved-executed standard (play.ipynb is the page of `cabo-kit play`).
COURSE = ["01_play.ipynb", "02_first_bot.ipynb", "03_smarter_bots.ipynb", "04_tournament.ipynb", "05_results.ipynb",
          "06_rules_lab.ipynb", "07_rl.ipynb"]
# Built around the card table or tables of numbers, not charts.
FEW_CHARTS = {"01_play.ipynb", "02_first_bot.ipynb", "04_tournament.ipynb"}
MAX_BYTES = 2_000_000  # plotly's JavaScript alone is ~5 MB: embedding it would fail this


def _load(name: str) -> dict:
    return json.loads((FOLDER / name).read_text("utf-8"))


def _code_cells(nb: dict) -> list[dict]:
    return [c for c in nb["cells"] if c["cell_type"] == "code"]


def test_there_are_notebooks() -> None:
    assert NOTEBOOKS, "the notebooks/ folder should hold the course notebooks"
    missing = [name for name in COURSE if not (FOLDER / name).exists()]
    assert not missing, f"course notebooks missing: {missing}"


@pytest.mark.parametrize("name", COURSE)
def test_saved_executed_without_errors(name: str) -> None:
    """Committed with outputs, run top to bottom in one go (execution counts 1, 2, 3, ...), no error output."""
    cells = _code_cells(_load(name))
    counts = [c.get("execution_count") for c in cells]
    assert counts == list(range(1, len(cells) + 1)), (
        f"{name} is not saved as one top-to-bottom run: execute it with "
        f"`jupyter nbconvert --to notebook --execute --inplace notebooks/{name}`"
    )
    errors = [o for c in cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors, f"{name} was saved with an error: {errors[0].get('ename')}: {errors[0].get('evalue')}"


@pytest.mark.parametrize("name", COURSE)
def test_figures_work_offline_and_file_is_small(name: str) -> None:
    """Plotly figures travel as plotly's JSON (no CDN script, no 5 MB of embedded JavaScript)."""
    path = FOLDER / name
    assert path.stat().st_size < MAX_BYTES, f"{name} is {path.stat().st_size:,} bytes: keep notebooks under {MAX_BYTES:,}"
    text = path.read_text("utf-8")
    assert "cdn.plot.ly" not in text, f"{name} loads plotly from the internet: use the plotly_mimetype renderer"
    outputs = [o for c in _code_cells(_load(name)) for o in c.get("outputs", [])]
    figures = [o for o in outputs if "application/vnd.plotly.v1+json" in o.get("data", {})]
    if name not in FEW_CHARTS:
        assert len(figures) >= 3, f"{name} should show its plotly figures in the saved outputs"


@pytest.mark.parametrize("name", COURSE)
def test_has_check_cells(name: str) -> None:
    """Key facts are asserted in the notebook, so a broken engine fails it under nbval."""
    sources = ["".join(c["source"]) for c in _code_cells(_load(name))]
    checks = [s for s in sources if re.search(r"^\s*assert ", s, re.M)]
    assert len(checks) >= 4, f"{name} has {len(checks)} cells with assert: check its key facts"
