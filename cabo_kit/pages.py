"""A tournament's private pages: one per bot for its author (``DIR/bot-pages/NAME.html``) and the teacher's
(``DIR/teacher.html``).

``report.html`` (:mod:`cabo_kit.report`) is safe to show the class: it gives faults as kinds and
counts only. What a student needs to fix their bot, and what only the teacher should see, is here:

* **a bot's page** has its results (the report's numbers) and every fault, grouped by kind
  (``error``, ``timeout``, ``illegal``, ``crash``), each kind with its count and games, a few
  examples in full: the round and turn, the call that failed, the rule broken in the rules' words
  (:func:`cabo_kit.explain.why_illegal`), what the bot saw there (``Observation.describe()``,
  rebuilt from the game's record), its traceback (the frames of its own file only, paths
  replaced by the file's name), what it printed in that deal, and the command that replays it;
  then every fault as a compact table. It quotes only that bot's own code and output.
* **a rejected file's page** (a file that played no game) says why it was refused, paths scrubbed.
* **the teacher's page** has the copy flags (``cabo-kit tournament copies``), the rejected files
  with their full reasons, every bot's faults by kind with the replay commands, and a link to
  every bot's page.

Every text that comes from a bot (its name, traceback, printed output) is escaped: a bot that
prints ``<script>`` shows that text and runs nothing. The pages are plain HTML (no plotly), a few
kilobytes each; :func:`write_pages` writes them all from the results store.

>>> print(own_traceback('choose() raised:\\nTraceback (most recent call last):\\n'
...     '  File "/home/t/lib/cabo_kit/tournament/harness.py", line 680, in serve\\n'
...     '    action = bot.choose(obs, obs.legal_actions)\\n'
...     '  File "/tmp/run-3/alice.py", line 7, in choose\\n    return max(known)\\n'
...     'ValueError: max() arg is an empty sequence', "alice.py"))
choose() raised:
Traceback (most recent call last):
  ...
  File "alice.py", line 7, in choose
    return max(known)
ValueError: max() arg is an empty sequence
"""

from __future__ import annotations

import html
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from .faults import _FRAME, fault_key, first_lines, scrub_paths, what_happened

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pandas as pd

__all__ = ["FaultView", "bot_page_html", "fault_views", "grades_html", "own_traceback", "page_name", "page_names",
           "rejected_page_html", "scrub_paths", "teacher_html", "write_pages"]

PAGES_DIR = "bot-pages"
"""The folder of the bots' pages, in the tournament folder."""
TEACHER_PAGE = "teacher.html"
"""The teacher's page, in the tournament folder."""
EXAMPLES = 3
"""Faults of each kind shown in full on a bot's page (the others are rows of its table)."""

_HEX_TAIL = re.compile(r"-[0-9a-f]{8}")
_ANSWER = re.compile(r"returned '((?:[^'\\]|\\.)*)', which is not legal now")


def _esc(text: object) -> str:
    return html.escape("" if text is None else str(text), quote=True)


def own_traceback(reason: str, filename: str) -> str:
    """A fault's reason with only the traceback frames of the bot's own file ``filename`` (its path replaced by the
    name); the frames of cabo_kit and the libraries become one ``...`` line. A reason without a traceback is kept.
    """
    out: list[str] = []
    keep = True
    for line in reason.rstrip().splitlines():
        m = _FRAME.match(line)
        if m:
            keep = os.path.basename(m.group(2).replace("\\", "/")) == filename
            if keep:
                out.append(f'{m.group(1)}File "{filename}", line {m.group(3)}{m.group(4)}')
            elif not out or out[-1].strip() != "...":
                out.append(f"{m.group(1)}...")
            continue
        if line.startswith((" ", "\t")) and not keep:
            continue  # a source line (or ^^^ marks) of a frame not in the bot's file
        keep = True
        out.append(line)
    return "\n".join(out)


