"""The bot harness: a small standalone script that runs ONE submitted bot in its own process.

The engine never imports a submitted file. It starts this script in a fresh interpreter
(``python -I -S harness.py MODE BOT_FILE RFD WFD CONFIG``, a new session, a scrubbed
environment) and talks to it in JSON lines over two dedicated pipes (``RFD`` requests in,
``WFD`` replies out), so nothing the bot prints can reach the channel: its stdout and stderr
go to a size-capped log. See :mod:`cabo_kit.tournament.isolation` for the engine side.

Order of events, chosen so the bot never runs with the runner's privileges:

1. import the standard modules the harness needs, ``cabo_kit``, and the modules the bot's
   source names in its ``import`` statements (as root the interpreter may live in a 0700
   home the bot's uid cannot read, so nothing can be imported after step 3);
2. read the bot's source (the file may be unreadable to the bot's uid);
3. as root: drop to an unprivileged uid/gid of its own (``uid_base + pid``, else 65534),
   with no supplementary groups; ask for SIGKILL when the parent dies; make this process
   non-dumpable (other bots cannot read its memory);
4. set ``RLIMIT_AS`` (memory), ``RLIMIT_CPU`` (backstop), ``RLIMIT_NPROC`` (no fork, no
   threads), ``RLIMIT_FSIZE`` (log cap, SIGXFSZ ignored), ``RLIMIT_CORE`` 0;
5. run the bot's source, find its one Bot subclass, build it, answer ``ready``; then serve.

MODE ``zygote`` is the harness server (:func:`_serve_forks`): it does step 1 once and then forks,
per request, a process that does steps 2-5 for one bot file, as if started on its own.

MODE ``check`` stops after step 5 (what :func:`~cabo_kit.tournament.isolation.load_submission`
uses); MODE ``play`` serves requests until its request pipe closes.

Wire format (private to this file and ``isolation.py``): one JSON value per line. An observation
request (``c`` choose, ``r`` round start) is a list, ``[id, op, ...]``, holding a compact
per-decision delta (see :class:`ObsDecoder`; parsed by :func:`typed_parser`); the other requests
are objects with ``"i"`` (the id) and ``"o"`` (``s`` game start, ``e`` round end, ``g`` game end,
``p`` ping, ``x`` echo the last observation; the last two for tests and benchmarks). Every reply
is an object echoing the id and carrying the call's CPU time in the bot's code (``t``, nanoseconds; ``h``:
the quiet hooks' since the last reply); a round start, and a request with ``"q"``, get a reply only if they
raise (``err``: the traceback; ``says``: a SimpleBot's ``BotError`` sentence). The full ``Observation.to_dict()`` costs several hundred microseconds per decision to
encode and parse, the delta a few tens.
"""

from __future__ import annotations

import ast
import gc
import hashlib
import io
import json
import linecache
import os
import random
import re
import signal
import sys
import traceback
from typing import Any, Sequence

# Imported now: after the uid drop the interpreter's own folder may be unreadable.
try:
    import resource
except ImportError:  # Windows
    resource = None  # type: ignore[assignment]
try:
    import ctypes
except ImportError:  # some hosted interpreters
    ctypes = None  # type: ignore[assignment]

# The modules a typical bot uses, imported before the uid drop so that they stay importable.
PRELOAD = (
    "abc", "bisect", "collections", "collections.abc", "copy", "dataclasses", "enum", "functools", "heapq",
    "itertools", "math", "operator", "random", "re", "string", "struct", "time", "types", "typing", "warnings",
    "weakref",
)
# Modules named in a bot's imports that must not run as root (they open browsers, windows, ...).
NO_PRELOAD = frozenset({"antigravity", "this", "webbrowser", "tkinter", "turtle", "turtledemo", "idlelib", "pydoc"})
MODULE_NAME = "cabo_submission"
HERE = os.path.abspath(__file__)
FALLBACK_UID = 65534


class Capped(io.TextIOBase):
    """A text stream writing straight to ``fd`` that silently drops everything past ``budget`` bytes."""

    def __init__(self, fd: int, budget: int) -> None:
        self._fd = fd
        self._left = max(0, budget)

    def write(self, s: str) -> int:
        if self._left > 0 and s:
            data = s.encode("utf-8", "backslashreplace")[: self._left]
            try:
                os.write(self._fd, data)
                self._left -= len(data)
            except OSError:
                self._left = 0
        return len(s)

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"


_PRCTL: list[Any] = []  # libc's prctl, looked up once: the server's bot processes inherit it


