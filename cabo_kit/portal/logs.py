"""Keep secrets out of logs: a :class:`logging.Filter` that blanks sign-in tokens and session ids.

uvicorn's access log writes each request's path, and a sign-in link's path holds its token;
an error's message may quote a cookie. :func:`install` puts :class:`Redact` on the portal's and
uvicorn's loggers and on every handler of the root logger, so a token never reaches a log line.

>>> import logging
>>> record = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
...                            ("127.0.0.1:5", "GET", "/signin/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcd", "1.1", 303), None)
>>> Redact().filter(record), record.getMessage()
(True, '127.0.0.1:5 - "GET /signin/[redacted] HTTP/1.1" 303')
"""

from __future__ import annotations

import logging
import re
from typing import Mapping

__all__ = ["Redact", "install", "redact", "LOGGERS"]

LOGGERS = ("uvicorn", "uvicorn.access", "uvicorn.error", "cabo_kit.portal")

_SIGNIN = re.compile(r"(/signin/)[^\s\"'?#]*")
_COOKIE = re.compile(r"(cabo_portal(?:_\w+)?=)[^;\s\"']*")
_SECRET = re.compile(r"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])")  # a token_urlsafe(32) anywhere


def redact(text: str) -> str:
    """``text`` with sign-in tokens, portal cookies and anything shaped like a portal secret blanked.

    >>> redact("GET /signin/abc?x=1 cookie cabo_portal=xyz; a=b")
    'GET /signin/[redacted]?x=1 cookie cabo_portal=[redacted]; a=b'
    """
    text = _SIGNIN.sub(r"\1[redacted]", text)
    text = _COOKIE.sub(r"\1[redacted]", text)
    return _SECRET.sub("[redacted]", text)


class Redact(logging.Filter):
    """Pass a record's message, arguments and exception text through :func:`redact`.

    The arguments keep their shape (uvicorn's access formatter unpacks them): a number stays a
    number, anything else becomes its redacted text.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        else:
            record.msg = redact(str(record.msg))
        if isinstance(record.args, tuple):
            record.args = tuple(_clean(a) for a in record.args)
        elif isinstance(record.args, Mapping):
            record.args = {k: _clean(v) for k, v in record.args.items()}
        if record.exc_info:
            import traceback

            record.exc_text = redact("".join(traceback.format_exception(*record.exc_info)))
            record.exc_info = None
        elif record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True


def _clean(value: object) -> object:
    return value if isinstance(value, (int, float)) else redact(str(value))


def install() -> Redact:
    """Put one :class:`Redact` on :data:`LOGGERS` and on the root logger's handlers (idempotent); return it."""
    found = next((f for f in logging.getLogger("cabo_kit.portal").filters if isinstance(f, Redact)), None)
    rf = found or Redact()
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if rf not in logger.filters:
            logger.addFilter(rf)
        for handler in logger.handlers:
            if rf not in handler.filters:
                handler.addFilter(rf)
    for handler in logging.getLogger().handlers:
        if rf not in handler.filters:
            handler.addFilter(rf)
    return rf