def page_name(bot: str, digits: int = 8) -> str:
    """The file name of ``bot``'s page, from its name alone (the same in every run): the name itself when it is
    all lowercase letters, digits, ``_`` and ``-`` (and does not itself end like a hashed name, ``-`` and 8 hex
    digits); otherwise its lowercased name (other characters as ``_``, cut to 60), ``-`` and the first ``digits``
    hex digits of the name's sha256, so that names differing only in case (``Ada``, ``ada``) never share a file on
    a case-insensitive disk. :func:`write_pages` lengthens the hash if two names still meet.

    >>> page_name("alice"), page_name("Alice"), page_name("<b>o b"), page_name("alice-3bc51062")
    ('alice.html', 'alice-3bc51062.html', '_b_o_b-c1566d12.html', 'alice-3bc51062-bef81926.html')
    """
    import hashlib

    if re.fullmatch(r"[a-z0-9_-]+", bot) and not _HEX_TAIL.search(bot[-9:]):
        return f"{bot}.html"
    stem = re.sub(r"[^a-z0-9_-]", "_", bot.lower())[:60] or "bot"
    return f"{stem}-{hashlib.sha256(bot.encode('utf-8')).hexdigest()[:digits]}.html"


def page_names(names: Sequence[str]) -> dict[str, str]:
    """Each of ``names`` (bots, and rejected files) with its page's file name (:func:`page_name`), no two alike
    (whatever the case): a name whose page would meet another's gets the whole sha256 instead of its first 8 hex
    digits; if even that meets (two equal names), a :class:`ValueError` names them: one student's page must never
    show another's faults.

    >>> page_names(["Alice", "alice-3bc51062"])
    {'Alice': 'alice-3bc51062.html', 'alice-3bc51062': 'alice-3bc51062-bef81926.html'}
    """
    from collections import Counter

    out = {n: page_name(n) for n in names}
    seen = Counter(p.lower() for p in out.values())
    out = {n: page_name(n, 64) if seen[p.lower()] > 1 else p for n, p in out.items()}
    seen = Counter(p.lower() for p in out.values())
    if any(k > 1 for k in seen.values()):
        both = sorted(n for n, p in out.items() if seen[p.lower()] > 1)
        raise ValueError(f"two pages would share a file name ({', '.join(map(repr, both))}): rename one of these files")
    return out


@dataclass
class FaultView:
    """One fault as the bot's page shows it.

    ``fault_id``: the short game id ``repro`` takes; ``call``: the call that failed (``choose()``,
    ``on_round_start()``...); ``round`` (from 1), ``turn``, ``phase``: where the game stopped;
    ``what``: what happened in one line; ``rule``: the rule broken, in the rules' words (illegal
    answers), else ``""``; ``seen``: what the bot saw there (``Observation.describe()`` and the
    legal actions), ``""`` if the record could not be read; ``traceback``: the reason with only
    the bot's own frames; ``printed``: the first lines the bot printed in that deal;
    ``repro``: the command that replays it.
    """

    game_id: str
    fault_id: str
    bot: str
    kind: str
    preset: str
    seat: int
    deal_seed: Any
    call: str
    round: int
    turn: int
    phase: str
    what: str
    rule: str
    seen: str
    traceback: str
    printed: str
    repro: str


def _result_text(result: Any) -> str:
    """A finished round as its players were told it (what ``on_round_end()`` is given)."""
    how = {"cabo": "a Cabo call", "deck": "the deck running out", "empty_hand": "an empty hand",
           "turn_limit": "the turn limit"}.get(str(result.ended_by), str(result.ended_by))
    lines = [f"round {result.index + 1} ended by {how}"
             + (f" (seat {result.caller} called Cabo and {'won' if result.caller_won else 'lost'})"
                if result.caller is not None else "")]
    for seat, hand in enumerate(result.final_hands):
        lines.append(f"  seat {seat}: hand {' '.join(str(c) for c in hand) or '(empty)'} = {result.totals[seat]}, "
                     f"round score {result.scores[seat]}, game total {result.game_totals[seat]}")
    return "\n".join(lines)


def _where(record: Any, seat: int, call: str = "choose()") -> tuple[Any, str, int, int, str]:
    """Where the record ends (the fault) for ``seat``: ``(observation, what it saw, round from 1, turn, phase)``.

    A fault in ``on_round_end()`` happened at the end of the round the record's last result holds (the record
    already holds the next deal): that round's result is what the bot saw, never the next round's cards. The legal
    moves are shown only for a ``choose()``.
    """
    from .explain import legal_text

    if call.startswith("on_round_end()"):
        game = record.replay()
        if game.results:
            result = game.results[-1]
            return None, _result_text(result.for_players()), result.index + 1, result.turns, "end of round"
    obs = record.view(seat, len(record.actions))
    seen = obs.describe()
    if "choose()" in call:
        legal = obs.legal_actions
        seen += ("\n  legal  : " + legal_text(legal, 24)) if len(legal) else "\n  (not this seat's move)"
    return obs, seen, obs.round + 1, obs.turn, str(obs.phase)