def _prctl(option: int, value: int) -> bool:
    if not _PRCTL:
        try:
            _PRCTL.append(None if ctypes is None else ctypes.CDLL(None, use_errno=True).prctl)
        except (ImportError, OSError, AttributeError):
            _PRCTL.append(None)
    prctl = _PRCTL[0]
    if prctl is None:
        return False
    try:
        return bool(prctl(option, value, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4


def _imported_names(tree: ast.AST) -> list[str]:
    """Absolute module names the source imports anywhere (top level or inside functions)."""
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
            names.extend(f"{node.module}.{a.name}" for a in node.names if a.name != "*")
    return names


_IMPORT_LINE = re.compile(r"^[ \t]*(?:from[ \t]+([\w.]+)[ \t]+import[ \t]+([\w \t,]+?)|import[ \t]+([\w \t,.]+?))"
                          r"[ \t]*(?:#[^\n]*)?$", re.M)


def _imports_loaded(text: str) -> bool:
    """Whether every import in the source names a module that is loaded already, read from its lines without
    parsing it; ``False`` when unsure (a word "import" anywhere else, ``*``, parentheses, ``;``, relative).

    >>> _imports_loaded("import os, sys\\nfrom collections import abc as a, deque  # note\\n")
    True
    >>> _imports_loaded("import os; import sys\\n"), _imports_loaded("x = 1  # important\\n")
    (False, False)
    """
    found = _IMPORT_LINE.findall(text)
    if len(found) != text.count("import"):
        return False
    modules = sys.modules
    for module, names, plain in found:
        if module:
            if module not in modules:
                return False
            space = vars(modules[module])
            for part in names.split(","):
                words = part.split()
                if not words or (words[0] not in space and f"{module}.{words[0]}" not in modules):
                    return False
        else:
            for part in plain.split(","):
                words = part.split()
                if not words or words[0] not in modules:
                    return False
    return True


def _preload(names: list[str]) -> None:
    import importlib

    for name in names:
        if name.split(".")[0] in NO_PRELOAD or name in sys.modules:
            continue
        parent, _, leaf = name.rpartition(".")
        if parent in sys.modules and leaf in vars(sys.modules[parent]):
            continue  # ``from package import Name``: a name, not a module (a failed import costs a path search)
        try:
            importlib.import_module(name)
        except BaseException:  # noqa: BLE001 - a failing import is reported when the bot itself runs it
            pass


def _drop_privileges(uid_base: int) -> int:
    """As root: become an unprivileged uid/gid of our own (``uid_base + pid``, else 65534)."""
    os.setgroups([])
    for uid in (uid_base + os.getpid(), FALLBACK_UID):
        try:
            os.setgid(uid)
            os.setuid(uid)
            return uid
        except OSError:
            continue
    raise OSError("could not drop to an unprivileged uid")


def _set_limits(cfg: dict[str, Any]) -> None:
    if resource is None:  # Windows: no rlimits (the engine warned once)
        return

    def lim(which: int, value: int) -> None:
        try:
            resource.setrlimit(which, (value, value))
        except (ValueError, OSError):
            pass

    mem = int(cfg["memory_mb"]) * 1024 * 1024
    lim(resource.RLIMIT_AS, mem)
    cpu = max(1, int(cfg["cpu_s"]))
    try:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    except (ValueError, OSError):
        pass
    lim(resource.RLIMIT_CORE, 0)
    lim(resource.RLIMIT_FSIZE, int(cfg["log_cap"]))
    if hasattr(signal, "SIGXFSZ"):
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    if hasattr(resource, "RLIMIT_NPROC") and cfg.get("nproc", True):
        lim(resource.RLIMIT_NPROC, 1)


def _redirect_output(cfg: dict[str, Any]) -> None:
    """Point sys.stdout/stderr at capped writers on the log (fds 1 and 2 already are the log)."""
    try:
        used = os.fstat(1).st_size
    except OSError:
        used = 0
    budget = int(cfg["log_cap"]) - used
    shared = Capped(1, budget)
    sys.stdout = sys.__stdout__ = shared  # type: ignore[misc, assignment]
    sys.stderr = sys.__stderr__ = shared  # type: ignore[misc, assignment]


def _find_bot_class(namespace: dict[str, Any]) -> type:
    from cabo_kit.bot import Bot

    own = [
        v for v in namespace.values()
        if isinstance(v, type) and issubclass(v, Bot) and v.__module__ == MODULE_NAME
        and not getattr(v, "__abstractmethods__", None)
    ]
    if not own:
        raise LookupError(
            "no Bot subclass of its own: define exactly one class that subclasses cabo_kit.Bot "
            "(or cabo_kit.SimpleBot) and implements choose()"
        )
    if len(own) > 1:
        names = ", ".join(sorted(c.__name__ for c in own))
        raise LookupError(f"several Bot subclasses ({names}): keep exactly one per file")
    return own[0]


def _load_bot(path: str, source: bytes) -> tuple[type, Any]:
    """Run the source as module ``cabo_submission``; return its Bot class and an instance.

    Raises ``_Stage(stage, text)`` naming what failed.
    """
    import types

    try:
        code = compile(source, path, "exec", dont_inherit=True)
    except SyntaxError:
        raise _Stage("syntax", traceback.format_exc(limit=0)) from None
    module = types.ModuleType(MODULE_NAME)
    module.__file__ = path
    sys.modules[MODULE_NAME] = module
    try:
        exec(code, module.__dict__)
    except BaseException:  # noqa: BLE001 - the bot's own failure is reported, not raised
        raise _Stage("import", _bot_traceback()) from None
    try:
        cls = _find_bot_class(module.__dict__)
    except LookupError as exc:
        raise _Stage("class", str(exc)) from None
    try:
        bot = cls()
    except BaseException:  # noqa: BLE001
        raise _Stage("init", f"the constructor {cls.__name__}() raised:\n" + _bot_traceback()) from None
    return cls, bot


class _Stage(Exception):
    def __init__(self, stage: str, text: str) -> None:
        super().__init__(text)
        self.stage = stage
        self.text = text


def _fault(rid: int, exc: BaseException, bot_error: type) -> dict[str, Any]:
    """The reply to a request the bot raised on: the traceback, and for SimpleBot's ``BotError`` its sentence
    (``says``: it names the learner's hook, answer and line; the engine reports it alone)."""
    if isinstance(exc, bot_error):
        return {"i": rid, "err": _bot_traceback(), "says": str(exc)}
    return {"i": rid, "err": _bot_traceback()}


def _bot_traceback() -> str:
    """The current exception's traceback without the harness's own frames."""
    etype, value, tb = sys.exc_info()
    while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) == HERE:
        tb = tb.tb_next
    try:
        return "".join(traceback.format_exception(etype, value, tb))
    except BaseException:  # noqa: BLE001 - e.g. MemoryError while formatting
        return f"{getattr(etype, '__name__', etype)}: {value!r}"


class _Cache(dict):  # type: ignore[type-arg, unused-ignore]
    """A dict that fills itself: ``cache[key]`` computes ``make(key)`` once (C-speed lookups after)."""

    def __init__(self, make: Any) -> None:
        super().__init__()
        self.make = make

    def __missing__(self, key: Any) -> Any:
        if len(self) > 100_000:
            self.clear()
        value = self[key] = self.make(key)
        return value


_SHARED: dict[str, _Cache] = {}
_REPLIES: list[dict[int, tuple[Any, bytes]]] = []  # id(action) -> (action, its JSON-quoted text)


def warm_caches(max_seats: int = 8, max_cards: int = 8) -> int:
    """Parse once the action and card texts games use, so a forked bot process starts with them parsed.

    Returns how many texts were parsed. (Texts never seen here are parsed on first use.)
    """
    from itertools import combinations

    ObsDecoder()
    typed_parser()
    _decoder()
    hashlib.sha256(b"").hexdigest()  # OpenSSL's first-use setup, done once here
    actions, cards, ups = _SHARED["actions"], _SHARED["cards"], _SHARED["ups"]
    pos = range(max_cards)
    texts = ["deck", "take", "cabo", "discard", "pass"]
    for k in (1, 2, 3):
        texts += ["look " + ",".join(map(str, c)) for c in combinations(pos, k)]
    texts += [f"{word} {i}" for word in ("exchange", "place", "peek", "give") for i in range(max_cards + 1)]
    texts += [f"{word} {s}:{i}" for word in ("spy", "snap") for s in range(max_seats) for i in pos]
    texts += [f"swap {i} {s}:{j}" for i in pos for s in range(max_seats) for j in pos]
    n = 0
    for text in texts:
        try:
            actions[text]
            n += 1
        except ValueError:
            pass
    for text in ["??"] + [str(v) for v in range(-2, 21)]:
        try:
            cards[text]
            n += 1
        except ValueError:
            pass
    for size in range(1, max_cards + 1):
        for bits in range(1 << size):
            ups[format(bits, f"0{size}b")]
    # The sets of legal actions that begin most games' phases (a third of a game's decisions define a
    # set; a set's text not seen here is parsed when it comes).
    legals = _SHARED["legals"]
    sets = ["deck|take", "deck|take|cabo", "pass|cabo", "deck", "deck|cabo"]
    for size in range(1, max_cards + 1):
        hand = range(size)
        sets += ["discard|" + "|".join(f"exchange {i}" for i in hand), "|".join(f"exchange {i}" for i in hand),
                 "pass|" + "|".join(f"peek {i}" for i in hand), f"place 0|place {size}",
                 "|".join("look " + ",".join(map(str, c)) for c in combinations(hand, 2))]
    for text in sets:
        try:
            legals[text]
        except ValueError:
            pass
    from cabo_kit.rules import PRESETS

    for rules in PRESETS.values():
        _rules(json.loads(json.dumps(rules.to_dict())))
    return n


_RULES: list[tuple[dict[str, Any], Any]] = []  # (a to_dict() as JSON parses it, its Rules): the presets, warmed


def _rules(data: dict[str, Any]) -> Any:
    """``Rules.from_dict(data)``, the presets found by comparing dicts (a fraction of building them)."""
    for known, rules in _RULES:
        if known == data:
            return rules
    from cabo_kit.rules import Rules

    rules = Rules.from_dict(data)
    if len(_RULES) < 16:
        _RULES.append((data, rules))
    return rules


_tuple_new = tuple.__new__
_TYPED: list[Any] = []


def typed_parser() -> Any:
    """JSON bytes of an observation request -> the request with its tuples, events and cards built by msgspec
    (in C, from the types of the fields), or ``None`` without msgspec. Made once per process (the harness
    server makes it before it forks). A request that does not fit the types raises (then parse it plainly).

    >>> parse = typed_parser()
    >>> req = parse(b'[1,"c",[0,0,"choose",0,[0],0,null,40,null,null,null,null,[],null,null],null,null,'
    ...             b'0,"",0,[["draw",1,[],["??"],""]],0,null]')
    >>> req[2][2], req[2][4], req[8][0].kind, req[8][0].cards
    (<Phase.CHOOSE: 'choose'>, (0,), <EventKind.DRAW: 'draw'>, (Card('??'),))
    """
    if _TYPED:
        return _TYPED[0]
    try:
        import msgspec
    except ImportError:
        _TYPED.append(None)
        return None
    from typing import Dict, List, Optional, Tuple, Union

    from cabo_kit.cards import Card
    from cabo_kit.observation import Event, Phase
    from cabo_kit.rules import Power

    ObsDecoder()  # the shared card table
    cards = _SHARED["cards"]

    def card(kind: type, text: Any) -> Any:
        if kind is Card and text.__class__ is str:
            return cards[text]
        raise TypeError(f"not a {kind.__name__}: {text!r:.40}")

    # The moment, in MOMENT_FIELDS order: round, turn, phase, current, to_move, start_player, caller, deck_size,
    # drawn, drawn_from, power, target, picked, exchange_ok, give_to.
    moment = Tuple[
        int, int, Phase, int, Tuple[int, ...], int, Optional[int], int, Optional[Card], Optional[str],
        Optional[Power], Optional[Tuple[int, int]], Tuple[int, ...], Optional[bool], Optional[Tuple[int, int]],
    ]
    # id, op, moment, hands, face_up, dk, d, ek, events, legal, extra
    shape = Tuple[
        int, str, moment, Union[List[str], Dict[int, str], None], Union[List[str], Dict[int, str], None],
        int, str, int, List[Event], Union[int, List[Any]], Optional[Dict[str, Any]],
    ]
    try:
        parse = msgspec.json.Decoder(shape, dec_hook=card).decode
    except (TypeError, ValueError, AttributeError):  # a msgspec too old for these types: parse plainly
        parse = None
    _TYPED.append(parse)
    return parse


class ObsDecoder:
    """Rebuild :class:`~cabo_kit.observation.Observation` objects from the engine's compact deltas.

    One request (``c`` choose, ``r`` round start) is a list: request id, op, the moment (the
    values of :data:`~cabo_kit.observation.MOMENT_FIELDS`, the drawn card as its text), then
    hands (one space-separated string per seat; or ``{seat: text}`` for the hands that
    changed; null: all as in the last observation), face_up ("0"/"1" strings, the same way),
    ``dk, d`` (keep the first ``dk`` cards of the discard pile, append the cards of ``d``),
    ``ek, e`` (the same for events), the legal actions, and a dict (or null) of what is sent
    only when it changes: ``seat``, ``np`` and ``rules`` (once per game), ``me`` memory,
    ``sc`` scores, ``rs`` round scores. The legal actions are a number naming a set the
    engine defined earlier in the game, or the definition ``[number, texts, hand_size]``:
    the texts joined by ``|`` (or a list), the hand size when multi-exchanges are legal (else
    null). The observation is assembled by :func:`~cabo_kit.observation.make_observation`,
    as the engine assembles its own.
    """

    def __init__(self) -> None:
        from cabo_kit.actions import Action
        from cabo_kit.cards import Card

        from cabo_kit.actions import LegalActions
        from cabo_kit.observation import Event, EventKind, EventLog, Observation, Phase, make_observation
        from cabo_kit.rules import Power

        self._types = (Event, Observation, LegalActions)
        self._event, self._log, self._make = Event, EventLog, make_observation
        self._phases = {p.value: p for p in Phase}
        self._powers = {p.value: p for p in Power}
        self._kinds = {k.value: k for k in EventKind}
        # Shared by every decoder of the process, so a server's warmed caches reach its children.
        if not _SHARED:
            cards = _Cache(Card.parse)
            replies: dict[int, tuple[Any, bytes]] = {}
            quote = json.encoder.encode_basestring_ascii

            def parse_action(text: str) -> Any:
                # Also remember the action's reply text (by id: the entry holds the object).
                action = Action.parse(text)
                if len(replies) > 100_000:
                    replies.clear()
                replies[id(action)] = (action, quote(text).encode())
                return action

            actions = _Cache(parse_action)
            _REPLIES.append(replies)
            _SHARED.update(actions=actions, cards=cards, ups=_Cache(lambda u: tuple(ch == "1" for ch in u)),
                           hands=_Cache(lambda h: tuple(map(cards.__getitem__, h.split()))),
                           legals=_Cache(lambda t: tuple(map(actions.__getitem__, t.split("|"))) if t else ()))
        self._actions = _SHARED["actions"]
        self._cards = _SHARED["cards"]
        self._hands = _SHARED["hands"]
        self._ups = _SHARED["ups"]
        self._legals = _SHARED["legals"]
        self._multis: dict[tuple[str, int], Any] = {}
        self.reset(None)

    def reset(self, start: dict[str, Any] | None) -> None:
        self.seat = start["seat"] if start else 0
        self.n_players = start["n"] if start else 0
        self.rules = _rules(start["rules"]) if start else None
        self.memory = "engine"
        self.discard: list[Any] = []
        self.events: list[Any] = []
        self.discard_t: tuple[Any, ...] = ()
        self.events_t: Any = self._log()
        self.hands: tuple[Any, ...] = ()
        self.face_up: tuple[Any, ...] = ()
        self.scores: tuple[int, ...] = ()
        self.round_scores: tuple[tuple[int, ...], ...] = ()
        self.last: Any = None
        self._legal_by_id: dict[int, Any] = {}

    def typed(self, o: list[Any]) -> list[Any]:
        """A request parsed as plain JSON (lists for tuples, texts for cards, phases and event kinds) in the form
        :meth:`decode` takes: what :func:`typed_parser` gives at C speed."""
        o = list(o)
        card = self._cards.__getitem__
        Event = self._event
        (rnd, turn, phase, current, to_move, start_player, caller, deck_size, drawn, drawn_from, power, target,
         picked, exchange_ok, give_to) = o[2]
        o[2] = (rnd, turn, self._phases[phase], current, tuple(to_move), start_player, caller, deck_size,
                None if drawn is None else card(drawn), drawn_from, None if power is None else self._powers[power],
                None if target is None else tuple(target), tuple(picked), exchange_ok,
                None if give_to is None else tuple(give_to))
        for k in (3, 4):  # {seat: text}: JSON keys are strings
            if o[k].__class__ is dict:
                o[k] = {int(seat): text for seat, text in o[k].items()}
        kinds = self._kinds
        # tuple.__new__: the NamedTuple's own __new__ is a Python function (same object either way).
        o[8] = [_tuple_new(Event, (kinds[kind], seat, tuple(tgt), tuple(map(card, cards)), info))
                for kind, seat, tgt, cards, info in o[8]]
        return o

    def decode(self, o: Sequence[Any]) -> Any:
        """One request (``[id, op, ...fields]``, typed: see :meth:`typed`) -> the Observation it describes."""
        _rid, _op, moment, hand_texts, up_texts, dk, d, ek, new_events, legal_wire, extra = o
        if extra:
            if "seat" in extra:
                self.reset({"seat": extra["seat"], "n": extra["np"], "rules": extra["rules"]})
            if "me" in extra:
                self.memory = extra["me"]
            if "sc" in extra:
                self.scores = tuple(extra["sc"])
            if "rs" in extra:
                self.round_scores = tuple(tuple(r) for r in extra["rs"])
        rules = self.rules
        if rules is None:
            raise ValueError("the engine sent an observation before the game's rules")
        card = self._cards.__getitem__
        if hand_texts is not None:  # else as in the last observation
            if hand_texts.__class__ is dict:  # {seat: text} of the hands that changed (mostly new texts: parsed)
                hands = list(self.hands)
                for seat, text in hand_texts.items():
                    hands[seat] = tuple(map(card, text.split()))
                self.hands = tuple(hands)
            else:
                self.hands = tuple(map(self._hands.__getitem__, hand_texts))
        if up_texts is not None:
            if up_texts.__class__ is dict:
                ups = list(self.face_up)
                up = self._ups.__getitem__
                for seat, text in up_texts.items():
                    ups[seat] = up(text)
                self.face_up = tuple(ups)
            else:
                self.face_up = tuple(map(self._ups.__getitem__, up_texts))
        if d or dk != len(self.discard):
            discard = self.discard
            del discard[dk:]
            if d:
                discard.extend(map(card, d.split()))
            self.discard_t = tuple(discard)
        if new_events or ek != len(self.events):
            events = self.events
            del events[ek:]
            events.extend(new_events)
            self.events_t = self._log(events)
        if legal_wire.__class__ is int:
            legal = self._legal_by_id[legal_wire]
        else:
            legal = self._define_legal(legal_wire)
        obs = self._make(
            (self.seat, self.n_players, rules, self.memory) + moment,
            (self.hands, self.face_up, self.discard_t, self.scores, self.round_scores, self.events_t, legal),
        )
        self.last = obs
        return obs

    def _define_legal(self, wire: list[Any]) -> Any:
        """``[id, texts, hand_size]``: the legal actions the engine will name by ``id`` from now on this game."""
        lid, texts, hand_size = wire
        if texts.__class__ is str:
            fixed = self._legals[texts]
        else:  # a list: some text holds a "|"
            fixed = tuple(map(self._actions.__getitem__, texts))
        if hand_size is None:
            legal = fixed
        else:  # the same multi-exchange sets recur: keyed by their text
            key = (texts if texts.__class__ is str else "|".join(texts), hand_size)
            legal = self._multis.get(key)
            if legal is None:
                if len(self._multis) > 4096:
                    self._multis.clear()
                legal = self._multis[key] = self._types[2](fixed, hand_size)
        self._legal_by_id[lid] = legal
        return legal


def _serve(bot: Any, rfd: int, wfd: int) -> None:
    """Answer requests until the engine closes the request pipe.

    Every reply carries ``"t"``: the CPU nanoseconds (``time.thread_time_ns``) the call took in the
    bot's code, and ``"h"`` when quiet hooks ran since the last reply: their CPU nanoseconds. The engine
    records them (CPU per decision); it never enforces them (its limits are wall time).
    """
    import time

    import cabo_kit
    from cabo_kit.actions import Action
    from cabo_kit.bot import BotError
    from cabo_kit.explain import not_an_action
    from cabo_kit.game import RoundResult

    decoder = ObsDecoder()
    reader = os.fdopen(rfd, "rb", buffering=1 << 16)
    dumps = json.dumps
    loads = _decoder()
    write = os.write
    quote = json.encoder.encode_basestring_ascii
    known = _REPLIES[0].get  # the engine's own action texts, as sent: the reply for an action it parsed
    clock = time.thread_time_ns  # process_time_ns: tick-grained once RLIMIT_CPU arms the process CPU timer
    hooks = -1  # CPU of the quiet hooks since the last reply (-1: none ran)

    def reply(msg: dict[str, Any]) -> None:
        write(wfd, dumps(msg, separators=(",", ":")).encode() + b"\n")

    def cpu(used: int) -> bytes:
        nonlocal hooks
        if hooks < 0:
            return b',"t":%d}\n' % used
        text = b',"t":%d,"h":%d}\n' % (used, hooks)
        hooks = -1
        return text

    readline = reader.readline
    decode = decoder.decode
    typed = typed_parser()
    while True:
        line = readline()
        if not line:
            return
        if line[0] == 91 and typed is not None:  # "[": an observation
            try:
                req = typed(line)
            except Exception:  # noqa: BLE001 - not the usual shape (never from this engine): parse it plainly
                req = decoder.typed(loads(line))
        else:
            req = loads(line)
            if req.__class__ is list:
                req = decoder.typed(req)
        if req.__class__ is not dict:  # an observation: [id, "c" (choose) or "r" (round start, quiet), ...]
            rid = req[0]
            try:
                obs = decode(req)
                if req[1] != "c":
                    c0 = clock()
                    bot.on_round_start(obs)
                    hooks = max(hooks, 0) + clock() - c0
                    continue
                c0 = clock()
                action = bot.choose(obs, obs.legal_actions)
                used = clock() - c0
                entry = known(id(action))
                if entry is not None and entry[0] is action:
                    if hooks < 0:  # the usual case, inline
                        write(wfd, b'{"i":%d,"a":%s,"t":%d}\n' % (rid, entry[1], used))
                    else:
                        write(wfd, b'{"i":%d,"a":%s' % (rid, entry[1]) + cpu(used))
                    continue
                if isinstance(action, Action):
                    text = str(action)
                elif isinstance(action, str):
                    text = action[:200]
                else:
                    reply({"i": rid, "bad": not_an_action(action)})
                    continue
                write(wfd, b'{"i":%d,"a":%s' % (rid, quote(text).encode()) + cpu(used))
            except BaseException as exc:  # noqa: BLE001 - anything the bot raises is reported to the engine
                reply(_fault(rid, exc, BotError))
            continue
        rid = req["i"]
        op = req["o"]
        try:
            c0 = clock()
            if op == "e":
                result = RoundResult.from_dict(req["b"])
                c0 = clock()
                bot.on_round_end(result)
            elif op == "s":
                decoder.reset(req)
                state = req["rnd"]
                rng = random.Random()
                rng.setstate((state[0], tuple(state[1]), state[2]))
                bot.random = rng
                c0 = clock()
                bot.on_game_start(req["seat"], req["n"], decoder.rules or cabo_kit.Rules())
            elif op == "g":
                bot.on_game_end(list(req["totals"]), list(req["winners"]))
            elif op == "p":
                pass
            elif op == "x":
                last = decoder.last
                reply({"i": rid, "obs": None if last is None else last.to_dict()})
                continue
            used = clock() - c0
            if "q" not in req:  # a quiet request (a mid-game hook) is answered only if it raises
                write(wfd, b'{"i":%d' % rid + cpu(used))
            else:
                hooks = max(hooks, 0) + used
        except BaseException as exc:  # noqa: BLE001 - anything the bot raises is reported to the engine
            reply(_fault(rid, exc, BotError))


_PLAIN: list[Any] = []


def _decoder() -> Any:
    """JSON bytes -> object: msgspec's decoder when it is installed (several times faster), else the stdlib's.
    Made once per process (the server's bot processes inherit it)."""
    if not _PLAIN:
        try:
            import msgspec
        except ImportError:
            _PLAIN.append(json.loads)
        else:
            _PLAIN.append(msgspec.json.Decoder().decode)
    return _PLAIN[0]


def _prepare(cfg: dict[str, Any]) -> None:
    """What every bot process needs before it reads a bot file: import paths, cabo_kit, common modules."""
    # Started with -S (no site: faster); the engine names cabo_kit's folder and its site-packages.
    for entry in cfg.get("paths", []):
        if entry not in sys.path:
            sys.path.append(entry)
    import cabo_kit  # noqa: F401 - imported before the uid drop on purpose
    import cabo_kit.bot  # noqa: F401
    import cabo_kit.game  # noqa: F401

    _preload(list(PRELOAD) + ["msgspec", "msgspec.json"])


def _run_bot(mode: str, path: str, rfd: int, wfd: int, cfg: dict[str, Any]) -> int:
    """Steps 2-5 of the module docstring for one bot file, then serve it (mode ``play``)."""

    def send(msg: dict[str, Any]) -> None:
        os.write(wfd, json.dumps(msg, separators=(",", ":")).encode() + b"\n")

    try:
        with open(path, "rb") as f:
            source = f.read()
    except OSError as exc:
        send({"stage": "read", "err": f"cannot read the bot file: {exc}"})
        return 2
    digest = hashlib.sha256(source).hexdigest()
    text = source.decode("utf-8", "replace")
    linecache.cache[path] = (len(text), None, text.splitlines(True), path)
    if not _imports_loaded(text):  # (a fork of the server has the usual imports loaded: no parsing then)
        try:
            _preload(_imported_names(ast.parse(source, path)))
        except (SyntaxError, ValueError):
            pass  # compile() reports it below

    cores = cfg.get("cores")
    if cores and hasattr(os, "sched_setaffinity"):  # the engine's cores: pinned, it and its bots share one
        try:
            os.sched_setaffinity(0, cores)
        except (OSError, ValueError):
            pass
    uid = os.getuid() if hasattr(os, "getuid") else -1
    if cfg.get("drop") and uid == 0:
        try:
            uid = _drop_privileges(int(cfg["uid_base"]))
        except OSError as exc:
            send({"stage": "setup", "err": f"the harness could not drop root privileges: {exc}"})
            return 2
    if sys.platform.startswith("linux"):
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != int(cfg.get("ppid", os.getppid())):
            return 3  # the engine (or the harness server) is already gone
        _prctl(PR_SET_DUMPABLE, 0)
    _set_limits(cfg)
    _redirect_output(cfg)
    # The setup's garbage only (generations 0-1). A full collection would walk the whole heap the
    # server left (moved to the oldest generation by gc.unfreeze), about 10 ms per bot and game.
    gc.collect(1)

    try:
        cls, bot = _load_bot(path, source)
    except _Stage as exc:
        send({"stage": exc.stage, "err": exc.text})
        return 1
    os.write(wfd, b'{"ready":true,"class":%s,"sha256":"%s","uid":%d}\n'
             % (json.encoder.encode_basestring_ascii(cls.__name__).encode(), digest.encode(), uid))
    if mode == "check":
        return 0
    del source, text
    _serve(bot, rfd, wfd)
    return 0


def _exit_code(status: int) -> int:
    """``subprocess``'s convention: the exit code, or minus the signal that killed the process."""
    return os.waitstatus_to_exitcode(status)


def _serve_forks(ctl_fd: int, cfg: dict[str, Any]) -> int:
    """The harness server ("zygote"): fork one fresh bot process per request, reap them, report how they ended.

    It is started like a harness (a fresh interpreter that never holds engine state), does
    :func:`_prepare` once, and never reads a bot file itself. Each bot process is forked from
    it *before* any bot code exists anywhere, so it starts exactly as clean as a fresh
    ``python harness.py`` but in about a millisecond instead of tens (the interpreter and
    ``cabo_kit`` are already loaded). The child then does steps 2-5 (read the file, drop to
    its own uid, limits, load, serve) in its own session.

    Requests on the control socket (SOCK_SEQPACKET, one JSON object per packet):
    ``{"op": "spawn", "mode", "path", "cfg"}`` with three fds attached (request pipe, reply
    pipe, log) answers ``{"pid"}``; ``{"op": "wait", "pid", "timeout"}`` answers ``{"code"}``
    (``null`` if still running after ``timeout`` seconds); ``{"op": "release", "pid"}`` (the
    engine is done with it) kills its group, answers ``{"ok"}`` at once, and reaps it at a later
    request (any request may also carry ``"release": [pid, ...]``, handled the same way first); ``{"op": "usage"}`` reaps the released children (waiting for them) and answers
    ``{"self", "children"}``, the CPU seconds of this server and of the children it has reaped
    (what benchmarks count). End of file: kill every child, exit.
    """
    import socket
    import time

    sock = socket.socket(fileno=ctl_fd)
    _prepare(cfg)
    # No PR_SET_PDEATHSIG here: it fires when the engine *thread* that started us ends (a Dask
    # worker thread, say). The engine's death closes the control socket instead: we see end of
    # file at once, kill every child and exit. Each child has PDEATHSIG towards us.
    if os.getppid() != int(cfg.get("ppid", os.getppid())):
        return 3
    if sys.platform.startswith("linux"):
        _prctl(PR_SET_DUMPABLE, 0)
    try:
        warm_caches()
    except Exception:  # noqa: BLE001 - only a speed-up: a child parses on first use instead
        pass
    gc.collect()
    gc.freeze()  # keep the shared pages shared in the children
    children: set[int] = set()
    ended: dict[int, int] = {}
    released: set[int] = set()  # killed, and the engine will not ask about them again: reap when they are gone

    def reap(pid: int) -> None:
        # Only the asked-for pid: an unreaped child keeps its pid reserved, so the engine's
        # killpg can never hit a recycled pid (Popen's guarantee).
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            children.discard(pid)
            return
        if done:
            children.discard(pid)
            ended[pid] = _exit_code(status)

    def answer(msg: dict[str, Any]) -> None:
        sock.send(json.dumps(msg).encode())

    def release(pid: int) -> None:
        if pid in children:
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
            released.add(pid)
        ended.pop(pid, None)

    sock.send(b'{"ready":true}')
    while True:
        try:
            data, fds, _flags, _addr = socket.recv_fds(sock, 1 << 16, 3)
        except OSError:
            data, fds = b"", []
        if not data:
            for pid in children:
                try:
                    os.killpg(pid, signal.SIGKILL)
                except OSError:
                    pass
            return 0
        req = json.loads(data)
        for pid in req.get("release", ()):  # released with this request (the engine's kills between games)
            release(int(pid))
        if released:
            for pid in list(released):
                reap(pid)
                if pid not in children:
                    released.discard(pid)
                    ended.pop(pid, None)
        if req["op"] == "spawn":
            if len(fds) != 3:
                for fd in fds:
                    os.close(fd)
                answer({"error": f"spawn needs 3 fds, got {len(fds)}"})
                continue
            child_cfg = dict(req["cfg"], ppid=os.getpid())
            pid = os.fork()
            if pid == 0:  # the bot's process: nothing of the engine here, only this clean server's copy
                code = 70
                try:
                    sock.close()
                    os.setsid()
                    rfd, wfd, log = fds
                    os.dup2(log, 1)
                    os.dup2(log, 2)
                    keep = sorted({rfd, wfd})
                    os.closerange(3, keep[0])
                    os.closerange(keep[0] + 1, keep[-1])
                    os.closerange(keep[-1] + 1, 1 << 16)
                    gc.unfreeze()  # the bot sees an ordinary heap (gc.get_objects lists everything)
                    random.seed()  # a fresh process would draw its own seed
                    # What a harness started on its own would see (a bot may read its pipe fds here).
                    sys.argv = [HERE, req["mode"], req["path"], str(rfd), str(wfd),
                                req.get("argv_cfg") or json.dumps(req["cfg"])]
                    code = _run_bot(req["mode"], req["path"], rfd, wfd, child_cfg)
                except BaseException:  # noqa: BLE001 - a fork child must never return into the server loop
                    try:
                        os.write(2, _bot_traceback().encode("utf-8", "replace"))
                    except BaseException:  # noqa: BLE001
                        pass
                os._exit(code)
            for fd in fds:
                os.close(fd)
            children.add(pid)
            answer({"pid": pid})
        elif req["op"] == "release":
            release(int(req["pid"]))
            answer({"ok": True})
        elif req["op"] == "usage":
            for pid in list(released):
                try:
                    os.waitpid(pid, 0)  # SIGKILLed already: gone in a moment
                except ChildProcessError:
                    pass
                children.discard(pid)
                released.discard(pid)
                ended.pop(pid, None)
            if resource is None:  # pragma: no cover - the server runs on Linux only
                answer({"self": 0.0, "children": 0.0})
            else:
                me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
                answer({"self": me.ru_utime + me.ru_stime, "children": kids.ru_utime + kids.ru_stime})
        elif req["op"] == "wait":
            pid = int(req["pid"])
            until = time.monotonic() + float(req.get("timeout", 0.0))
            delay = 0.0002
            while pid not in ended and pid in children:
                reap(pid)
                if pid in ended or time.monotonic() >= until:
                    break
                time.sleep(delay)
                delay = min(delay * 2, 0.01)
            if pid in ended:
                answer({"code": ended.pop(pid)})
            elif pid in children:
                answer({"code": None})
            else:
                answer({"code": None, "unknown": True})
        else:
            answer({"error": f"unknown op {req['op']!r}"})


def main(argv: list[str]) -> int:
    mode, path, rfd_s, wfd_s, cfg_json = argv[1:6]
    cfg = json.loads(cfg_json)
    if mode == "zygote":
        return _serve_forks(int(rfd_s), cfg)
    if rfd_s == "stdio":
        # No pass_fds (Windows): move the channel off fds 0/1 before the bot can print on them.
        rfd, wfd = os.dup(0), os.dup(1)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(2, 1)
    else:
        rfd, wfd = int(rfd_s), int(wfd_s)
    _prepare(cfg)
    return _run_bot(mode, path, rfd, wfd, cfg)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
