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

The teacher reads every student's pages, read-only, under ``/teacher/students/{id}``: the student's
page (their versions with every check's output, their ratings, their latest games), and
``.../games``, ``.../games/{game_id}`` and ``.../faults`` as the student sees them. Only the teacher's
session opens these (a student's, even for their own id, gets 403); ``{id}`` must be a student on
the roster (else 404). A replay's seat is still the one the store records for that student in that
game: no request parameter chooses a seat.
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
from .state import Person, Session, Upload

log = logging.getLogger("cabo_kit.portal")

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


@dataclass(frozen=True)
class Subject:
    """Whose pages a request reads, and by whom: ``person`` (the student), ``session`` (the reader's: the student's
    own, or the teacher's), ``base`` (the address of that student's pages for this reader)."""

    person: Person
    session: Session
    base: str

    @property
    def own(self) -> bool:
        return self.session.person.id == self.person.id

    def words(self) -> dict[str, Any]:
        """What the templates take to speak to the reader: ``base``, ``home`` (the student's page), ``own``, ``Your``/``your`` (or "Ada's")."""
        whose = "your" if self.own else f"{self.person.name}'s"
        return {"base": self.base, "home": f"{self.base}/" if self.own else self.base, "own": self.own,
                "your": whose, "Your": whose[:1].upper() + whose[1:], "subject": self.person}


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

    async def overview(self, session: Session, uploads: list[Upload], pid: str | None = None) -> dict[str, Any]:
        """The values the student's page template takes from the store (off the event loop): the session's student's,
        or (the teacher's view) student ``pid``'s."""
        return await run_in_threadpool(self._overview, pid or session.person.id, uploads)

    # ------------------------------------------------------------------ /games

    def subject(self, request: Request) -> Subject:
        """The student whose pages ``request`` reads: the reader's own (a route without ``{person}``: a student's
        session only), or for the teacher's session only, the roster student ``{person}`` (404 for anyone else)."""
        root = self.portal_root(request)
        if "person" in request.path_params:
            _, session = self.portal.need(request, teacher=True)
            person = self.portal.state.person(str(request.path_params["person"]))
            if person is None or person.is_teacher:
                raise HTTPException(404, "There is no such student on the roster.")
            return Subject(person, session, f"{root}/teacher/students/{person.id}")
        _, session = self.portal.need(request)
        return Subject(session.person, session, root)

    async def overview_page(self, request: Request) -> Response:
        """The teacher's read-only view of a student's page: every version with its check's output, the student's
        ratings (as the board has them now), their latest games and faults."""
        who = self.subject(request)
        pid = who.person.id
        uploads = await run_in_threadpool(self.portal.state.uploads_of, pid)
        played = await self.overview(who.session, uploads, pid)
        mine = self.portal.live.mine_view(who.person)
        return self.portal.render(request, "teacher_student.html", session=who.session, uploads=uploads, **played,
                                  current=self.portal.state.current(pid), mine=mine, live=False,
                                  when=self.portal.when, **who.words())

    async def games(self, request: Request) -> Response:
        who = self.subject(request)
        session, pid = who.session, who.person.id
        page = _int(request.query_params.get("page"), 1, 1)

        def read() -> tuple[list[Line], int]:
            versions = _versions(self.portal.state.uploads_of(pid))
            found = self.history.games(pid, (page - 1) * GAMES_PER_PAGE, GAMES_PER_PAGE)
            return [Line(g, versions.get(g.version)) for g in found], self.history.summary(pid).games

        lines, total = await self._reading(read)
        last = max(1, -(-total // GAMES_PER_PAGE))
        return self.portal.render(request, "games.html", session=session, lines=lines, total=total,
                                  page=min(page, last), pages=last, **who.words())

    # ------------------------------------------------------------------ /games/{game_id}

    def names(self, bots: list[str], reader: Session) -> list[str]:
        """What the replay calls each seat's bot: as the live board names it for this reader
        (:meth:`~cabo_kit.portal.live.Audience.name`): reference bots by name, the reader as themselves, classmates
        by roster name or pseudonym as the board shows them, else "a classmate" (a board kept to the teacher, a bot
        not on the roster)."""
        seen = self.portal.live.audience()
        return [seen.name(b, reader.person)[1] for b in bots]

    async def replay(self, request: Request) -> Response:
        who = self.subject(request)
        session, pid = who.session, who.person.id
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
            # the seat the store records for this student in this game (never a request's)
            return Line(line, versions.get(line.version)), seat_frame(record, line.seat, step,
                                                                      self.names(list(record.bots), session),
                                                                      me="You" if who.own else who.person.name)

        found = await self._reading(draw)
        if found is None:
            raise HTTPException(404, _NO_GAME)
        line, frame = found
        nav = [(label, max(0, min(frame.steps, frame.step + d)))
               for label, d in (("start", -frame.steps), ("back 10", -10), ("back", -1), ("forward", 1),
                                ("forward 10", 10), ("end", frame.steps))]
        return self.portal.render(request, "replay.html", session=session, line=line, frame=frame, nav=nav,
                                  table=Markup(frame.table), summary=Markup(frame.summary), **who.words())

    # ------------------------------------------------------------------ /faults

    async def faults(self, request: Request) -> Response:
        from ..pages import _faults_html

        who = self.subject(request)
        session, pid, base = who.session, who.person.id, who.base

        def read() -> tuple[Any, list[tuple[str, int, Markup]], Markup]:
            uploads = self.portal.state.uploads_of(pid)
            versions = _versions(uploads)
            current = self.portal.state.current(pid)
            summary = self.history.summary(pid)
            found = self.history.faults(pid, FAULTS_SHOWN)
            link: Callable[[Any], str] = lambda v: f"{base}/games/{v.game_id}?step=end"  # noqa: E731
            groups: dict[str, list[Any]] = {}
            for view, line in found:
                groups.setdefault(line.version, []).append(view)
            sections = []
            for version, views in sorted(groups.items(), key=lambda kv: -(versions.get(kv[0]) or 0)):
                number = versions.get(version)
                title = (f"version {number}" + (f" ({who.words()['your']} bot in the tournament)"
                                                 if number == current else "")
                         if number is not None else "a file from before the portal")
                prefix = f"v{number if number is not None else version}-"
                sections.append((title, summary.by_version.get(version, (0, 0))[1],
                                 Markup(_faults_html(views, prefix=prefix, link=link))))
            return summary, sections, Markup(self.history.printed(pid))

        summary, sections, printed = await self._reading(read)
        return self.portal.render(request, "faults.html", session=session, played=summary, sections=sections,
                                  shown=FAULTS_SHOWN, printed=printed, **who.words())

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
            # the teacher's read-only views of any student's (self.subject: the teacher's session only)
            Route("/teacher/students/{person}", self.overview_page, methods=["GET"]),
            Route("/teacher/students/{person}/games", self.games, methods=["GET"]),
            Route("/teacher/students/{person}/games/{game_id}", self.replay, methods=["GET"]),
            Route("/teacher/students/{person}/faults", self.faults, methods=["GET"]),
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