def _rule(reason: str, obs: Any) -> str:
    """The rule an illegal answer broke, in the rules' words (:func:`cabo_kit.explain.why_illegal`)."""
    from .actions import Action, ActionParseError
    from .explain import why_illegal

    m = _ANSWER.search(reason)
    if m is not None and obs is not None:
        try:
            action = Action.parse(m.group(1))
        except (ActionParseError, ValueError):
            action = None
        if action is not None:
            return why_illegal(obs, obs.legal_actions, action)
    line = what_happened(reason)  # "not an action", or a store of another version: its own words
    return line.split("which is not legal now: ", 1)[-1] if "not legal now" in line else line


def _printed(logs: Path | None, bot: str, deal_id: str, folder: Path | None) -> str:
    """The first lines ``bot`` printed in that deal (its log, ``logs/BOT-DEAL.log``), paths scrubbed."""
    if logs is None or not deal_id:
        return ""
    path = logs / f"{bot}-{str(deal_id)[:12]}.log"
    try:
        with open(path, "rb") as f:
            text = f.read(4096).decode("utf-8", "replace")
    except OSError:
        return ""
    return scrub_paths("\n".join(first_lines(text)), f"{bot}.py", folder)


def fault_views(db: "str | os.PathLike[str]", faults: "pd.DataFrame", folder_name: str = "DIR",
                logs: "str | os.PathLike[str] | None" = None) -> list[FaultView]:
    """Each fault of ``faults`` (rows of the ``seats`` frame whose ``status`` is not ``ok``) as a :class:`FaultView`,
    its game rebuilt from the store ``db``'s record up to the fault. ``folder_name``: how the repro command names
    the tournament folder (its name only, not its path); ``logs``: the folder of the bots' logs.
    """
    from .tournament.replay_fault import fault_call, fault_sentence, repro_command, short_ids
    from .tournament.store import StoreError, _db_path, load_record

    db = _db_path(Path(db))
    folder = db.parent
    ids = short_ids([str(g) for g in faults["game_id"]]) if len(faults) else {}
    logs_dir = Path(logs) if logs is not None else None
    views = []
    for _, r in faults.iterrows():
        gid, bot, seat, reason = str(r["game_id"]), str(r["bot"]), int(r["seat"]), str(r["fault"])
        filename = f"{bot}.py"
        call = fault_call(reason)
        obs, seen, rnd, turn, phase = None, "", 0, 0, ""
        try:
            obs, seen, rnd, turn, phase = _where(load_record(db, gid), seat, call)
        except (StoreError, ValueError, KeyError, IndexError, TypeError):  # an old or damaged record: the rest stays
            seen = ""
        kind = str(r["status"])
        views.append(FaultView(
            game_id=gid, fault_id=ids.get(gid, gid[:8]), bot=bot, kind=kind, preset=str(r["preset"]), seat=seat,
            deal_seed=r.get("deal_seed", "?"), call=call, round=rnd, turn=turn, phase=phase,
            what=scrub_paths(fault_sentence(reason, filename), filename, folder),
            rule=_rule(reason, obs) if kind == "illegal" else "", seen=seen,
            traceback=scrub_paths(own_traceback(reason, filename), filename, folder),
            printed=_printed(logs_dir, bot, str(r.get("deal_id", "")), folder),
            repro=repro_command(folder_name, ids.get(gid, gid))))
    return views


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    from .report import _table as table

    return table(header, rows)


def _when(v: FaultView) -> str:
    """Where a fault happened, in words: ``round 2, turn 5, phase drawn``, or ``end of round 2``."""
    if v.phase == "end of round":
        return f"end of round {v.round}"
    return f"round {v.round}, turn {v.turn}, phase {v.phase}"


def _game(v: FaultView, link: "Callable[[FaultView], str] | None") -> str:
    code = f"<code>{_esc(v.fault_id)}</code>"
    return f'<a href="{_esc(link(v))}">{code}</a>' if link is not None else code


