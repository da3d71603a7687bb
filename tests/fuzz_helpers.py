"""Helpers for the fuzz tests of the readers: mutations of valid text, and a bounded call.

Every reader of user text (position strings, action notation, records) must answer
any text with a value or the package's own error, never another exception, with
bounded memory and without hanging.
"""

from __future__ import annotations

import random
import signal
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from ringgames import load_game
from ringgames.protocol import State

T = TypeVar("T")

#: deterministic, bounded: the same examples on every run (CI stays stable)
FUZZ = settings(
    max_examples=250,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

#: pieces that break naive readers: non-ASCII digits and look-alikes, huge numbers, delimiters
INTERESTING = [
    "0", "9", "10", "12", "99999999999", "\u00b2", "\u0663", "\u06f5", "\uff11", "\u212a", "\u017f", "\u0130",
    "/", " ", ":", "-", ";", "[", "]", "(", ")", "\\", '"', "\n", "\r", "\t", "\u2028", "\x00", ".", "...",
    "x", "X", "w", "b", "W", "B", "r", "S", "N", "G", "pass", "end", "resign", "\u2026",
]

#: pieces for numbers: non-ASCII digits (superscript, Arabic-Indic, Persian, full-width), huge runs
DIGITS = ["0", "1", "9", "12", "99999999999", "\u00b2", "\u0663", "\u06f5", "\uff11", "\u00bd", "-1", "+1"]

#: peak Python memory one reader call may use (a run length of 99999999999 must not be allocated)
MEMORY_LIMIT = 32 * 1024 * 1024
#: a call that takes longer than this hangs (a guard against endless loops, not a performance check)
HANG_SECONDS = 60


def arbitrary_text(max_size: int = 120) -> st.SearchStrategy[str]:
    """Any text, with the interesting pieces mixed in."""
    piece = st.sampled_from(INTERESTING) | st.text(max_size=4)
    return st.text(max_size=max_size) | st.lists(piece, max_size=max_size // 4).map("".join)


@st.composite
def mutated(draw: st.DrawFn, seeds: list[str], max_ops: int = 2, pieces: list[str] | None = None) -> str:
    """A valid text with up to ``max_ops`` edits: slices deleted, duplicated, replaced; pieces inserted; truncation.

    Inserted pieces come from ``pieces`` (default :data:`INTERESTING`), :data:`DIGITS` or arbitrary text.
    """
    s = draw(st.sampled_from(seeds))
    choices = st.sampled_from(pieces or INTERESTING) | st.sampled_from(DIGITS) | st.text(max_size=3)
    for _ in range(draw(st.integers(1, max_ops))):
        op = draw(st.sampled_from(["replace", "insert", "delete", "duplicate", "truncate"]))
        i = draw(st.integers(0, len(s)))
        j = min(len(s), i + draw(st.integers(0, 2) | st.integers(0, 24)))  # mostly small edits: the text stays readable
        piece = draw(choices)
        if op == "delete":
            s = s[:i] + s[j:]
        elif op == "duplicate":
            s = s[:j] + s[i:j] + s[j:]
        elif op == "insert":
            s = s[:i] + piece + s[i:]
        elif op == "truncate":
            s = s[:i]
        else:
            s = s[:i] + piece + s[j:]
    return s


@st.composite
def mutated_bytes(draw: st.DrawFn, seeds: list[bytes], max_ops: int = 4) -> bytes:
    """A file's bytes with up to ``max_ops`` edits (deleted, duplicated, truncated, ``;``/``]``/``[`` inserted)."""
    s = draw(st.sampled_from(seeds))
    for _ in range(draw(st.integers(1, max_ops))):
        op = draw(st.sampled_from(["delete", "duplicate", "insert", "truncate"]))
        i = draw(st.integers(0, len(s)))
        j = draw(st.integers(i, min(len(s), i + 40)))
        if op == "delete":
            s = s[:i] + s[j:]
        elif op == "duplicate":
            s = s[:j] + s[i:j] + s[j:]
        elif op == "insert":
            s = s[:i] + draw(st.sampled_from([b";", b"]", b"[", b"(", b")", b"\\", b"\xff", b"\xc2", b"P0[", b"\n"])) + s[i:]
        else:
            s = s[:i]
    return s


@contextmanager
def _hang_guard(seconds: int) -> Iterator[None]:
    def fire(signum: int, frame: Any) -> None:
        raise TimeoutError(f"a reader ran for more than {seconds} s (hangs?)")

    old = signal.signal(signal.SIGALRM, fire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def bounded(fn: Callable[[], T]) -> T:
    """Call ``fn`` with a hang guard, and check the peak memory it allocated (tracemalloc)."""
    tracemalloc.start()
    try:
        with _hang_guard(HANG_SECONDS):
            return fn()
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert peak < MEMORY_LIMIT, f"a reader allocated {peak / 2**20:.0f} MiB"


def expect(fn: Callable[[], T], *errors: type[BaseException]) -> T | None:
    """The value of ``fn()``, or None if it raised one of ``errors``; any other exception fails the test."""
    try:
        return bounded(fn)
    except errors:
        return None


def random_states(game: str, count: int, seed: int = 0, **params: Any) -> list[State]:
    """``count`` states along random games (each phase of play shows up), the kernels compiled on the way."""
    g = load_game(game, **params)
    rng = random.Random(seed)
    out: list[State] = []
    s = g.new_initial_state()
    while len(out) < count:
        if s.is_terminal():
            s = g.new_initial_state()
        out.append(s.clone())
        s.apply_action(rng.choice(s.legal_actions()))
    return out


def single_edits(text: str, pieces: list[str] | None = None) -> Iterator[str]:
    """Every text one edit away from ``text``: each piece inserted at or replacing each place, each character deleted.

    An exhaustive sweep finds what random generation rarely does: a ``²`` exactly where a
    run length is read, or ``99999999999`` in a field that is otherwise valid.
    """
    for i in range(len(text) + 1):
        for piece in pieces or INTERESTING + DIGITS:
            yield text[:i] + piece + text[i:]
            if i < len(text):
                yield text[:i] + piece + text[i + 1 :]
        if i < len(text):
            yield text[:i] + text[i + 1 :]
