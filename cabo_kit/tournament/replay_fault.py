"""Replaying a tournament fault with a bot's current file: ``cabo-kit tournament repro DIR FAULT``.

A fault is named by its game's id (the bot's page shows its first 8 hex digits; any prefix that
only one fault has will do) or by a bot's name (that bot's first fault). :func:`repro` plays
the faulted game again from its start: the same rules, deal seed, table size and seat, the
engine's chance events as they came (they follow from the seed), the other seats' answers
forced from the game's record, and the faulting seat played by the bot's file as it is now
(default ``DIR/bots/BOT.py``), isolated as in the tournament (an
:class:`~cabo_kit.tournament.isolation.IsolatedBot` under ``tournament.toml``'s limits). The
bot gets every observation and hook call it got in the tournament, and the replay ends at
the call that failed, with one of three answers (:class:`ReproResult`):

- ``"fails"``: "the faulted decision still fails: ..." (the same kind of sentence as the fault's);
- ``"fixed"``: "fixed: at the faulted decision your bot now answers X (legal)";
- ``"differs"``: the bot answered an earlier decision differently from the record (or failed
  there): the others' recorded answers no longer fit that game, so the replay stops there.

:func:`write_pytest` writes a standalone test that makes the same replay and asserts a legal
answer within the time limit.

>>> import pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> (folder / "bots").mkdir()
>>> _ = (folder / "tournament.toml").write_text('presets = ["rush"]\\ntable_sizes = [2]\\ngames = 1\\n')
>>> bot = folder / "bots" / "second.py"
>>> _ = bot.write_text("import cabo_kit as ck\\nclass Second(ck.Bot):\\n    n = 0\\n"
...                    "    def choose(self, obs, legal):\\n        self.n += 1\\n"
...                    "        if self.n == 2:\\n            raise ValueError('oops')\\n        return legal[0]\\n")
>>> from cabo_kit.tournament import run_tournament
>>> _ = run_tournament(folder, workers=1, progress=False, out=None)
>>> result = repro(folder, "second")
>>> result.status, result.message
('fails', 'the faulted decision still fails: choose() raised ValueError: oops (second.py, line 7)')
>>> _ = bot.write_text(bot.read_text().replace("raise ValueError('oops')", "pass"))
>>> print(repro(folder, "second").message)          # doctest: +ELLIPSIS
fixed: at the faulted decision (round 1, turn ..., phase ...) your bot now answers ... (legal)
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from ..actions import Action
from ..bot import Bot
from ..observation import Observation
from .store import DB_NAME, StoredFault, load_faults, load_record

__all__ = ["ReproError", "ReproResult", "repro", "find_fault", "short_ids", "repro_command", "write_pytest",
           "fault_call", "fault_sentence", "repro_cli"]

MIN_ID = 8
"""Hex digits of a game id the pages show to name a fault (more when two faults share them)."""


class ReproError(ValueError):
    """A fault cannot be replayed as asked (unknown or ambiguous id, no such file...); the message says what to do."""


@dataclass
class ReproResult:
    """What a replay found. ``status``: ``"fails"``, ``"fixed"`` or ``"differs"``; ``message``: the sentence.

    ``fault``: the stored fault; ``file``, ``version``: the file replayed and its version;
    ``observation``: what the bot was given at the decision the replay ended on (``None`` when
    it ended in another call: ``on_game_start``, ``on_round_start``...); ``hook``: that call; ``answer``: the bot's answer
    there (``None`` if it failed); ``recorded``: the record's answer there (``differs``);
    ``reason``: the full reason (traceback) of a fault in the replay; ``output``: what the bot
    printed during the replay; ``round``, ``turn``, ``phase``: where (round from 1).
    """

    status: str
    message: str
    fault: StoredFault
    file: Path
    version: str
    hook: str = ""
    observation: Observation | None = None
    answer: Action | None = None
    recorded: Action | None = None
    reason: str = ""
    output: str = ""
    round: int = 0
    turn: int = 0
    phase: str = ""

    @property
    def fixed(self) -> bool:
        """Whether the faulted call now passes (the bot answers legally, in time)."""
        return self.status == "fixed"

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"<ReproResult {self.status} of {self.fault.game_id[:MIN_ID]} with {self.file.name}: {self.message}>"


# ------------------------------------------------------------------ naming faults


def short_ids(ids: Sequence[str], at_least: int = MIN_ID) -> dict[str, str]:
    """The shortest prefix (of at least ``at_least`` digits) that tells each id apart from the others.

    >>> short_ids(["3f2a9c1b00aa", "3f2a9c1b11bb", "77aa0000cccc"])
    {'3f2a9c1b00aa': '3f2a9c1b0', '3f2a9c1b11bb': '3f2a9c1b1', '77aa0000cccc': '77aa0000'}
    """
    ordered = sorted(set(ids))
    out = {}
    for i, gid in enumerate(ordered):
        need = at_least
        for other in (ordered[i - 1] if i else "", ordered[i + 1] if i + 1 < len(ordered) else ""):
            common = len(os.path.commonprefix([gid, other]))
            need = max(need, common + 1)
        out[gid] = gid[:need]
    return out


def repro_command(folder: str | os.PathLike[str], fault: str) -> str:
    """The command that replays ``fault`` of the tournament in ``folder`` (quoted for a POSIX shell).

    >>> repro_command("my class", "3f2a9c1b")
    "cabo-kit tournament repro 'my class' 3f2a9c1b"
    """
    return f"cabo-kit tournament repro {shlex.quote(str(folder))} {fault}"


def find_fault(folder: str | os.PathLike[str], key: str) -> StoredFault:
    """The stored fault named ``key``: a prefix of its game id (at least 4 hex digits), or a bot's name (its first
    fault in the latest run's schedule, else its first stored one).

    Raises :class:`ReproError` naming the faults there are when none or several match.
    """
    db = Path(folder) / DB_NAME
    return _pick(load_faults(db), key, db)


def _pick(faults: list[StoredFault], key: str, db: Path) -> StoredFault:
    """The fault of ``faults`` (those of the store ``db``) named ``key``: see :func:`find_fault`."""
    key = key.strip()
    if not key:
        raise ReproError("say which fault: its game id as the bot's page shows it (e.g. 3f2a9c1b), or a bot's name")
    if not faults:
        raise ReproError(f"{db} holds no fault: every game stored ended normally")
    by_bot = [f for f in faults if f.bot == key]
    if by_bot:  # the latest run's games first: an older file version's faults may be fixed already
        return next((f for f in by_bot if f.current), by_bot[0])
    hexy = re.fullmatch(r"[0-9a-fA-F]+", key) is not None
    found = [f for f in faults if f.game_id.startswith(key.lower())] if hexy and len(key) >= 4 else []
    names = short_ids([f.game_id for f in faults])
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        shown = ", ".join(f"{names[f.game_id]} ({f.bot})" for f in found[:8])
        raise ReproError(f"{key!r} starts the ids of {len(found)} faults: {shown}{', ...' if len(found) > 8 else ''}; "
                         "give more digits")
    bots = sorted({f.bot for f in faults})
    example = ", ".join(f"{names[f.game_id]} ({f.bot})" for f in faults[:3])
    what = "a game id needs at least 4 hex digits" if hexy and len(key) < 4 else f"no fault's game id starts with {key!r}"
    raise ReproError(f"no fault {key!r} in {db}: {what}, and no bot of that name faulted. Name a fault by its game id "
                     f"as the bot's page shows it (e.g. {example}) or by a bot's name (faulted: {', '.join(bots)})")


# ------------------------------------------------------------------ sentences


def fault_sentence(reason: str, filename: str = "") -> str:
    """A fault's reason as one sentence: a traceback becomes its last line with the hook and the line of ``filename``.

    >>> tb = ('choose() raised:\\nTraceback (most recent call last):\\n  File "/x/raises.py", line 12, in choose\\n'
    ...       '  File "/x/raises.py", line 16, in compute\\nValueError: boom')
    >>> fault_sentence(tb, "raises.py")
    'choose() raised ValueError: boom (raises.py, line 16)'
    >>> fault_sentence("choose() took longer than the 0.2 s limit")
    'choose() took longer than the 0.2 s limit'
    """
    from .isolation import one_line_reason, own_line

    text = reason.strip()
    lines = text.splitlines()
    if not lines:
        return "(no reason given)"
    if "Traceback (most recent call last)" not in text:
        return lines[0]
    head = lines[0].rstrip(":").strip()
    last = one_line_reason(text, "")  # the last line; the line of the bot's file goes after it, with the file
    own = own_line(text, filename)
    where = f" ({filename}, line {own})" if own else ""
    if head.endswith(" raised"):
        return f"{head} {last}{where}"
    return f"{head}: {last}{where}" if head != last else f"{last}{where}"


def fault_call(reason: str) -> str:
    """The call a fault's reason names, as it names it: the hooks sent ahead of a decision and that decision when the
    process died among them (it cannot say which), else the one call (``"choose()"`` when it names none).

    >>> fault_call("on_round_start() or the choose() after it: the bot's process exited with code 3")
    'on_round_start() or the choose() after it'
    >>> fault_call("on_game_end() raised:\\nTraceback ..."), fault_call("the bot's process was killed")
    ('on_game_end()', 'choose()')
    """
    from .store import fault_hook

    head = reason.lstrip().split("\n", 1)[0]
    if fault_hook(head) and re.match(r"[\w(), ]+ or the \w+\(\) after (it|them): ", head):
        return head.split(": ", 1)[0]
    return fault_hook(reason) or "choose()"


def _where(round_: int, turn: int, phase: str) -> str:
    return f"round {round_ + 1}, turn {turn}, phase {phase}"


# ------------------------------------------------------------------ the replay


class _Stop(BaseException):
    """Ends a replay from inside the game loop (a BaseException: the tournament's loop lets it through)."""

    def __init__(self, what: str, observation: Observation | None = None, answer: Action | None = None,
                 recorded: Action | None = None) -> None:
        super().__init__(what)
        self.what, self.observation, self.answer, self.recorded = what, observation, answer, recorded


class _Forced(Bot):
    """A seat that answers what the record says it answered, in order. Past the record's end: if the game
    has reached the point where the tournament's game stopped (a hook failed there and now passes), the
    replay is done; otherwise it no longer follows the record."""

    def __init__(self, seat: int, answers: list[Action], reached: Callable[[], bool]) -> None:
        super().__init__()
        self.seat, self.answers, self.next, self.reached = seat, answers, 0, reached

    def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        if self.next >= len(self.answers):
            raise _Stop("passed" if self.reached() else "record ends")
        self.next += 1
        return self.answers[self.next - 1]


class _Replayed(Bot):
    """The faulting seat: its file answers; each answer is held against the record, and the call after the
    record's last answer (the one that failed) ends the replay."""

    def __init__(self, bot: Any, answers: list[Action]) -> None:
        super().__init__()
        self.bot, self.answers, self.next = bot, answers, 0

    def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        action = self.bot.choose(observation, legal_actions)
        if self.next >= len(self.answers):
            raise _Stop("answered", observation, action)
        expected = self.answers[self.next]
        if action != expected:
            raise _Stop("differs", observation, action, expected)
        self.next += 1
        return action

    def on_game_start(self, seat: int, n_players: int, rules: Any) -> None:
        self.bot.on_game_start(seat, n_players, rules)

    def on_round_start(self, observation: Observation) -> None:
        self.bot.on_round_start(observation)
        self._settle()

    def on_round_end(self, result: Any) -> None:
        self.bot.on_round_end(result)
        self._settle()

    def _settle(self) -> None:
        # An isolated bot's hook runs ahead of its next choose(): wait for it here, so a hook that kills the
        # process is named (the tournament's reason could only say "on_round_start() or the choose() after it").
        settle = getattr(self.bot, "settle", None)
        if settle is not None:
            settle()

    def on_game_end(self, totals: list[int], winners: list[int]) -> None:
        self.bot.on_game_end(totals, winners)


def repro(folder: str | os.PathLike[str], fault: str | StoredFault,
          file: str | os.PathLike[str] | None = None) -> ReproResult:
    """Replay ``fault`` (a name as :func:`find_fault` takes it, or a stored fault) of the tournament in ``folder``
    with the bot's current file (or ``file``); see the module.

    Raises :class:`ReproError` (or ``ConfigError``/``StoreError``) when it cannot replay: an
    unknown fault, a missing file, a fault of a reference bot. A file that no longer loads is
    a ``"fails"`` result.
    """
    from ..play import bot_random
    from .config import load_config
    from .isolation import IsolatedBot, SubmissionError, _file_version, load_submission
    from .runner import play_one

    folder = Path(folder)
    if not (folder / DB_NAME).exists():
        raise ReproError(f"no results store in {folder}: give the tournament folder (it holds {DB_NAME})")
    cfg, _ = load_config(folder)
    f = fault if isinstance(fault, StoredFault) else find_fault(folder, fault)
    path = Path(file) if file is not None else folder / "bots" / f"{f.bot}.py"
    if not path.is_file():
        from .. import bots as builtin

        if file is None and (f.bot in cfg.reference or hasattr(builtin, f.bot)):
            raise ReproError(f"{f.bot} is a built-in reference bot, not a submitted file: give the file to replay with --file")
        raise ReproError(f"{path} is not a file: give the bot's file with --file PATH")
    record = load_record(folder / DB_NAME, f.game_id)
    version, _ = _file_version(path)
    result = ReproResult("fails", "", f, path, version, hook=f.hook)
    limits = cfg.make_limits()
    try:
        sub = load_submission(path, limits)
    except SubmissionError as exc:
        reason = str(getattr(exc, "reason", exc))
        result.reason = reason
        result.message = f"the faulted decision still fails: {path.name} does not load: {reason.strip().splitlines()[-1]}"
        return result
    seat = f.seat
    answers: dict[int, list[Action]] = {s: [] for s in range(record.n_players)}
    for s, action in record.actions:
        answers[s].append(action)
    isolated = IsolatedBot(sub, limits)
    isolated.random = bot_random(record.seed, seat)
    replayed = _Replayed(isolated, answers[seat])
    game = record.new_game()
    steps = len(record.actions)

    def reached() -> bool:
        return len(game.history) == steps and replayed.next == len(replayed.answers)

    players: list[Bot] = [replayed if s == seat else _Forced(s, answers[s], reached) for s in range(record.n_players)]
    stop: _Stop | None = None
    try:
        try:
            fault_seat, kind, reason = play_one(game, players, record.bots)
        except _Stop as signal:
            stop, fault_seat, kind, reason = signal, None, "", ""
        result.output = isolated.log_text
    finally:
        isolated.close()
    _conclude(result, game, stop, fault_seat, kind, reason, steps, path.name, f"{f.bot}.py")
    return result


def _conclude(result: ReproResult, game: Any, stop: _Stop | None, fault_seat: int | None, kind: str, reason: str,
              steps: int, filename: str, recorded_file: str) -> None:
    """Fill in ``result``'s status and sentence from how the replay ended."""
    f = result.fault
    obs = stop.observation if stop is not None else None
    if obs is not None:
        result.observation, result.round, result.turn, result.phase = obs, obs.round, obs.turn, str(obs.phase)
        result.hook = "choose()"
    else:
        result.round, result.turn, result.phase = max(game.round, 0), game.turn, str(game.phase)
    at = _where(result.round, result.turn, result.phase)
    later = ("the other seats' recorded answers no longer fit the game from there, so the replay cannot go on "
             "faithfully; run the tournament again to play the new file's games")
    if stop is not None and stop.what == "answered":
        result.status, result.answer = "fixed", stop.answer
        failed = f.hook
        if failed == "choose()":
            result.message = f"fixed: at the faulted decision ({at}) your bot now answers {stop.answer} (legal)"
        else:
            result.message = (f"fixed: {failed} no longer fails, and at the decision after it ({at}) your bot "
                              f"answers {stop.answer} (legal)")
        return
    if stop is not None and stop.what == "differs":
        result.status, result.answer, result.recorded = "differs", stop.answer, stop.recorded
        result.message = (f"your bot's earlier answers now differ from the record at {at}: it answered {stop.answer}, "
                          f"the record has {stop.recorded}; {later}")
        return
    if stop is not None and stop.what == "passed":  # a hook failed where the tournament's game stopped
        result.status, result.hook = "fixed", f.hook
        result.message = (f"fixed: {result.hook} no longer fails (the tournament's game stopped there, at {at}, "
                          "so the replay ends)")
        return
    if stop is not None:  # a forced seat ran out of recorded answers before the faulted call came
        result.status = "differs"
        result.message = (f"the record ends before the faulted call ({at}): the replay no longer follows the "
                          f"tournament's game; {later}")
        return
    if fault_seat is None:  # the whole game played: the fault was in on_game_end
        result.status, result.hook = "fixed", "on_game_end()"
        result.message = "fixed: the game now ends without a fault (on_game_end() returns)"
        return
    result.reason = reason
    from .store import fault_hook

    result.hook = fault_hook(reason) or result.hook  # the replay names the call exactly (see _Replayed._settle)
    if result.hook == "choose()" and len(game.history) == steps:  # what the record's view shows at the fault
        given = game.observation(f.seat)
        result.observation, result.round, result.turn, result.phase = given, given.round, given.turn, str(given.phase)
        at = _where(result.round, result.turn, result.phase)
    sentence = fault_sentence(reason, filename)
    # A hook the tournament sent ahead of the faulted choose() (its reason names it): the replay waits for each hook,
    # so it stops there, before the others' moves up to that choose(), and names the hook.
    head = f.reason.strip().splitlines()[0] if f.reason.strip() else ""
    ahead = result.hook != "choose()" and result.hook in head and "choose()" in head
    if len(game.history) < steps and not ahead:
        result.status = "differs"
        result.message = f"your bot's earlier answers now differ from the record at {at}: it now fails there: {sentence}; {later}"
        return
    result.status = "fails"
    result.message = f"the faulted decision still fails: {sentence}"
    if kind != f.kind:
        result.message += f" (in the tournament: {f.kind}: {fault_sentence(f.reason, recorded_file)})"



# ------------------------------------------------------------------ a test file


_TEST = '''\
r"""Replays fault {fault} of the tournament in {folder_text}: {bot} at seat {seat}, game {game_id}.

In the tournament: {sentence}
The test replays that game with {file_name} as it is now and asserts a legal answer within
the time limit at the call that failed; it fails the same way until the bug is fixed.
Written by: {command}
Run it with: pytest {test_name}
"""

from pathlib import Path

from cabo_kit.tournament import repro

HERE = Path(__file__).resolve().parent
FOLDER = {folder_expr}
FILE = {file_expr}


def test_the_faulted_call_now_gets_a_legal_answer_in_time():
    result = repro(FOLDER, {game_id!r}, file=FILE)
    assert result.status == "fixed", result.message
'''


def _path_expr(target: Path, base: Path) -> str:
    try:
        rel = os.path.relpath(target.resolve(), base.resolve())
    except ValueError:  # another drive (Windows)
        return repr(str(target.resolve()))
    return f"HERE / {Path(rel).as_posix()!r}"


def write_pytest(path: str | os.PathLike[str], folder: str | os.PathLike[str], fault: str | StoredFault,
                 file: str | os.PathLike[str] | None = None, short: str | None = None) -> Path:
    """Write a standalone pytest file replaying ``fault`` (paths relative to the test file, so the folder may move).

    ``short``: the id the pages show for it (found from the store if not given). Returns the path
    written (``.py`` added if missing). It runs with plain ``pytest``.
    """
    folder = Path(folder)
    if isinstance(fault, StoredFault) and short is not None:
        f = fault
    else:
        faults = load_faults(folder / DB_NAME)
        f = fault if isinstance(fault, StoredFault) else _pick(faults, fault, folder / DB_NAME)
        short = short_ids([x.game_id for x in faults])[f.game_id]
    out = Path(path)
    if out.suffix != ".py":
        out = out.with_name(out.name + ".py")
    bot_file = Path(file) if file is not None else folder / "bots" / f"{f.bot}.py"
    out.parent.mkdir(parents=True, exist_ok=True)
    base = out.parent
    # The whole game id: a later run may add a fault whose id starts with the same digits.
    q = shlex.quote
    command = (repro_command(folder, f.game_id) + (f" --file {q(str(bot_file))}" if file is not None else "")
               + f" --pytest {q(str(out))}")
    text = _TEST.format(
        fault=short, folder_text=folder, bot=f.bot, seat=f.seat, game_id=f.game_id,
        sentence=fault_sentence(f.reason, f"{f.bot}.py").replace('"""', "'''"), file_name=bot_file.name,
        command=command, test_name=q(out.name), folder_expr=_path_expr(folder, base), file_expr=_path_expr(bot_file, base),
    )
    out.write_text(text, encoding="utf-8")
    return out


# ------------------------------------------------------------------ the command line


def repro_cli(folder: str, fault: str, file: str | None = None, pytest_path: str | None = None,
              out: Callable[[str], None] = print) -> int:
    """``cabo-kit tournament repro DIR FAULT [--file F] [--pytest PATH]``: print the replay; 0 if fixed, 1 if not."""
    db = Path(folder) / DB_NAME
    faults = load_faults(db)
    f = _pick(faults, fault, db)
    short = short_ids([x.game_id for x in faults])[f.game_id]
    record = load_record(Path(folder) / DB_NAME, f.game_id)
    given = record.view(f.seat, len(record.actions))  # the game where the fault stopped it
    where = f" at {_where(given.round, given.turn, str(given.phase))}"
    out(f"fault {short}: {f.bot} (seat {f.seat}) in game {f.game_id} ({f.preset}, {f.table_size} players, "
        f"deal seed {f.deal_seed}){where}, in {fault_call(f.reason)}")
    out(f"  in the tournament: {f.kind}: {fault_sentence(f.reason, f'{f.bot}.py')}"
        + ("" if f.current else " (a game of an earlier run, with an older version of the file)"))
    result = repro(folder, f, file)
    same = "the file that played in the tournament" if result.version == f.version else (
        f"the tournament played version {f.version}")
    out(f"replayed with {result.file} (version {result.version}: {same}), under tournament.toml's limits")
    if result.observation is not None:
        obs = result.observation
        out("  what your bot was given there:")
        out("\n".join("    " + line for line in obs.describe().splitlines()))
        out("    legal: " + ", ".join(str(a) for a in obs.legal_actions))
    out(result.message)
    if result.reason and "Traceback" in result.reason:
        out("\n".join("  " + line for line in result.reason.strip().splitlines()))
    if result.output.strip():
        lines = result.output.strip().splitlines()
        out(f"  your bot printed {len(lines)} lines; the first ones:")
        out("\n".join("    " + line for line in lines[:20]))
    if pytest_path:
        written = write_pytest(pytest_path, folder, f, file, short=short)
        out(f"wrote {written}: `pytest {written}` fails until the faulted decision gets a legal answer in time")
    return 0 if result.fixed else 1

