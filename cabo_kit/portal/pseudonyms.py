"""Pseudonyms for the leaderboard: a student sees the others under stable made-up names, not their roster names.

A pseudonym is derived from the student's id and a random salt kept by the class (so it stays
the same across restarts, and nobody can work out an id from it): an adjective and an animal,
with a number added when two students would share one.

>>> names = pseudonyms(["ada", "bob", "cy"], salt="s3cret")
>>> sorted(names) == ["ada", "bob", "cy"], len(set(names.values()))
(True, 3)
>>> names == pseudonyms(["cy", "bob", "ada"], salt="s3cret")    # stable, whatever the order
True
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Iterable

__all__ = ["pseudonyms", "pseudonym_key"]

_ADJECTIVES = (
    "Amber", "Bold", "Brave", "Bright", "Calm", "Clever", "Cosmic", "Crimson", "Daring", "Eager", "Fearless", "Gentle",
    "Golden", "Happy", "Jolly", "Keen", "Lively", "Lucky", "Mighty", "Nimble", "Noble", "Patient", "Quick", "Quiet",
    "Rapid", "Silver", "Steady", "Swift", "Tidy", "Witty", "Zesty", "Sunny",
)
_ANIMALS = (
    "Badger", "Beaver", "Bison", "Crane", "Dolphin", "Eagle", "Falcon", "Ferret", "Fox", "Gecko", "Heron", "Ibis",
    "Jaguar", "Koala", "Lemur", "Lynx", "Marten", "Narwhal", "Ocelot", "Otter", "Panda", "Puffin", "Quokka", "Raven",
    "Salmon", "Seal", "Tapir", "Toucan", "Turtle", "Walrus", "Wombat", "Yak",
)


def _digest(salt: str, sid: str) -> bytes:
    return hmac.new(salt.encode(), sid.encode(), hashlib.sha256).digest()


def pseudonym_key(salt: str, sid: str) -> str:
    """What stands for a student's id where others may see it (a page's ``data-bot``): ``anon-`` and 10 hex digits."""
    return "anon-" + _digest(salt, sid).hex()[:10]


def pseudonyms(ids: Iterable[str], salt: str) -> dict[str, str]:
    """Each id's pseudonym, distinct within ``ids`` (a number is added to a repeated name)."""
    ordered = sorted(set(ids), key=lambda sid: _digest(salt, sid))
    out: dict[str, str] = {}
    seen: dict[str, int] = {}
    for sid in ordered:
        d = _digest(salt, sid)
        name = f"{_ADJECTIVES[d[0] % len(_ADJECTIVES)]} {_ANIMALS[d[1] % len(_ANIMALS)]}"
        seen[name] = seen.get(name, 0) + 1
        out[sid] = name if seen[name] == 1 else f"{name} {seen[name]}"
    return out
