"""The portal's web app (Starlette): sign-in links, sessions, the student's and the teacher's pages, uploads.

:func:`create_app` builds the app for a tournament folder whose :class:`~cabo_kit.portal.state.PortalState`
knows the roster. Who may do what is decided here, from the session alone (no route takes a
student's id from a student): a student reaches only their own uploads; ``/teacher`` pages need
the teacher's session. Every POST carries the session's anti-forgery token (a ``csrf`` form field
or an ``X-CSRF-Token`` header) and no GET changes anything, except that opening a sign-in link
starts a session for the browser that holds the link (the link is the secret). Every response
carries the security headers of :data:`SECURITY_HEADERS`; pages are rendered by Jinja2 with
autoescaping, so a name or a message is always text.

This module imports Starlette and Jinja2 (the ``portal`` extra); ``import cabo_kit`` never imports it.
"""

from __future__ import annotations

import contextlib
import hmac
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, AsyncGenerator, Awaitable, Callable, Mapping

import jinja2
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import Request
from starlette.responses import (HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response,
                                 StreamingResponse)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .fragments import COUNTS, Fragments, Rows, board_row, counts_cells, with_counts
from .live import LiveBoard, Visibility
from .state import PastDeadline, PortalState, Session, TooSoon, Upload, secret_hash
from .uploads import DEFAULT_MAX_BYTES, UploadRefused, check_upload, size_text

__all__ = ["create_app", "PortalSettings", "COOKIE", "SECURITY_HEADERS", "CSP"]

log = logging.getLogger("cabo_kit.portal")

COOKIE = "cabo_portal"
"""The session cookie's name (its value, the session id, is stored only as a hash)."""

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
"""The Content-Security-Policy of every response: only the portal's own scripts and styles, no inline code."""

SECURITY_HEADERS = {
    "content-security-policy": CSP,
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
}
"""Sent with every response, error pages and static files included."""

_HERE = Path(__file__).parent
_FORM_SLACK = 64 * 1024  # multipart boundaries, part headers and the csrf field around the file


@dataclass(frozen=True)
class PortalSettings:
    """How the portal behaves: upload limits and cookie security (``None``: secure when served over https)."""

    max_upload: int = DEFAULT_MAX_BYTES
    upload_interval: float = 30.0
    secure_cookies: bool | None = None