def _faults_html(views: Sequence[FaultView], examples: int = EXAMPLES, prefix: str = "",
                 link: "Callable[[FaultView], str] | None" = None) -> str:
    """A bot's faults grouped by kind: count and games, a few in full, then all of them as a table (``prefix``: of the
    kinds' anchors, so that two lists of faults share a page; ``link``: the address a fault's game id links to, e.g.
    its replay). A view without a deal seed (``""``) is shown without one."""
    from .report import _kinds

    if not views:
        return "<p>None: it never raised, timed out, answered illegally or crashed.</p>"
    out = []
    for kind in _kinds({v.kind for v in views}):
        mine = [v for v in views if v.kind == kind]
        games = sorted({v.game_id for v in mine})
        out.append(f'<h3 id="{_esc(prefix + kind)}"><span class="bad">{_esc(kind)}</span>: {len(mine)} '
                   f"fault{'s' if len(mine) != 1 else ''} in {len(games)} game{'s' if len(games) != 1 else ''}</h3>")
        # The examples: one of each different thing that happened first, then the next ones.
        seen: dict[str, int] = {}
        firsts = []
        for v in mine:
            key = fault_key(v.kind, v.what)
            if key not in seen:
                firsts.append(v)
            seen[key] = seen.get(key, 0) + 1
        shown = (firsts + [v for v in mine if v not in firsts])[:examples]
        for v in shown:
            same = seen[fault_key(v.kind, v.what)]
            times = f" ({same} faults like it)" if same > 1 else ""
            head = v.what.split(" which is not legal now: ")[0] + " which is not legal now" if v.rule and \
                " which is not legal now: " in v.what else v.what
            seed = f"deal seed {_esc(v.deal_seed)}, " if v.deal_seed not in ("", None) else ""
            parts = [f'<div class="fault"><p><b>{_esc(head)}</b>{_esc(times)}</p>',
                     f"<p>Game {_game(v, link)} ({_esc(v.preset)}, {seed}"
                     f"seat {v.seat}): {_esc(_when(v))}, in <code>{_esc(v.call)}</code>.</p>"]
            if v.rule:
                parts.append(f"<p>The rule: {_esc(v.rule)}</p>")
            if v.seen:
                label = ("What the bot was given at that decision" if v.call == "choose()" else
                         "The round's result, as the bot was given it" if v.phase == "end of round" else
                         "The game at that point, as the bot could see it")
                parts.append(f"<p>{label}:</p><pre>{_esc(v.seen)}</pre>")
            if v.traceback and v.traceback.strip() != v.what:
                parts.append(f"<p>What was raised (the lines of its own file):</p><pre>{_esc(v.traceback)}</pre>")
            if v.printed:
                parts.append(f"<p>What it printed in that deal (first lines):</p><pre>{_esc(v.printed)}</pre>")
            if v.repro:
                parts.append(f"<p>Replay it with the bot's current file: <code>{_esc(v.repro)}</code></p>")
            parts.append("</div>")
            out.append("".join(parts))
        rows = [[_game(v, link), _esc(v.preset), str(v.round), str(v.turn), _esc(v.phase),
                 f"<code>{_esc(v.call)}</code>", _esc(v.rule or v.what)] for v in mine]
        out.append(f"<details{' open' if len(mine) <= 20 else ''}><summary>All {len(mine)} {_esc(kind)} faults</summary>"
                   + _table(["fault", "preset", "round", "turn", "phase", "call", "what happened"], rows) + "</details>")
    return "".join(out)


_CSS_EXTRA = ".fault{background:#fff;border:1px solid #d9dde5;border-radius:6px;padding:4px 14px;margin:10px 0}"


def _page(title: str, body: str) -> str:
    from .report import _CSS

    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{_esc(title)}</title>"
            f"<style>{_CSS}{_CSS_EXTRA}</style></head><body><main>\n{body}\n</main></body></html>\n")


