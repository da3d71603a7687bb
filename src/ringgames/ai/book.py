"""Opening books: decisions searched deeply once, ahead of play, and read back in a game (``ringgames book``).

The one book today is **Gygès's setup** (:data:`BOOK_FILES`): South's arrangement and North's reply to each of
South's 90, each chosen by one search far deeper than a decision's time allows (:func:`build`: the compiled
alpha-beta, ``search:depth=D,min=D``, from the position after South's arrangement). A setup decision is the one
where a level's search sees least (at one second it reaches the setup and two or three moves), and North's reply
is a free choice made knowing South's; the book is the same search, a few turns deeper.

How it is built:

1. For each of South's arrangements up to mirror image (files a<->f: 48 classes of the 90), the search from the
   position with North to move gives North's reply and its value for North (evaluation points; the same for any
   ``jobs``: the search is depth-limited).
2. The mirror image of a searched arrangement is not searched again: it takes the mirrored reply and the same
   value. The rules are symmetric (the board, the moves and the goal), so the true values of the two are equal;
   the search itself is not exactly symmetric (its reductions and move order follow the action numbers), so a
   second search could differ by a few points.
3. South's arrangement is the one whose best reply is worst for North (ties: the first in notation order).

A book is a JSON file: ``{"game", "variant", "spec", "depth", "seed", "moves": {position: {"action", "value"}},
"build": {...}}``, the position in the game's own position notation, the action in its action notation, the value
for the player to move. :func:`load_book` reads it through the game protocol only (``position()``,
``string_to_action``) and refuses a file whose actions are not legal in their positions, an entry without a value
(a number of at most :data:`MAX_VALUE` points), or a file over :data:`MAX_BYTES`; an agent with such a book (:func:`book_move`) logs one warning and searches.

Agents: ``search:…,book=1`` and ``alphabeta:…,book=1`` play the book's action where the position is in it;
Gygès level 5 has ``book=1`` (``ai/levels.py``). A book is deterministic: with it, every game of level 5 as South
starts with the same arrangement, and North's reply depends only on South's (``seed`` and ``noise`` do not vary it).

>>> from ringgames import load_game
>>> s = load_game("gyges").new_initial_state()
>>> action, value, depth = book_move(s)  # South's arrangement, its value for South, the book's search depth
>>> len(s.action_to_string(action)), depth
(6, 6)
"""

from __future__ import annotations

import json
import logging
import math
import multiprocessing
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any, cast

from .. import load_game
from ..protocol import State

__all__ = ["BOOK_FILES", "DEPTH", "book_move", "build", "load_book", "write", "describe"]

log = logging.getLogger(__name__)

#: The shipped books by game (only Gygès has one: its setup).
BOOK_FILES: dict[str, Path] = {"gyges": Path(__file__).with_name("books") / "gyges_setup.json"}
#: The depth of the shipped Gygès book's searches (turns, the setup reply included).
DEPTH = 6
#: Most positions a book file may hold, and its largest size in bytes.
MAX_POSITIONS = 10_000
MAX_BYTES = 2_000_000
#: The largest value a book entry may hold (evaluation points; a proven result in the searches is 1,000,000).
MAX_VALUE = 100_000.0


def _mirror(arrangement: str) -> str:
    """An arrangement (six digits, files a to f) seen in the mirror: files a<->f."""
    return arrangement[::-1]


def _reply(args: tuple[str, int, int, int]) -> dict[str, Any]:
    """North's reply to South's ``arrangement`` by a depth-limited search (run in a worker process)."""
    from .agents import make_agent
    from .alphabeta import AlphaBetaAgent

    arrangement, depth, seed, tt = args
    state = load_game("gyges").new_initial_state()
    state.apply_action(state.string_to_action(arrangement))
    agent = make_agent(f"search:depth={depth},min={depth},seed={seed},tt={tt}")
    assert isinstance(agent, AlphaBetaAgent)
    t0 = time.perf_counter()
    r = agent.analyse(state)
    return {"south": arrangement, "position": state.position(), "action": state.action_to_string(r["action"]),
            "value": round(float(r["value"]), 3) + 0.0, "nodes": int(r["nodes"]), "seconds": time.perf_counter() - t0}


