"""Gygès move generation on a flat board (the hot path; plain functions, no objects).

``board`` is a list of 36 ints (0 empty, else the piece's rings), ``side`` 0
for South and 1 for North, ``replace`` False in the beginner variant.

A move lifts its piece, then walks segments of exactly as many steps as the
rings of the piece it last landed on (its own rings first); every step but the
last of a segment enters an empty square; no link is used twice in the whole
move (``used`` bitmask). The search explores each (bounce square, used links)
state once, and collects for each start square the set of empty end squares
(plus :data:`GOAL`) and the set of occupied squares where a replace is
possible; the drop squares do not depend on where the replace happens, only on
the start square (the end square stays occupied, by the mover).
"""

from __future__ import annotations

from .board import GOAL, GOAL_ROW, MOVE_BASE, NEIGHBORS, NO_DROP, NSQ, ROW, SIZE

_NEIGH = NEIGHBORS
_ROW = ROW


def _walk(board, cur, rem, used, goal_row, ends, reps, seen):
    """One segment of ``rem`` steps from ``cur`` (loops unrolled per length), then bounces recursively."""
    if rem == 1:
        if _ROW[cur] == goal_row:
            ends.add(GOAL)
        for n1, b1 in _NEIGH[cur]:
            if used & b1:
                continue
            u1 = used | b1
            p = board[n1]
            if p == 0:
                ends.add(n1)
            else:
                reps.add(n1)
                k = (u1 << 6) | n1
                if k not in seen:
                    seen.add(k)
                    _walk(board, n1, p, u1, goal_row, ends, reps, seen)
    elif rem == 2:
        for n1, b1 in _NEIGH[cur]:
            if used & b1 or board[n1]:
                continue
            u1 = used | b1
            if _ROW[n1] == goal_row:
                ends.add(GOAL)
            for n2, b2 in _NEIGH[n1]:
                if u1 & b2:
                    continue
                u2 = u1 | b2
                p = board[n2]
                if p == 0:
                    ends.add(n2)
                else:
                    reps.add(n2)
                    k = (u2 << 6) | n2
                    if k not in seen:
                        seen.add(k)
                        _walk(board, n2, p, u2, goal_row, ends, reps, seen)
    else:
        for n1, b1 in _NEIGH[cur]:
            if used & b1 or board[n1]:
                continue
            u1 = used | b1
            for n2, b2 in _NEIGH[n1]:
                if u1 & b2 or board[n2]:
                    continue
                u2 = u1 | b2
                if _ROW[n2] == goal_row:
                    ends.add(GOAL)
                for n3, b3 in _NEIGH[n2]:
                    if u2 & b3:
                        continue
                    u3 = u2 | b3
                    p = board[n3]
                    if p == 0:
                        ends.add(n3)
                    else:
                        reps.add(n3)
                        k = (u3 << 6) | n3
                        if k not in seen:
                            seen.add(k)
                            _walk(board, n3, p, u3, goal_row, ends, reps, seen)


def drop_squares(board, side: int) -> list[int]:
    """Empty squares where a displaced piece may go; ``board`` has the mover lifted.

    South: rows up to the highest occupied row; North: rows down to the lowest.
    """
    if side == 0:
        i = NSQ - 1
        while i >= 0 and not board[i]:
            i -= 1
        hi = (_ROW[i] + 1) * SIZE if i >= 0 else NSQ
        return [j for j in range(hi) if not board[j]]
    i = 0
    while i < NSQ and not board[i]:
        i += 1
    lo = _ROW[i] * SIZE if i < NSQ else 0
    return [j for j in range(lo, NSQ) if not board[j]]


def piece_targets(board, s: int, side: int, replace: bool):
    """``(ends, reps, drops)`` for the piece on ``s`` (the board is restored afterwards).

    ``ends``: empty end squares, plus GOAL for a win; ``reps``: occupied squares
    where the move may end with a replace (empty when ``replace`` is False);
    ``drops``: where the displaced piece may go.
    """
    v = board[s]
    board[s] = 0
    ends: set[int] = set()
    reps: set[int] = set()
    _walk(board, s, v, 0, GOAL_ROW[side], ends, reps, set())
    drops = drop_squares(board, side) if (reps and replace) else []
    board[s] = v
    if not replace or not drops:
        reps = set()
    return ends, reps, drops


def movable_starts(board, side: int, replace: bool) -> list[tuple[int, set, set, list]]:
    """The pieces that may move: the nearest non-empty row with a legal move (next-row fallback).

    Returns ``[(start, ends, reps, drops), ...]`` for that row, or ``[]`` if no piece can move.
    """
    rows = range(SIZE) if side == 0 else range(SIZE - 1, -1, -1)
    for r in rows:
        out = []
        for s in range(r * SIZE, r * SIZE + SIZE):
            if board[s]:
                ends, reps, drops = piece_targets(board, s, side, replace)
                if ends or reps:
                    out.append((s, ends, reps, drops))
        if out:
            return out
    return []


def generate(board, side: int, replace: bool) -> list[int]:
    """Legal move action ids, sorted ascending (empty if the side cannot move)."""
    out: list[int] = []
    for s, ends, reps, drops in movable_starts(board, side, replace):
        base = MOVE_BASE + s * 37 * 37
        for e in ends:
            out.append(base + e * 37 + NO_DROP)
        for e in reps:
            b2 = base + e * 37
            out.extend([b2 + d for d in drops])
    out.sort()
    return out


def segments(board, cur: int, rem: int, used: int, goal_row: int):
    """Every way to walk one segment of ``rem`` steps: yields ``(landing, used_after)``.

    ``landing`` is GOAL for a step into the opponent's goal. ``board`` has the mover lifted.
    """
    if rem == 1 and _ROW[cur] == goal_row:
        yield GOAL, used
    for nb, bit in _NEIGH[cur]:
        if used & bit:
            continue
        if rem > 1:
            if board[nb] == 0:
                yield from segments(board, nb, rem - 1, used | bit, goal_row)
        else:
            yield nb, used | bit