def bot_page_html(bot: str, views: Sequence[FaultView], overview: str = "", printed: str = "",
                  title: str = "Cabo tournament", rejected: str = "", grades: str = "",
                  grading: "Sequence[FaultView]" = ()) -> str:
    """One bot's page: its results (``overview``, HTML from :func:`cabo_kit.report.bot_overviews`), its faults by kind
    (:func:`fault_views`), and ``printed`` (HTML of what it printed, from :func:`cabo_kit.report.printed_html`);
    ``rejected``: why its current file was refused (its games are an earlier version's), paths scrubbed;
    ``grades``: HTML of its grades (:func:`grades_html`); ``grading``: its faults in the grading matches
    (``grades.sqlite``), shown after the tournament's.

    >>> page = bot_page_html("<b>ob", [])
    >>> "&lt;b&gt;ob" in page and "<b>ob" not in page
    True
    """
    n = len(views)
    from .report import _kinds

    counts = ", ".join(f"{sum(v.kind == k for v in views)} {k}" for k in _kinds({v.kind for v in views}))
    body = [f"<h1>{_esc(bot)}</h1>",
            f'<p class="summary">{_esc(title)}: this page is for the author of {_esc(bot)} and the teacher. '
            f"Faults: {n}{' (' + _esc(counts) + ')' if n else ''}.</p>",
            '<h2 id="results">Results</h2>', overview or "<p>No games.</p>", grades,
            *([f'<h2 id="rejected">Its current file was rejected</h2><p>These results are an earlier version\'s; '
               f"the file now in the folder was not played:</p><pre>{_esc(rejected)}</pre>"] if rejected else []),
            f'<h2 id="faults">Faults ({n})</h2>', _faults_html(views)]
    if n:
        body.append('<p class="muted">Each fault lost its game. The replay plays the game again from its start with the '
                    "bot's current file (the other seats' recorded answers forced) and says whether the faulted "
                    "call still fails; <code>--pytest test_fault.py</code> also writes a test of it.</p>")
    if grading:
        body += [f'<h2 id="grading-faults">Faults in the grading matches ({len(grading)})</h2>',
                 "<p>The one-on-one games against the grading bots (stored apart in <code>grades.sqlite</code>; "
                 "each fault lost its game, which counts in the grade, not in the ratings).</p>",
                 _faults_html(grading, prefix="grading-")]
    if printed:
        body.append(printed)
    return _page(f"{bot}: {title}", "\n".join(body))


def grades_html(board: "pd.DataFrame", bot: str) -> str:
    """``bot``'s grades as the leaderboard gives them (its ``vs BAR`` columns, from
    :func:`cabo_kit.tournament.grades.grade_columns`), one row per preset; ``""`` when it has none."""
    graded = [c for c in board.columns if str(c).startswith("vs ")]
    if not graded or not len(board):
        return ""
    mine = board[board["bot"] == bot]
    rows = [[_esc(r["preset"])] + [_esc(r[c]) if str(r[c]) not in ("", "nan") else "–" for c in graded]
            for _, r in mine.iterrows() if any(str(r[c]) not in ("", "nan") for c in graded)]
    if not rows:
        return ""
    return ('<h3 id="grades">Grades</h3><p>Against the grading bots, one on one on the same deals: above, level or '
            "below, with the Elo difference, its 95% interval and the games played.</p>"
            + _table(["preset"] + [str(c) for c in graded], rows))


def rejected_page_html(file: str, reason: str, title: str = "Cabo tournament") -> str:
    """The page of a file the tournament refused (for its author): why, in ``reason``'s words (paths scrubbed by the
    caller: :func:`scrub_paths`), and how to check it again.

    >>> page = rejected_page_html("bob.py", "SyntaxError: expected ':' (bob.py, line 3)")
    >>> "was not played" in page and "expected &#x27;:&#x27;" in page and "cabo-kit check-bot bob.py" in page
    True
    """
    return _page(f"{file}: {title}", "\n".join([
        f"<h1>{_esc(file)}</h1>",
        f'<p class="summary">{_esc(title)}: this page is for the author of {_esc(file)} and the teacher.</p>',
        '<h2 id="rejected">Rejected: it was not played</h2>',
        "<p>The tournament could not load this file, so it played no game. Why:</p>",
        f"<pre>{_esc(reason)}</pre>",
        f"<p>Fix it, check it with <code>{_esc('cabo-kit check-bot ' + file)}</code>, and hand it in again.</p>"]))


