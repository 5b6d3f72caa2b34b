"""The class portal: students upload their bot files and watch their rating; the teacher runs it (``cabo-kit serve``).

What is here today (docs/portal.md says what is still missing): the roster (:mod:`.roster`),
sign-in links (:mod:`.links`), the portal's state with its sessions and uploads (:mod:`.state`),
the upload checks that need no Python (:mod:`.uploads`), a log filter that keeps secrets out of
logs (:mod:`.logs`), and the web app (:mod:`.app`, which needs the ``portal`` extra: Starlette,
uvicorn, python-multipart, Jinja2). ``import cabo_kit`` never imports this package, and importing
this package imports no web library: :func:`create_app` loads them when it is called.

>>> from cabo_kit.portal import parse_roster
>>> [s.id for s in parse_roster("ada,Ada\\nalan,Alan\\n")]
['ada', 'alan']
"""

from __future__ import annotations

from typing import Any

from .links import LINKS_NAME, write_links
from .roster import RosterError, Student, load_roster, parse_roster
from .state import TEACHER, PortalState, TooSoon
from .uploads import DEFAULT_MAX_BYTES, UploadRefused, check_upload

__all__ = [
    "LINKS_NAME", "write_links", "RosterError", "Student", "load_roster", "parse_roster", "TEACHER", "PortalState",
    "TooSoon", "DEFAULT_MAX_BYTES", "UploadRefused", "check_upload", "create_app", "PortalSettings",
]


def __getattr__(name: str) -> Any:
    if name in ("create_app", "PortalSettings"):
        from . import app

        return getattr(app, name)
    raise AttributeError(f"module 'cabo_kit.portal' has no attribute {name!r}")
