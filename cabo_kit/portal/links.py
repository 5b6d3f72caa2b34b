"""``DIR/portal-links.csv``: every person's sign-in link, for the teacher to hand out (mode 0600).

A link holds a secret token that the portal keeps only as a hash, so this file is the one place
a link exists: it is written when tokens are made (the first start, a student new to the roster,
``--reissue``) and never printed. A rewrite replaces only the rows of the new tokens, atomically
(a temporary file renamed over the old one), and the file stays readable by its owner alone. A
name that a spreadsheet would take for a formula (starting with ``=``, ``+``, ``-`` or ``@``) is
written with a leading ``'`` (:func:`cabo_kit.tournament.csvsafe.safe_cell`).

>>> import tempfile, os, stat
>>> folder = tempfile.mkdtemp()
>>> path = write_links(folder, {"ada": "T0KEN"}, {"ada": "=Ada"}, "http://127.0.0.1:8765")
>>> print(path.read_text().strip())
id,name,link
ada,'=Ada,http://127.0.0.1:8765/signin/T0KEN
>>> oct(stat.S_IMODE(os.stat(path).st_mode))
'0o600'
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path
from typing import Mapping

from ..tournament.csvsafe import safe_cell  # one rule for every CSV the kit writes for people

__all__ = ["LINKS_NAME", "write_links", "sign_in_path", "safe_cell"]

LINKS_NAME = "portal-links.csv"


def sign_in_path(token: str) -> str:
    """The path of a sign-in link below the portal's root: ``/signin/<token>``."""
    return f"/signin/{token}"


def write_links(folder: str | os.PathLike[str], tokens: Mapping[str, str], names: Mapping[str, str],
                base_url: str) -> Path:
    """Add or replace the rows of ``tokens`` (person id -> token) in ``folder``/portal-links.csv; its path."""
    path = Path(folder) / LINKS_NAME
    rows: dict[str, list[str]] = {}
    if path.exists():
        with open(path, newline="", encoding="utf-8") as f:
            for row in list(csv.reader(f))[1:]:
                if row:
                    rows[row[0]] = row
    base = base_url.rstrip("/")
    for pid, token in tokens.items():
        rows[pid] = [pid, safe_cell(names.get(pid, pid)), base + sign_in_path(token)]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["id", "name", "link"])
    writer.writerows(rows.values())
    temp = path.with_name(f".{LINKS_NAME}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(out.getvalue())
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, path)
    finally:
        temp.unlink(missing_ok=True)
    return path