def teacher_html(title: str, pages: dict[str, str], views: Sequence[FaultView], rejected: "pd.DataFrame",
                 folder: "str | os.PathLike[str] | None", refused: "dict[str, str] | None" = None) -> str:
    """The teacher's page: links to every bot's page (``pages``: bot -> file name in ``bot-pages/``), the copy flags
    (:func:`cabo_kit.report.copies_section`), the rejected files with their full reasons and a link to each one's
    page (``refused``: file -> page name), and each fault's replay.
    """
    from .report import _kinds, copies_section
    from .tournament.replay_fault import repro_command

    body = [f"<h1>{_esc(title)}: the teacher's page</h1>",
            '<p class="summary">For the teacher only: it names possible copies and quotes rejected files. '
            "<code>report.html</code> is the page to show the class; each student gets their bot's page.</p>",
            '<h2 id="pages">Bot pages</h2>']
    rows = []
    for bot, name in sorted(pages.items()):
        mine = [v for v in views if v.bot == bot]
        kinds = ", ".join(f"{sum(v.kind == k for v in mine)} {k}" for k in _kinds({v.kind for v in mine}))
        rows.append([_esc(bot), f'<a href="{PAGES_DIR}/{_esc(name)}">{PAGES_DIR}/{_esc(name)}</a>',
                     str(len(mine)), _esc(kinds)])
    body.append(_table(["bot", "its page (hand it to its author)", "faults", "by kind"], rows))
    body.append(copies_section(folder))
    body.append('<h2 id="rejected">Rejected files</h2>')
    if len(rejected):
        link = refused or {}
        body.append(_table(["file", "its page (hand it to its author)", "reason (in full)"], [
            [f"<code>{_esc(r['file'])}</code>",
             f'<a href="{PAGES_DIR}/{_esc(link[r["file"]])}">{PAGES_DIR}/{_esc(link[r["file"]])}</a>'
             if r["file"] in link else "its bot's page", f"<pre>{_esc(r['reason'])}</pre>"]
            for _, r in rejected.iterrows()]))
    else:
        body.append("<p>None: every file loaded.</p>")
    body.append('<h2 id="faults">Faults</h2>')
    if views:
        where = str(Path(folder).resolve()) if folder is not None else "DIR"
        body.append(_table(["bot", "kind", "fault", "what happened", "replay it"], [
            [_esc(v.bot), _esc(v.kind), f"<code>{_esc(v.fault_id)}</code>", _esc(v.what),
             f"<code>{_esc(repro_command(where, v.fault_id))}</code>"] for v in views]))
    else:
        body.append("<p>None.</p>")
    return _page(f"{title}: teacher", "\n".join(body))


