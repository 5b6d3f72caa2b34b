"""leaderboard.csv as a result: without the CPU columns, which measure the run and differ from run to run."""

from __future__ import annotations

from pathlib import Path

from cabo_kit.tournament.timing import TIMING_COLUMNS


def results(csv: bytes) -> bytes:
    """``csv`` (a leaderboard's bytes) without :data:`~cabo_kit.tournament.timing.TIMING_COLUMNS`."""
    lines = csv.splitlines()
    keep = [i for i, h in enumerate(lines[0].split(b",")) if h.decode() not in TIMING_COLUMNS]
    return b"\n".join(b",".join(row.split(b",")[i] for i in keep) for row in lines)


def board(folder: Path) -> bytes:
    """``folder/leaderboard.csv`` as a result (see :func:`results`)."""
    return results((folder / "leaderboard.csv").read_bytes())
