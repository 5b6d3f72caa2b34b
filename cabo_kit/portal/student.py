"""The student's games, faults and replays in the portal: the routes and what the student's page shows of them.

Everything is found from the session alone: a student's games are the store's ``seats`` rows whose
bot is their id (:class:`~cabo_kit.portal.history.History`), a replay's seat is the seat their bot
held in that game, and a game id of a game they did not play is answered like one that does not
exist (404, the same page). Store reads and replays run on the thread pool, never on the event loop.

Routes (GET only: nothing here changes anything):

* ``/games``: their games, the most recently stored first, 50 a page (``?page=2``...);
* ``/games/{game_id}``: one game replayed from their seat (``?step=N``, or ``?step=end``);
* ``/faults``: their latest faults with where they happened, the rule broken, what the bot saw, its own
  traceback lines and what it printed (:mod:`cabo_kit.pages`' views), by version of their file;
* ``/static/table.css``: the card table's stylesheet (the same file the notebooks' table uses).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from markupsafe import Markup
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Route

from .history import GameLine, History

log = logging.getLogger("cabo_kit.portal")
from .state import Session, Upload

if TYPE_CHECKING:  # pragma: no cover - typing only
    from .app import _Portal

__all__ = ["StudentPages", "GAMES_PER_PAGE", "RECENT"]

GAMES_PER_PAGE = 50
RECENT = 5
"""Games listed on the student's own page (the rest are on ``/games``)."""
FAULTS_SHOWN = 40
"""The latest faults shown in full on ``/faults`` (the counts cover all of them)."""

_TABLE_CSS = Path(__file__).resolve().parent.parent / "table" / "table.css"
_NO_GAME = "There is no such game among yours."


def _versions(uploads: list[Upload]) -> dict[str, int]:
    """Each file version (the tournament's: 12 hex digits of the file's sha256) with the upload that made it."""
    out: dict[str, int] = {}
    for up in sorted(uploads, key=lambda u: u.number):
        if up.status == "accepted" or up.version not in out:
            out[up.version] = up.number
    return out


@dataclass(frozen=True)
class Line:
    """A game as the pages list it: its store line and the upload number of the file that played it."""

    game: GameLine
    upload: int | None

    @property
    def result(self) -> str:
        g = self.game
        if g.status != "ok":
            return f"your bot's fault ({g.status})"
        return "another seat's fault" if g.ended != "ok" else f"{_ordinal(g.rank)} of {g.table_size}"


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