def build(depth: int = DEPTH, jobs: int = 1, seed: int = 0, tt: int = 2_000_000,
          echo: Callable[[str], Any] | None = None) -> dict[str, Any]:
    """The Gygès setup book (see the module docs): North's reply to each of South's arrangements by a search of
    ``depth`` turns, South's arrangement from their values. The same arguments give the same book."""
    if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= 8:
        raise ValueError(f"book depth must be a whole number of turns from 1 to 8, not {depth!r}")
    t0 = time.perf_counter()
    start = load_game("gyges").new_initial_state()
    arrangements = sorted(start.action_to_string(a) for a in start.legal_actions())
    classes = sorted({min(a, _mirror(a)) for a in arrangements})
    tasks = [(a, depth, seed, tt) for a in classes]
    replies: dict[str, dict[str, Any]] = {}
    results: Iterator[dict[str, Any]]
    if jobs <= 1:
        results = map(_reply, tasks)
    else:
        pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"))
        results = pool.map(_reply, tasks, chunksize=1)
    try:
        for i, r in enumerate(results, 1):
            replies[r["south"]] = r
            if echo is not None:
                echo(f"{i}/{len(classes)}: South {r['south']}, North {r['action']} ({r['value']:+g} for North; "
                     f"{r['nodes']:,} nodes, {r['seconds']:.1f} s)")
    finally:
        if jobs > 1:
            pool.shutdown(cancel_futures=True)  # an error or ^C does not wait for the searches still queued
    moves: dict[str, dict[str, Any]] = {}
    values: dict[str, float] = {}
    for a in arrangements:
        c = min(a, _mirror(a))
        r = replies[c]
        reply = r["action"] if a == c else _mirror(r["action"])
        after = start.clone()
        after.apply_action(after.string_to_action(a))
        moves[after.position()] = {"action": reply, "value": r["value"]}
        values[a] = r["value"]
    south = min(arrangements, key=lambda a: (values[a], a))  # North's best reply is worst for North
    moves = {start.position(): {"action": south, "value": 0.0 - values[south]}, **moves}
    return {
        "game": "gyges",
        "variant": "standard",
        "spec": f"search:depth={depth},min={depth},seed={seed},tt={tt}",
        "depth": depth,
        "seed": seed,
        "moves": moves,
        "build": {"searches": len(classes), "nodes": sum(r["nodes"] for r in replies.values()),
                  "seconds": round(time.perf_counter() - t0, 1)},
    }


def write(book: dict[str, Any], path: str | Path) -> None:
    """Write ``book`` as JSON (positions in the order built)."""
    Path(path).write_text(json.dumps(book, indent=1) + "\n")


def describe(book: dict[str, Any]) -> str:
    """A few lines about ``book``: its search, South's arrangement and the range of North's values."""
    moves = book["moves"]
    first, *rest = moves.items()
    values = [m["value"] for _, m in rest]
    return (f"{book['game']} setup book: {book['spec']}, {len(moves)} positions\n"
            f"South plays {first[1]['action']} ({first[1]['value']:+g} for South)\n"
            f"North's replies: {min(values):+g} to {max(values):+g} for North "
            f"({book['build']['searches']} searches, {book['build']['nodes']:,} nodes, {book['build']['seconds']} s)")