def write_pages(source: "str | os.PathLike[str]", board: "pd.DataFrame | None" = None, title: str | None = None,
                worst: int = 5) -> tuple[Path, dict[str, Path]]:
    """Write ``DIR/teacher.html`` and a page per bot in ``DIR/bot-pages/`` from the tournament's store; return the
    teacher's page and ``{bot: its page}``. A rejected file with no games gets a page saying why
    (:func:`rejected_page_html`); the pages are named by :func:`page_names` (a :class:`ValueError` if two
    would share a file, before any is written).

    ``source``: the tournament folder or its ``results.sqlite``; ``board``: the fit of
    :func:`~cabo_kit.results.ratings.fit_elo` (fitted here if not given). Pages of bots no
    longer in the store are removed.
    """
    import pandas as pd

    from .report import _scored, bot_overviews, log_files, printed_html
    from .results.outcomes import per_rule
    from .results.ratings import fit_elo
    from .tournament.store import _db_path, load_frames, load_rejected

    db = _db_path(Path(source))
    folder = db.parent
    title = title or f"Cabo tournament: {folder.resolve().name}"
    games, seats = load_frames(db)
    rejected = load_rejected(db)
    if board is None:  # fitted as the leaderboard is (with the configured anchor), and with its grades
        from .tournament.config import ConfigError, load_config
        from .tournament.grades import grade_columns

        try:
            cfg = load_config(folder)[0]
        except ConfigError:  # `tournament run` names the problem; the pages still show the games stored
            board = fit_elo(seats)
        else:
            board = grade_columns(folder, fit_elo(seats, anchor=cfg.anchor or None), seats, cfg)
    seats = _scored(seats)
    if len(seats) and len(games) and "deal_seed" in games.columns:
        seats = seats.merge(games[["game_id", "deal_seed"]], on="game_id", how="left")
    seed_of = dict(zip(games["game_id"], games["deal_seed"])) if len(games) and "deal_seed" in games.columns else {}
    faults = seats[seats["status"] != "ok"] if len(seats) else pd.DataFrame()
    if len(faults) and "game_index" in faults.columns:
        faults = faults.sort_values(["game_index", "seat"], kind="stable")
    logs = folder / "logs" if (folder / "logs").is_dir() else None
    views = fault_views(db, faults, folder.resolve().name, logs) if len(faults) else []
    overviews = bot_overviews(seats, board, per_rule(seats) if len(seats) else None, seed_of, worst)
    logged = log_files(logs) if logs is not None else {}
    grading = _grading_views(folder, seats, logs / "grades" if logs is not None else None)
    from .tournament.config import builtin_bots

    # a rejected file named like a reference bot (GreedyBot.py) is not that bot: it gets a page of its own
    why = {Path(str(r["file"])).stem: str(r["reason"]) for _, r in rejected.iterrows()
           if Path(str(r["file"])).stem not in builtin_bots()}
    unplayed: dict[str, str] = {}  # a rejected file with no games (its page says why it was not played): its page's key
    for _, r in rejected.iterrows():
        stem = Path(str(r["file"])).stem
        if stem not in why or stem not in overviews:
            key = stem if stem not in overviews else Path(str(r["file"])).name
            unplayed[str(r["file"])] = key if key not in overviews else f"rejected {r['file']}"
    names = page_names([*overviews, *unplayed.values()])  # no two pages share a file (ValueError before any is written)
    out_dir = folder / PAGES_DIR
    out_dir.mkdir(exist_ok=True)
    written: dict[str, Path] = {}
    for bot in sorted(overviews):
        printed = (printed_html(bot, logs, logged.get(bot, []), lambda text: scrub_paths(text, f"{bot}.py", folder))
                   if logs is not None else "")
        page = bot_page_html(bot, [v for v in views if v.bot == bot], overviews[bot], printed, title,
                             rejected=scrub_paths(why[bot], f"{bot}.py", folder) if bot in why else "",
                             grades=grades_html(board, bot), grading=[v for v in grading if v.bot == bot])
        written[bot] = _write(out_dir / names[bot], page)
    refused: dict[str, Path] = {}
    for _, r in rejected.iterrows():
        if str(r["file"]) in unplayed:
            refused[str(r["file"])] = _write(out_dir / names[unplayed[str(r["file"])]], rejected_page_html(
                str(r["file"]), scrub_paths(str(r["reason"]), Path(str(r["file"])).name, folder), title))
    kept = {p.name for p in written.values()} | {p.name for p in refused.values()}
    for old in out_dir.glob("*.html"):
        if old.name not in kept:  # the page of a bot (or file) no longer in the store
            old.unlink()
    teacher = _write(folder / TEACHER_PAGE, teacher_html(title, {b: p.name for b, p in written.items()}, views,
                                                          rejected, folder, {f: p.name for f, p in refused.items()}))
    return teacher, written


def _grading_views(folder: Path, seats: "pd.DataFrame", logs: Path | None) -> list[FaultView]:
    """The faults of the files' rated versions in the grading matches (``DIR/grades.sqlite``), without a replay
    command (``tournament repro`` replays the tournament's games)."""
    from .tournament.grades import GRADES_DB
    from .tournament.store import StoreError, load_frames

    path = folder / GRADES_DB
    if not path.exists() or not len(seats):
        return []
    try:
        games, graded = load_frames(path)
    except StoreError:  # a damaged grades store: `tournament grades` names it; the pages still show the rest
        return []
    if not len(graded):
        return []
    rated = set(zip(seats["bot"], seats["version"]))
    mine = [(b, v) in rated for b, v in zip(graded["bot"], graded["version"])]
    faults = graded[(graded["status"] != "ok").to_numpy() & mine]
    if not len(faults):
        return []
    if "deal_seed" in games.columns:
        faults = faults.merge(games[["game_id", "deal_seed"]], on="game_id", how="left")
    if "game_index" in faults.columns:
        faults = faults.sort_values(["game_index", "seat"], kind="stable")
    views = fault_views(path, faults, folder.resolve().name, logs)
    for v in views:
        v.repro = ""
    return views


def _write(path: Path, text: str) -> Path:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return path
