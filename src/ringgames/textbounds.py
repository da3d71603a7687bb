"""Small helpers that keep user text in error messages short and numbers ASCII.

Error messages quote what was wrong, but never more than a bounded excerpt: a
10 MB record must not give a 10 MB message.

>>> excerpt("e3")
"'e3'"
>>> excerpt("x" * 100, 10)
"'xxxxxxxxxx…'"
>>> ascii_int("12"), ascii_int("\\u00b2"), ascii_int("\\u0661"), ascii_int("123", limit=99)
(12, None, None, None)
"""

from __future__ import annotations

__all__ = ["EXCERPT", "excerpt", "shorten", "ascii_int", "is_ascii_digits", "bounded_lines"]

#: characters of user text quoted in an error message, at most
EXCERPT = 80


def bounded_lines(stream, limit: int, chunk: int = 65536):
    r"""The lines of a text ``stream`` without their line end (``\n``, ``\r\n``), never holding more than about
    ``limit`` characters of one line in memory: a line longer than ``limit`` is read on in chunks, dropped, and
    given as the int of its length instead (so a peer that never ends a line costs bounded memory, not all of it).

    >>> import io
    >>> list(bounded_lines(io.StringIO("ab\r\n" + "x" * 12 + "\ncd"), 5, chunk=4))
    ['ab', 12, 'cd']
    """
    while True:
        line = stream.readline(limit + 2)  # room for "\r\n" after a line of exactly `limit`
        if not line:
            return
        if line.endswith("\n") or len(line) <= limit:
            line = line[:-1] if line.endswith("\n") else line
            line = line[:-1] if line.endswith("\r") else line
            if len(line) <= limit:
                yield line
                continue
            yield len(line)
            continue
        n = len(line)
        while True:  # drop the rest of the line
            more = stream.readline(chunk)
            n += len(more)
            if not more or more.endswith("\n"):
                break
        yield n - (1 if more.endswith("\n") else 0)


def shorten(text: str, limit: int = EXCERPT) -> str:
    """``text`` itself if at most ``limit`` characters, else its first ``limit`` characters and ``…``."""
    return text if len(text) <= limit else text[:limit] + "\u2026"


def excerpt(text: str, limit: int = EXCERPT) -> str:
    """``repr`` of :func:`shorten` (quoted, control characters escaped)."""
    return repr(shorten(text, limit))


def is_ascii_digits(text: str) -> bool:
    """True for a non-empty string of the digits 0–9 only (``str.isdigit`` also accepts ``²`` and ``٣``)."""
    return text.isascii() and text.isdigit()


def ascii_int(text: str, limit: int | None = None) -> int | None:
    """The value of a string of ASCII digits, or None if it is not one or exceeds ``limit``.

    The length is checked before the conversion, so a huge string costs nothing.
    """
    if not is_ascii_digits(text):
        return None
    if limit is not None:
        t = text.lstrip("0")
        if len(t) > len(str(limit)):
            return None
        value = int(t or "0")
        return value if value <= limit else None
    if len(text) > 4000:  # int() refuses longer strings anyway (sys.int_info.str_digits_check_threshold)
        return None
    return int(text)