def _check(book: Any, where: str) -> dict[str, tuple[str, float]]:
    """``{position: (action, value)}`` of a book file's content; ValueError naming what is wrong."""
    if not isinstance(book, dict) or not isinstance(book.get("moves"), dict):
        raise ValueError(f"{where}: not a book (a JSON object with 'moves')")
    game = book.get("game")
    if not isinstance(game, str):
        raise ValueError(f"{where}: 'game' must name a game")
    if not isinstance(book.get("variant"), str):
        raise ValueError(f"{where}: 'variant' must name the game's variant")
    depth = book.get("depth")
    if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= 64:
        raise ValueError(f"{where}: 'depth' must be a whole number of turns from 1 to 64")
    moves = book["moves"]
    if len(moves) > MAX_POSITIONS:
        raise ValueError(f"{where}: {len(moves)} positions, more than {MAX_POSITIONS}")
    out: dict[str, tuple[str, float]] = {}
    for pos, m in moves.items():
        value = m.get("value") if isinstance(m, dict) else None
        try:
            ok = (isinstance(m, dict) and isinstance(m.get("action"), str) and not isinstance(value, bool)
                  and isinstance(value, (int, float)) and math.isfinite(value) and abs(value) <= MAX_VALUE)
        except OverflowError:  # an integer too large for a float
            ok = False
        if not ok:
            raise ValueError(f"{where}: position {str(pos)[:60]!r}: an entry needs an 'action' (text) and a 'value' "
                             f"(a number from {-MAX_VALUE:g} to {MAX_VALUE:g})")
        out[pos] = (m["action"], float(cast(float, value)))
    return out


@cache
def load_book(game: str, path: str | None = None) -> dict[str, Any]:
    """A book's content (the shipped one of ``game`` unless ``path``), checked: every action legal in its position
    (replayed through the game's own rules). ValueError if the file is not a valid book. A file is read once per
    process (the result is cached by path, its moves read-only)."""
    file = Path(path) if path is not None else BOOK_FILES.get(game)
    if file is None:
        raise ValueError(f"no book for {game}")
    where = str(file)
    try:
        size = file.stat().st_size
    except OSError as e:
        raise ValueError(f"{where}: cannot read the book ({str(e)[:200]})") from None
    if size > MAX_BYTES:
        raise ValueError(f"{where}: larger than {MAX_BYTES:,} bytes")
    try:
        content = json.loads(file.read_text())
    except (OSError, ValueError, RecursionError) as e:  # ValueError: not JSON, not UTF-8, an integer of 5,000 digits
        raise ValueError(f"{where}: cannot read the book ({str(e)[:200]})") from None
    moves = _check(content, where)
    if content["game"] != game:
        raise ValueError(f"{where}: a book of {content['game'][:40]!r}, not of {game}")
    try:
        g = load_game(game, content["variant"])
    except ValueError as e:
        raise ValueError(f"{where}: {str(e)[:200]}") from None
    states = _positions(g)
    for pos, (action, _) in moves.items():
        state = states.get(pos)
        if state is None:
            raise ValueError(f"{where}: position {pos[:60]!r} is not the start or one setup action from it")
        try:
            a = state.string_to_action(action)
        except ValueError as e:
            raise ValueError(f"{where}: position {pos[:60]!r}, action {action[:40]!r}: {str(e)[:200]}") from None
        if a not in state.legal_actions():
            raise ValueError(f"{where}: position {pos[:60]!r}: {action[:40]!r} is not legal there")
    return {"variant": g.variant, "depth": content["depth"], "moves": MappingProxyType(moves)}


def _positions(game: Any) -> dict[str, State]:
    """The positions a book may hold, by position string: the start and those one action (a setup) from it."""
    start = game.new_initial_state()
    out = {start.position(): start}
    for a in start.legal_actions():
        child = start.clone()
        child.apply_action(a)
        out[child.position()] = child
    return out


def book_move(state: State, path: str | None = None) -> tuple[int, float, int] | None:
    """``(action, value for the player to move, depth)`` if ``state``'s position is in its game's book (the shipped
    one unless ``path``), else None. A book that cannot be read is logged once (as a warning) and treated as empty:
    the agent searches instead."""
    game = state.game
    if path is None and game.name not in BOOK_FILES:
        return None
    key = (game.name, path)
    if key in _BROKEN:
        return None
    try:
        book = load_book(game.name, path)
    except ValueError as e:
        _BROKEN.add(key)
        log.warning("opening book not used: %s", str(e)[:300])
        return None
    if getattr(game, "variant", None) != book["variant"]:
        return None
    entry = book["moves"].get(state.position())
    if entry is None:
        return None
    return state.string_to_action(entry[0]), entry[1], int(book["depth"])


#: Books that could not be read in this process (game, path): warned about once, then not tried again.
_BROKEN: set[tuple[str, str | None]] = set()
