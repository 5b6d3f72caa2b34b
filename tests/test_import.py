"""``import cabo_kit`` stays light: no numpy, pandas, plotly, ipywidgets or tqdm (checked in a fresh interpreter)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("numpy", "pandas", "plotly", "ipywidgets", "tqdm")


def modules_loaded_by(statement: str) -> list[str]:
    code = f"import sys, json\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1])


@pytest.mark.parametrize("statement", [
    "import cabo_kit",
    # The display and the command line are imported by notebooks and the console script:
    # they must stay light too (tqdm is imported only when a progress bar is drawn).
    "import cabo_kit.render, cabo_kit.cli",
])
def test_import_does_not_load_heavy_libraries(statement: str) -> None:
    loaded = modules_loaded_by(statement)
    assert "cabo_kit" in loaded
    heavy = sorted({m.split(".")[0] for m in loaded} & set(HEAVY))
    assert heavy == [], f"{statement!r} imports {', '.join(heavy)}: import them inside the functions that need them"


def test_the_check_itself_sees_a_heavy_import() -> None:
    # The same check flags tqdm when it is imported, so an empty answer above means something.
    loaded = modules_loaded_by("import cabo_kit, tqdm")
    assert "tqdm" in loaded