class StudentPages:
    """The handlers of :func:`student_routes` around the app's portal and one :class:`History` of its folder."""

    def __init__(self, portal: "_Portal") -> None:
        self.portal = portal
        self.history = History(portal.state.folder)

    # ------------------------------------------------------------------ what the student's own page shows

    def _overview(self, pid: str, uploads: list[Upload]) -> dict[str, Any]:
        from ..tournament.store import StoreError

        try:
            summary = self.history.summary(pid)
            recent = self.history.games(pid, 0, RECENT)
        except StoreError:  # a damaged or moved store: the page (and its upload form) still works
            log.warning("the student's page could not read the results store", exc_info=True)
            return {"played": None, "played_by_upload": {}, "recent_games": []}
        versions = _versions(uploads)
        by_upload = {versions[v]: c for v, c in summary.by_version.items() if v in versions}
        return {"played": summary, "played_by_upload": by_upload,
                "recent_games": [Line(g, versions.get(g.version)) for g in recent]}

    async def overview(self, session: Session, uploads: list[Upload]) -> dict[str, Any]:
        """The values the student's page template takes from the store (off the event loop)."""
        return await run_in_threadpool(self._overview, session.person.id, uploads)

    # ------------------------------------------------------------------ /games

    async def games(self, request: Request) -> Response:
        _, session = self.portal.need(request)
        pid = session.person.id
        page = _int(request.query_params.get("page"), 1, 1)

        def read() -> tuple[list[Line], int]:
            versions = _versions(self.portal.state.uploads_of(pid))
            found = self.history.games(pid, (page - 1) * GAMES_PER_PAGE, GAMES_PER_PAGE)
            return [Line(g, versions.get(g.version)) for g in found], self.history.summary(pid).games

        lines, total = await self._reading(read)
        last = max(1, -(-total // GAMES_PER_PAGE))
        return self.portal.render(request, "games.html", session=session, lines=lines, total=total,
                                  page=min(page, last), pages=last)

    # ------------------------------------------------------------------ /games/{game_id}

    def names(self, bots: list[str], reader: Session) -> list[str]:
        """What the replay calls each seat's bot: as the live board names it for this reader
        (:meth:`~cabo_kit.portal.live.Audience.name`): reference bots by name, the reader as themselves, classmates
        by roster name or pseudonym as the board shows them, else "a classmate" (a board kept to the teacher, a bot
        not on the roster)."""
        seen = self.portal.live.audience()
        return [seen.name(b, reader.person)[1] for b in bots]

    async def replay(self, request: Request) -> Response:
        _, session = self.portal.need(request)
        pid = session.person.id
        gid = str(request.path_params["game_id"])
        wanted = request.query_params.get("step", "0")

        def draw() -> Any:
            from .replay import seat_frame

            line = self.history.game(pid, gid)
            if line is None:
                return None
            record = self.history.record(gid)
            steps = len(record.actions)
            step = steps if wanted == "end" else _int(wanted, 0, 0)
            versions = _versions(self.portal.state.uploads_of(pid))
            return Line(line, versions.get(line.version)), seat_frame(record, line.seat, step,
                                                                      self.names(list(record.bots), session))

        found = await self._reading(draw)
        if found is None:
            raise HTTPException(404, _NO_GAME)
        line, frame = found
        nav = [(label, max(0, min(frame.steps, frame.step + d)))
               for label, d in (("start", -frame.steps), ("back 10", -10), ("back", -1), ("forward", 1),
                                ("forward 10", 10), ("end", frame.steps))]
        return self.portal.render(request, "replay.html", session=session, line=line, frame=frame, nav=nav,
                                  table=Markup(frame.table), summary=Markup(frame.summary))

    # ------------------------------------------------------------------ /faults

    async def faults(self, request: Request) -> Response:
        from ..pages import _faults_html

        _, session = self.portal.need(request)
        pid = session.person.id
        root = self.portal_root(request)

        def read() -> tuple[Any, list[tuple[str, int, Markup]], Markup]:
            uploads = self.portal.state.uploads_of(pid)
            versions = _versions(uploads)
            current = self.portal.state.current(pid)
            summary = self.history.summary(pid)
            found = self.history.faults(pid, FAULTS_SHOWN)
            link: Callable[[Any], str] = lambda v: f"{root}/games/{v.game_id}?step=end"  # noqa: E731
            groups: dict[str, list[Any]] = {}
            for view, line in found:
                groups.setdefault(line.version, []).append(view)
            sections = []
            for version, views in sorted(groups.items(), key=lambda kv: -(versions.get(kv[0]) or 0)):
                number = versions.get(version)
                title = (f"version {number}" + (" (your bot in the tournament)" if number == current else "")
                         if number is not None else "a file from before the portal")
                prefix = f"v{number if number is not None else version}-"
                sections.append((title, summary.by_version.get(version, (0, 0))[1],
                                 Markup(_faults_html(views, prefix=prefix, link=link))))
            return summary, sections, Markup(self.history.printed(pid))

        summary, sections, printed = await self._reading(read)
        return self.portal.render(request, "faults.html", session=session, played=summary, sections=sections,
                                  shown=FAULTS_SHOWN, printed=printed)

    @staticmethod
    async def _reading(read: Callable[[], Any]) -> Any:
        """``read()`` on the thread pool; a store that cannot be read is a 503 saying so (uploads still work)."""
        from ..tournament.store import StoreError

        try:
            return await run_in_threadpool(read)
        except StoreError:
            log.warning("a student's page could not read the results store", exc_info=True)
            raise HTTPException(503, "The tournament's results cannot be read just now: try again later "
                                     "(your uploads are safe).") from None

    @staticmethod
    def portal_root(request: Request) -> str:
        from .app import _root

        return _root(request)

    def routes(self) -> list[Route]:
        """The routes of these pages (to put before the app's ``/static`` mount, which would take the stylesheet's)."""
        return [
            Route("/games", self.games, methods=["GET"]),
            Route("/games/{game_id}", self.replay, methods=["GET"]),
            Route("/faults", self.faults, methods=["GET"]),
            Route("/static/table.css", self.table_css, methods=["GET"]),
        ]

    # ------------------------------------------------------------------ the table's stylesheet

    async def table_css(self, request: Request) -> Response:
        return FileResponse(_TABLE_CSS, media_type="text/css; charset=utf-8")


def _int(text: str | None, default: int, least: int) -> int:
    try:
        return max(least, int(text)) if text is not None else default
    except ValueError:
        return default


