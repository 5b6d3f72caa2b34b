"""What a tournament folder gives its readers once games are stored: ``leaderboard.csv``, ``report.html`` (for the
class), ``teacher.html`` and a page per bot (``bot-pages/NAME.html``), all written from the store.

It sits above both the tournament (which plays and stores the games, :mod:`cabo_kit.tournament`) and the report
(:mod:`cabo_kit.report`, :mod:`cabo_kit.pages`), so neither of those imports the other. The command line's
``cabo-kit tournament`` and the class portal call it; ``cabo_kit.tournament.write_outputs`` and
``cabo_kit.tournament.runner.write_outputs`` still lead here.

>>> import tempfile, pathlib
>>> from cabo_kit.tournament import run_tournament
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "tournament.toml").write_text('presets = ["rush"]\\ntable_sizes = [2]\\ngames = 2\\nreference = ["RandomBot", "GreedyBot"]\\n')
>>> _ = run_tournament(folder, workers=1, progress=False, out=None)
>>> board, report = write_outputs(folder, out=None)
>>> sorted(board["bot"]), report.name, (folder / "leaderboard.csv").exists()
(['GreedyBot', 'RandomBot'], 'report.html', True)
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

from .tournament.config import load_config
from .tournament.lock import holder
from .tournament.runner import _written, anchor_notes, format_leaderboard
from .tournament.store import DB_NAME

__all__ = ["write_outputs"]


def write_outputs(folder: str | Path, out: Callable[[str], None] | None = print) -> tuple[Any, Path | None]:
    """Write ``DIR/leaderboard.csv``, ``DIR/report.html`` (for the class), ``DIR/teacher.html`` and a page per bot in
    ``DIR/bot-pages/`` (:func:`cabo_kit.pages.write_pages`) from the store; print the table.

    The leaderboard has each bot's CPU too (``decisions``, ``cpu_s``, ``cpu_ms_median``, ``cpu_ms_p95``,
    ``cpu_share`` in %, per preset; empty where the store holds no timing). Its text cells (bot names, the
    ``vs BAR`` grades) are written with :func:`~cabo_kit.tournament.csvsafe.safe_cell`: one that starts with
    ``=``, ``+``, ``-`` or ``@`` gets a ``'`` in front, so a spreadsheet shows it as text; numeric columns
    (Elo, ranks, games, CPU) stay numbers (a one-sided interval's bound is the number ``-inf`` or ``inf``).

    Returns the leaderboard frame and the report's path (``None`` if no report could be written).
    It only reads the store, so it works on a read-only store, and while a run holds the folder
    (it then says that the run will rewrite both files). A file it cannot write raises
    :class:`~cabo_kit.tournament.lock.FolderError` naming it, after the table is printed.
    """
    from .results.ratings import fit_elo
    from .tournament.csvsafe import safe_frame
    from .tournament.store import load_frames

    say = out or (lambda _s: None)
    folder = Path(folder)
    games, seats = load_frames(folder / DB_NAME)
    busy = holder(folder)
    if busy is not None and busy.pid != os.getpid():
        say(f"note: {folder} is in use by {busy.describe()}. This shows the {len(games)} games stored so far; "
            "the run rewrites leaderboard.csv and report.html when it ends")
    cfg = load_config(folder)[0]
    anchor = cfg.anchor or None
    for line in anchor_notes(cfg, seats):
        say(line)
    from .results.timing import with_timing

    board = with_timing(fit_elo(seats, anchor=anchor), seats)
    say(format_leaderboard(board))
    from .tournament.grades import grade_columns

    board = grade_columns(folder, board, seats, cfg)  # a "vs BAR" column per grading bot, last
    from .report import write_report

    report = folder / "report.html"
    with _written(folder / "leaderboard.csv"):
        # CPU times keep 4 significant figures (a fast bot's median is a few microseconds); unknown: empty
        csv = board.assign(**{c: [f"{v:.4g}" if v == v else "" for v in board[c]]
                              for c in ("cpu_s", "cpu_ms_median", "cpu_ms_p95")})
        csv = safe_frame(csv)  # a bot named "=1+2" or a cell "-inf [..]" is text to a spreadsheet, never a formula
        temp = folder / "leaderboard.csv.tmp"  # renamed over it: a reader (the portal's download) never sees half a file
        try:
            csv.to_csv(temp, index=False, float_format="%.2f", lineterminator="\n")
            os.replace(temp, folder / "leaderboard.csv")
        except BaseException:  # a full disk: no half file left in the class folder
            temp.unlink(missing_ok=True)
            raise
    with _written(report):
        write_report(folder / DB_NAME, report, title=f"Cabo tournament: {folder.resolve().name}", board=board,
                     anchor=anchor)
    from .pages import PAGES_DIR, TEACHER_PAGE, write_pages

    with _written(folder / TEACHER_PAGE):
        write_pages(folder, board=board)
    say(f"leaderboard: {folder / 'leaderboard.csv'}\nreport: {report} (for the class)\n"
        f"teacher's page: {folder / TEACHER_PAGE} (copies, rejected files, faults)\n"
        f"bots' pages: {folder / PAGES_DIR}/NAME.html (one per bot, for its author)")
    return board, report