class _SecurityHeaders:
    """ASGI middleware: :data:`SECURITY_HEADERS` on every response, and ``no-store`` on everything but static files."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        static = "/static/" in scope.get("path", "")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                ours = {*SECURITY_HEADERS, *(() if static else ("cache-control",))}
                given = message.get("headers", [])
                # A response may only narrow the policy to a sandbox of no origin (report.html's inline scripts)
                sandboxed = [(k, v) for k, v in given if k.lower() == b"content-security-policy" and v.startswith(b"sandbox ")
                             and b"allow-same-origin" not in v]
                headers = [(k, v) for k, v in given if k.decode("latin-1").lower() not in ours]
                headers += [(k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items()
                            if not (sandboxed and k == "content-security-policy")] + sandboxed[:1]
                if not static:
                    headers.append((b"cache-control", b"no-store"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _root(request: Request) -> str:
    """The portal's path prefix (``--root-path`` or a proxy's), without a trailing slash."""
    return str(request.scope.get("app_root_path", request.scope.get("root_path", ""))).rstrip("/")


def _when(seconds: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds))


class _Portal:
    """The app's handlers around one :class:`PortalState`."""

    def __init__(self, state: PortalState, settings: PortalSettings, clock: Callable[[], float],
                 on_upload: Callable[[Upload], None] | None = None, live: LiveBoard | None = None,
                 games: Any = None) -> None:
        self.state = state
        self.games = games
        self.live = live if live is not None else LiveBoard(state.folder)
        self.live.attach(state, self.visibility)
        self.on_upload = on_upload
        self.settings = settings
        self.clock = clock
        self.pages = jinja2.Environment(loader=jinja2.FileSystemLoader(_HERE / "templates"),
                                        autoescape=True, undefined=jinja2.StrictUndefined)
        self.fragments = Fragments()  # the teacher's long lists and the board's rows, kept until they change
        self.roster_rows, self.rejected_rows = Rows(), Rows()  # their rows, each rendered again only when it changes
        self.board_rows = {False: Rows(), True: Rows()}  # the board's rows of the students' and the teacher's boards
        self.live.listeners.append(self.warm)
        from .student import StudentPages

        self.student = StudentPages(self)  # the student's games, faults and replays (student.py)

    # ------------------------------------------------------------------ helpers

    when = staticmethod(_when)

    def render(self, request: Request, name: str, status: int = 200, **values: Any) -> HTMLResponse:
        root = _root(request)
        # a student's pages speak to them; the teacher's views of them (student.py) set these to the student's
        defaults = {"session": None, "base": root, "home": root + "/", "own": True, "your": "your", "Your": "Your", "live": True}
        html = self.pages.get_template(name).render(root=root, **{**defaults, **values})
        return HTMLResponse(html, status_code=status)

    def current(self, request: Request) -> tuple[str, Session] | None:
        sid = request.cookies.get(COOKIE, "")
        found = self.state.session(sid) if sid else None
        return None if found is None else (sid, found)

    def need(self, request: Request, teacher: bool = False) -> tuple[str, Session]:
        """The request's live session, or a 403; ``teacher``: the teacher's session only."""
        found = self.current(request)
        if found is None:
            raise HTTPException(403, "You are not signed in: open your sign-in link again (ask your teacher for it).")
        if teacher and not found[1].person.is_teacher:
            raise HTTPException(403, "This page is the teacher's.")
        if not teacher and found[1].person.is_teacher:
            raise HTTPException(403, "This is a student's page; the teacher's is at /teacher.")
        return found

    @staticmethod
    def check_csrf(session: Session, sent: object) -> None:
        if not isinstance(sent, str) or not hmac.compare_digest(sent.encode(), session.csrf.encode()):
            raise HTTPException(403, "This form has expired: reload the page and try again.")

    def cookie_secure(self, request: Request) -> bool:
        s = self.settings.secure_cookies
        return request.url.scheme == "https" if s is None else s

    def deadline(self) -> float | None:
        text = self.state.setting("deadline")
        return float(text) if text else None

    # ------------------------------------------------------------------ signing in and out

    async def sign_in(self, request: Request) -> Response:
        person = self.state.person_for_token(str(request.path_params["token"]))
        if person is None:
            return self.render(request, "message.html", 403, title="Link not valid",
                               message="This sign-in link is not valid (it may have been replaced): ask your teacher for your current link.")
        old = self.current(request)
        if old is not None:
            self.state.end_session(old[0])
            self.live.end_session(secret_hash(old[0]), "you signed in again in this browser")
        sid, _ = self.state.start_session(person, self.clock())
        root = _root(request)
        response = RedirectResponse(root + ("/teacher" if person.is_teacher else "/"), status_code=303)
        response.set_cookie(COOKIE, sid, path=root + "/", httponly=True, samesite="lax", secure=self.cookie_secure(request))
        return response

    async def sign_out(self, request: Request) -> Response:
        sid, session = self.need_any(request)
        form = await request.form(max_files=0, max_fields=4, max_part_size=1024)
        self.check_csrf(session, form.get("csrf") or request.headers.get("x-csrf-token"))
        self.state.end_session(sid, self.clock())
        self.live.end_session(secret_hash(sid), "you signed out")
        root = _root(request)
        response = RedirectResponse(root + "/signed-out", status_code=303)
        response.delete_cookie(COOKIE, path=root + "/", httponly=True, samesite="lax", secure=self.cookie_secure(request))
        return response

    def need_any(self, request: Request) -> tuple[str, Session]:
        found = self.current(request)
        if found is None:
            raise HTTPException(403, "You are not signed in: open your sign-in link again (ask your teacher for it).")
        return found

    async def signed_out(self, request: Request) -> Response:
        return self.render(request, "message.html", title="Signed out",
                           message="You are signed out. Open your sign-in link to come back.")

    # ------------------------------------------------------------------ the student's pages

    def board(self, reader: Session) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """The leaderboard as ``reader`` may see it now (with its rows rendered, ``rows_html``), and a student's own
        ratings: the live board's latest snapshot (no page fits anything). The rows are rendered once per snapshot
        and audience (the teacher's; the one every student shares, where a student's page renders again only their
        own rows, as :meth:`LiveBoard.own_rows` gives them)."""
        live = self.live
        seen = live.audience()
        teacher = reader.person.is_teacher
        view, rows = self.shared_board(teacher, seen)
        if teacher:
            return dict(view, rows_html=Markup("".join(rows))), None
        own, mine = live.own_rows(reader.person, view["rows"], seen)
        html = [board_row(own[i]) if i in own else row for i, row in enumerate(rows)]
        return dict(view, rows_html=Markup("".join(html))), mine

    def shared_board(self, teacher: bool, seen: Any = None) -> tuple[dict[str, Any], list[str]]:
        """The board the teacher, or every student, sees now and its rows rendered: once per snapshot and audience,
        each row rendered again only when its text changed. The live board's task asks for both after each new board
        (:meth:`warm`), so a page finds them made."""
        live = self.live
        seen = seen if seen is not None else live.audience()

        def shared() -> tuple[dict[str, Any], list[str]]:
            view = live.board_view(teacher, seen)
            rows = self.board_rows[teacher].get(
                (((r["bot"], r["preset"]), tuple(r.values()), r) for r in view["rows"]), board_row)
            return view, rows

        # the snapshot's number and the audience object itself: a setting or a roster read again is another audience
        key = (live.snapshot.number, seen, live.problem if teacher else "")
        return self.fragments.get("board-teacher" if teacher else "board-students", key, shared)

    def warm(self) -> None:
        """Render the boards' rows for the teacher and the students now (the live board's task calls this after each
        new board), rather than in the first page request that follows."""
        seen = self.live.audience()
        for teacher in (False, True):
            self.shared_board(teacher, seen)

    def visibility(self) -> Visibility:
        """What the teacher's settings show students of each other."""
        pseudonyms = self.setting("names") == "pseudonyms"
        return Visibility(self.setting("board") == "students", pseudonyms, self.salt() if pseudonyms else "")

    SETTINGS = {"board": ("students", "teacher"), "names": ("names", "pseudonyms")}
    """The teacher's settings and their values, the default first."""

    def setting(self, key: str) -> str:
        value = self.state.setting(key)
        return value if value in self.SETTINGS[key] else self.SETTINGS[key][0]

    def salt(self) -> str:
        salt = self.state.setting("pseudonym_salt")
        if salt is None:
            import secrets

            salt = secrets.token_hex(16)
            self.state.set_setting("pseudonym_salt", salt)  # made once, so pseudonyms stay across restarts
        return salt

    async def set_settings(self, request: Request) -> Response:
        _, session = self.need(request, teacher=True)
        form = await request.form(max_files=0, max_fields=8, max_part_size=1024)
        self.check_csrf(session, form.get("csrf") or request.headers.get("x-csrf-token"))
        for key, choices in self.SETTINGS.items():
            value = form.get(key)
            if value is not None:
                if value not in choices:
                    raise HTTPException(400, f"{key} must be one of {', '.join(choices)}.")
                self.state.set_setting(key, str(value))
        if self.setting("names") == "pseudonyms":
            self.salt()
        self.live.broadcast()  # every open page follows the new settings at once
        return RedirectResponse(_root(request) + "/teacher", status_code=303)

    async def student_page(self, request: Request, error: str = "", status: int = 200) -> Response:
        found = self.current(request)
        if found is not None and found[1].person.is_teacher:
            return RedirectResponse(_root(request) + "/teacher", status_code=303)
        _, session = self.need(request)
        uploads = self.state.uploads_of(session.person.id)
        played = await self.student.overview(session, uploads)
        board, mine = self.board(session)
        return self.render(request, "student.html", status, session=session, uploads=uploads, **played,
                           current=self.state.current(session.person.id), mine=mine,
                           latest=uploads[0] if uploads else None, board=board, deadline=self.deadline(),
                           when=_when, error=error, max_upload=size_text(self.settings.max_upload))

    async def check_status(self, request: Request) -> Response:
        _, session = self.need(request)
        uploads = self.state.uploads_of(session.person.id)
        if not uploads:
            return JSONResponse({"status": "none"})
        up = uploads[0]
        rest = {"rest": True} if up.rest else {}  # the rest of an accepted upload's check runs (portal.js polls on)
        return JSONResponse({"number": up.number, "status": _check_status(up), "result": up.result, **rest})

    async def code(self, request: Request) -> Response:
        _, session = self.need(request)
        return self._code(session.person.id, request.path_params["number"])

    def _code(self, pid: str, number: int) -> Response:
        up = self.state.upload(pid, number)
        if up is None or not up.path.exists():
            raise HTTPException(404, "There is no such file.")
        return PlainTextResponse(up.path.read_bytes(), media_type="text/plain; charset=utf-8")

    async def upload(self, request: Request) -> Response:
        _, session = self.need(request)
        wants_json = "application/json" in request.headers.get("accept", "")
        try:
            filename, data, csrf = await self.read_upload(request)
            self.check_csrf(session, csrf or request.headers.get("x-csrf-token"))
            now = self.clock()  # once: the deadline and the upload's time are the same instant
            deadline = self.deadline()
            if deadline is not None and now >= deadline:
                raise UploadRefused(f"the deadline ({_when(deadline)}) has passed: uploads are closed", 403)
            check_upload(filename, data, self.settings.max_upload)
            # add_upload refuses again against the stored deadline, in its transaction: one set meanwhile counts
            up = await run_in_threadpool(self.state.add_upload, session.person.id, data, filename, now=now,
                                         min_interval=self.settings.upload_interval)  # writes and fsyncs: off the event loop
        except PastDeadline as past:
            return self.refuse(request, wants_json, f"the deadline ({_when(past.deadline)}) has passed: uploads are "
                                                    "closed", 403)
        except UploadRefused as refused:
            return self.refuse(request, wants_json, str(refused), refused.status)
        except TooSoon as soon:
            response = self.refuse(request, wants_json, str(soon), 429)
            response.headers["retry-after"] = str(soon.retry_after)
            return response
        log.info("upload %d of %s stored (%d bytes)", up.number, up.person, up.size)
        if self.on_upload is not None:
            self.on_upload(up)
        if wants_json:
            return JSONResponse({"number": up.number, "status": _check_status(up)})
        return RedirectResponse(_root(request) + "/", status_code=303)

    def refuse(self, request: Request, wants_json: bool, message: str, status: int) -> Response:
        if wants_json:
            return JSONResponse({"error": message}, status_code=status)
        return self.render(request, "message.html", status, title="Upload refused", message=message, back=True)

    async def read_upload(self, request: Request) -> tuple[str, bytes, str | None]:
        """The one file and the csrf field of a multipart upload; the size limit is enforced while reading."""
        limit = self.settings.max_upload
        length = request.headers.get("content-length")
        too_large = UploadRefused(f"the file is larger than {size_text(limit)}: upload a smaller file", 413)
        if length is not None and length.isdigit() and int(length) > limit + _FORM_SLACK:
            raise too_large
        if not request.headers.get("content-type", "").startswith("multipart/form-data"):
            raise UploadRefused("send the file as a form upload (multipart/form-data) with one .py file", 400)

        async def capped() -> AsyncGenerator[bytes, None]:
            total = 0
            async for chunk in request.stream():
                total += len(chunk)
                if total > limit + _FORM_SLACK:
                    raise too_large
                yield chunk

        parser = MultiPartParser(request.headers, capped(), max_files=1, max_fields=4, max_part_size=4096)
        try:
            form = await parser.parse()
        except MultiPartException as exc:
            raise UploadRefused(f"the upload could not be read ({exc}): send one .py file", 400) from None
        try:
            files = [v for _, v in form.multi_items() if isinstance(v, UploadFile)]
            if len(files) != 1:
                raise UploadRefused("choose one .py file to upload", 400)
            data = await files[0].read(limit + 1)
            csrf = form.get("csrf")
            return files[0].filename or "", data, csrf if isinstance(csrf, str) else None
        finally:
            await form.close()

    # ------------------------------------------------------------------ the teacher's pages

    async def teacher_page(self, request: Request) -> Response:
        _, session = self.need(request, teacher=True)
        games = self.games.status() if self.games is not None else None
        root = _root(request)
        changes = self.state.changes()

        def roster() -> tuple[list[str], list[str]]:  # one query each for the uploads, the people and the current files
            latest, current = self.state.latest_uploads(), self.state.currents()
            row = self.pages.get_template("teacher_roster_row.html")
            items = []
            for p in self.state.people():
                if not p.is_teacher:
                    up, count = latest.get(p.id, (None, 0))
                    now = current.get(p.id)
                    items.append((p.id, (root, p, up, count, now), (p, up, count, now)))
            rows = self.roster_rows.get(items, lambda r: row.render(
                root=root, person=r[0], latest=r[1], count=r[2], now=r[3], check_status=_check_status,
                counts_mark=Markup(COUNTS)))
            html = self.pages.get_template("teacher_roster.html").render(rows=Markup("".join(rows)))
            return [pid for pid, _, _ in items], html.split(COUNTS)

        def rejected() -> Markup:
            found = self.state.latest_rejected()
            one = self.pages.get_template("teacher_rejected_one.html")
            rows = self.rejected_rows.get(((up.person, (root, up, count), (up, count)) for up, count in found),
                                          lambda r: one.render(root=root, up=r[0], count=r[1], when=_when))
            return Markup(self.pages.get_template("teacher_rejected.html").render(
                root=root, rows=Markup("".join(rows)), total=sum(n for _, n in found)))

        # the roster is kept until a person or an upload changes; its games and faults cells, which change while games
        # run, are put in at every request
        ids, pieces = self.fragments.get("roster", (root, changes), roster)
        played, faults = (games.games, games.faults) if games is not None else ({}, {})
        roster_html = with_counts(pieces, ids, lambda pid: counts_cells(
            root, pid, played.get(pid, 0) if games is not None else None, faults.get(pid, 0)))
        return self.render(request, "teacher.html", session=session, deadline=self.deadline(), when=_when,
                           board=self.board(session)[0], settings={k: self.setting(k) for k in self.SETTINGS},
                           games=games, outputs=self.outputs(), roster=roster_html,
                           rejected=self.fragments.get("rejected", (root, changes), rejected))

    REJECTED_PER_PAGE = 50

    async def teacher_rejected(self, request: Request) -> Response:
        """Every rejected upload of the class, newest first, :attr:`REJECTED_PER_PAGE` a page (the teacher's page
        shows each student's newest)."""
        _, session = self.need(request, teacher=True)
        try:
            page = max(1, int(request.query_params.get("page", "1")))
        except ValueError:
            page = 1
        per = self.REJECTED_PER_PAGE
        total = sum(n for _, n in self.state.latest_rejected())
        last = max(1, -(-total // per))
        page = min(page, last)
        return self.render(request, "teacher_rejected_all.html", session=session, when=_when, total=total,
                           page=page, pages=last, rejected=self.state.rejected_uploads((page - 1) * per, per))

    async def teacher_code(self, request: Request) -> Response:
        self.need(request, teacher=True)
        return self._code(str(request.path_params["person"]), request.path_params["number"])

    async def files_zip(self, request: Request) -> Response:
        """Every student's current accepted file, as ``<id>.py`` in one zip (built off the event loop)."""
        self.need(request, teacher=True)
        data = await run_in_threadpool(self._zip)
        stamp = time.strftime("%Y%m%d-%H%M", time.localtime(self.clock()))
        return Response(data, media_type="application/zip",
                        headers={"content-disposition": f'attachment; filename="bots-{stamp}.zip"'})

    def _zip(self) -> bytes:
        import io
        import zipfile

        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
            for person in self.state.people():
                number = self.state.current(person.id)
                up = self.state.upload(person.id, number) if number is not None else None
                if up is not None and up.path.exists():
                    z.writestr(f"{person.id}.py", up.path.read_bytes())
        return out.getvalue()

    async def set_deadline(self, request: Request) -> Response:
        _, session = self.need(request, teacher=True)
        form = await request.form(max_files=0, max_fields=4, max_part_size=1024)
        self.check_csrf(session, form.get("csrf") or request.headers.get("x-csrf-token"))
        text = str(form.get("deadline") or "").strip()
        if not text:
            await run_in_threadpool(self.state.set_deadline, None)
        else:
            try:
                when = time.mktime(time.strptime(text.replace("T", " "), "%Y-%m-%d %H:%M"))
            except ValueError:
                return self.render(request, "message.html", 400, title="Deadline not set", back=True,
                                   message=f"{text!r} is not a date and time: write it as 2026-06-30 18:00")
            await run_in_threadpool(self.state.set_deadline, when)  # brings back the deadline's files: off the loop
        if self.games is not None:
            self.games.wake()
        return RedirectResponse(_root(request) + "/teacher", status_code=303)

    # ------------------------------------------------------------------ live ratings (cabo_kit/portal/live.py)

    async def live_stream(self, request: Request) -> Response:
        """The board and the reader's own ratings as Server-Sent Events, sent again at every refit (see :class:`LiveBoard`)."""
        sid, session = self.need_any(request)
        if request.method == "HEAD":  # a stream's body never ends: HEAD gets the headers alone, opens no stream
            return Response(media_type="text/event-stream")
        stream = self.live.open_stream(session.person, secret_hash(sid))
        return StreamingResponse(stream.events(), media_type="text/event-stream",
                                 headers={"x-accel-buffering": "no"})  # a proxy must pass each message on at once

    # ------------------------------------------------------------------ the games (games.py's worker): pause, resume, outputs

    OUTPUTS = {"report.html": "text/html; charset=utf-8", "leaderboard.csv": "text/csv; charset=utf-8"}
    """The tournament's outputs the teacher may open: written by the games after each run."""

    REPORT_CSP = ("sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                  "img-src data:; font-src data:; connect-src 'none'; form-action 'none'; frame-ancestors 'none'; "
                  "base-uri 'none'")
    """report.html's own policy: its inline plotly scripts run, in a sandbox of no origin (they can reach nothing of the
    portal: no cookie, no page, no request)."""

    def outputs(self) -> dict[str, float]:
        """The outputs there are, and when each was written."""
        found = {}
        for name in self.OUTPUTS:
            try:
                found[name] = (self.state.folder / name).stat().st_mtime
            except OSError:
                pass
        return found

    async def set_games(self, request: Request) -> Response:
        _, session = self.need(request, teacher=True)
        form = await request.form(max_files=0, max_fields=4, max_part_size=1024)
        self.check_csrf(session, form.get("csrf") or request.headers.get("x-csrf-token"))
        action = form.get("games")
        if action not in ("pause", "resume"):
            raise HTTPException(400, "games must be pause or resume.")
        if self.games is None:
            self.state.set_setting("games", "paused" if action == "pause" else None)
        elif action == "pause":
            self.games.pause()
        else:
            self.games.resume()
        return RedirectResponse(_root(request) + "/teacher", status_code=303)

    async def teacher_output(self, request: Request) -> Response:
        self.need(request, teacher=True)
        name = request.url.path.rsplit("/", 1)[-1]
        path = self.state.folder / name
        if name not in self.OUTPUTS or not path.is_file():
            raise HTTPException(404, "It is not written yet: the games write it when a run ends.")
        data = await run_in_threadpool(path.read_bytes)
        headers = ({"content-security-policy": self.REPORT_CSP} if name == "report.html"
                   else {"content-disposition": 'attachment; filename="leaderboard.csv"'})
        return Response(data, media_type=self.OUTPUTS[name], headers=headers)

    # ------------------------------------------------------------------ errors

    async def http_error(self, request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        detail = exc.detail if isinstance(exc, HTTPException) and status in (400, 403, 404) else {
            405: "This address does not take that kind of request.", 500: "Something went wrong on the server."}.get(
            status, "This request cannot be served.")
        if status == 404 and not (isinstance(exc, HTTPException) and exc.detail != "Not Found"):
            detail = "There is no such page."
        response = self.render(request, "message.html", status, title="Not allowed" if status == 403 else "Not found"
                               if status == 404 else "Error", message=detail)
        if isinstance(exc, HTTPException) and exc.headers:
            response.headers.update(exc.headers)
        response.headers.update(SECURITY_HEADERS)  # a 500 is answered outside the headers middleware
        response.headers["cache-control"] = "no-store"
        return response


def _check_status(up: Upload) -> str:
    """The check's state as the page hook ``data-status`` shows it: ``running``, ``accepted`` or ``rejected``."""
    return "running" if up.status == "checking" else up.status


def create_app(state: PortalState, settings: PortalSettings | None = None, *,
               clock: Callable[[], float] = time.time, on_upload: Callable[[Upload], None] | None = None,
               live: LiveBoard | None = None, games: Any = None) -> Starlette:
    """The portal app for ``state``'s tournament folder (its roster already synced).

    ``on_upload`` is called with each stored upload (the server wakes its :class:`~cabo_kit.portal.checker.CheckWorker`).
    ``live`` is the live leaderboard (default: one for the folder, fitting in processes of its own); the app's
    lifespan starts and stops its background task.
    ``games``: the server's :class:`~cabo_kit.portal.games.GamesWorker` (pause, resume, its state on the teacher's page).

    >>> import tempfile
    >>> from starlette.testclient import TestClient
    >>> from cabo_kit.portal.roster import Student
    >>> state = PortalState(tempfile.mkdtemp())
    >>> links = state.sync_roster([Student("ada", "Ada")])
    >>> client = TestClient(create_app(state))
    >>> page = client.get(f"/signin/{links['ada']}")            # a session, and the address without the token
    >>> page.status_code, page.url.path, 'id="cabo-portal-upload"' in page.text
    (200, '/', True)
    >>> TestClient(create_app(state)).get("/").status_code       # no session: refused
    403
    >>> state.close()
    """
    portal = _Portal(state, settings or PortalSettings(), clock, on_upload, live, games)
    routes = [
        Route("/signin/{token}", portal.sign_in, methods=["GET"]),
        Route("/signout", portal.sign_out, methods=["POST"]),
        Route("/signed-out", portal.signed_out, methods=["GET"]),
        Route("/", portal.student_page, methods=["GET"]),
        Route("/upload", portal.upload, methods=["POST"]),
        Route("/check", portal.check_status, methods=["GET"]),
        Route("/code/{number:int}", portal.code, methods=["GET"]),
        Route("/teacher", portal.teacher_page, methods=["GET"]),
        Route("/teacher/code/{person}/{number:int}", portal.teacher_code, methods=["GET"]),
        Route("/teacher/deadline", portal.set_deadline, methods=["POST"]),
        Route("/teacher/files.zip", portal.files_zip, methods=["GET"]),
        Route("/teacher/settings", portal.set_settings, methods=["POST"]),
        Route("/teacher/rejected", portal.teacher_rejected, methods=["GET"]),
        *portal.student.routes(),  # the student's games, faults and replays (student.py), before the /static mount
        Route("/live", portal.live_stream, methods=["GET"]),
        # the games (games.py)
        Route("/teacher/games", portal.set_games, methods=["POST"]),
        Route("/teacher/report.html", portal.teacher_output, methods=["GET"]),
        Route("/teacher/leaderboard.csv", portal.teacher_output, methods=["GET"]),
        Mount("/static", StaticFiles(directory=_HERE / "static"), name="static"),
    ]
    handlers: Mapping[Any, Callable[[Request, Exception], Awaitable[Response]]] = {
        HTTPException: portal.http_error, Exception: portal.http_error}

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncGenerator[None, None]:
        await portal.live.start()
        try:
            yield
        finally:
            await portal.live.stop()

    app = Starlette(routes=routes, exception_handlers=dict(handlers), lifespan=lifespan)
    app.add_middleware(_SecurityHeaders)
    app.state.portal = portal
    app.state.live = portal.live
    return app
