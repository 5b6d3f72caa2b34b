"""What an upload must be before it is stored: one ``.py`` file, not empty, not binary, UTF-8, not too large.

These are the refusals that need no Python: the file's code itself is checked later, isolated, by
the tournament's checker. The uploaded name is looked at only for its ``.py`` ending; the file is
stored under the student's id whatever it was called.

>>> check_upload("my_bot.py", b"import cabo_kit as ck\\n", max_bytes=1024)
'import cabo_kit as ck\\n'
>>> check_upload("notes.txt", b"hi", max_bytes=1024)
Traceback (most recent call last):
...
cabo_kit.portal.uploads.UploadRefused: notes.txt is not a Python file: upload your bot's .py file
"""

from __future__ import annotations

__all__ = ["UploadRefused", "check_upload", "DEFAULT_MAX_BYTES", "size_text"]

DEFAULT_MAX_BYTES = 1 << 20
"""The default largest upload: 1 MiB (a trained policy's weights can be large: ``--max-upload``)."""


class UploadRefused(ValueError):
    """An upload that is not stored; the message says why and what to do, :attr:`status` is the HTTP status."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def size_text(n: int) -> str:
    """``1 MiB``, ``300 KiB``, ``12 bytes``."""
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20} MiB"
    if n >= 1 << 10:
        return f"{n / 1024:.0f} KiB"
    return f"{n} bytes"


def check_upload(filename: str, data: bytes, max_bytes: int = DEFAULT_MAX_BYTES) -> str:
    """The file's text, or :class:`UploadRefused` saying what is wrong with it."""
    shown = filename.replace("\\", "/").rsplit("/", 1)[-1][:80] or "the file"
    if not shown.lower().endswith(".py"):
        raise UploadRefused(f"{shown} is not a Python file: upload your bot's .py file", 415)
    if len(data) > max_bytes:
        raise UploadRefused(f"{shown} is larger than {size_text(max_bytes)}: upload a smaller file", 413)
    if not data.strip():
        raise UploadRefused(f"{shown} is empty: upload the file that holds your bot")
    if b"\x00" in data:
        raise UploadRefused(f"{shown} is a binary file, not Python source: upload the .py file itself")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise UploadRefused(f"{shown} is not UTF-8 text (line {line}): save it as UTF-8 and upload it again") from None
