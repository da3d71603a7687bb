"""Shared helpers for the Gygès tests: random positions and a slow, independent reference move generator."""

from __future__ import annotations

import random

from ringgames import load_game
from ringgames.games.gyges import GOAL, NO_DROP, PASS, decode_move

START = "321123/000000/000000/000000/000000/321123 S"


def random_states(seed: int, n: int, variant: str | None = None, max_plies: int = 60) -> list:
    """``n`` unfinished play-phase states reached by random games from random setups."""
    game = load_game("gyges", variant)
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        s = game.new_initial_state()
        target = 2 + rng.randrange(max_plies)
        while not s.is_terminal() and len(s.history) < target:
            s.apply_action(rng.choice(s.legal_actions()))
        if not s.is_terminal():
            out.append(s)
    return out


def board_of(state) -> list[int]:
    """The 36 squares read from the position string (row 1 first, files a→f)."""
    fields = state.position().split()[0].split("/")
    return [int(ch) for f in fields for ch in f]


def side_of(state) -> int:
    return "SN".index(state.position().split()[1])


def as_triples(actions) -> set:
    """Engine action ids -> {(start, end or 'G', drop or None)}."""
    out = set()
    for a in actions:
        if a == PASS:
            out.add("pass")
            continue
        s, e, d = decode_move(a)
        out.add((s, "G" if e == GOAL else e, None if d == NO_DROP else d))
    return out


# -- the oracle ---------------------------------------------------------------
# Written from the rules text only: coordinates as (row, col), links as
# frozensets of two squares, explicit step-by-step search; no bitmasks and no
# code shared with the engine.


def _neighbours(sq):
    r, c = divmod(sq, 6)
    for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        if 0 <= r + dr < 6 and 0 <= c + dc < 6:
            yield (r + dr) * 6 + (c + dc)


def reference_moves(board, side: int, replace: bool) -> set:
    """All legal moves as {(start, end or 'G', drop or None)}, or {'pass'} if none exists."""
    far_row = 5 if side == 0 else 0
    rows = list(range(6)) if side == 0 else list(range(5, -1, -1))
    for row in rows:
        found = set()
        for start in range(row * 6, row * 6 + 6):
            if board[start] == 0:
                continue
            lifted = list(board)
            rings = lifted[start]
            lifted[start] = 0
            outcomes = set()  # ('end', sq) / ('goal',) / ('replace', sq)
            # a search node: (square, steps left in this segment, links used so far)
            todo = [(start, rings, frozenset())]
            done = set()
            while todo:
                node = todo.pop()
                if node in done:
                    continue
                done.add(node)
                sq, left, used = node
                if left == 1 and sq // 6 == far_row:
                    outcomes.add(("goal",))
                for nb in _neighbours(sq):
                    link = frozenset((sq, nb))
                    if link in used:
                        continue
                    if left > 1:
                        if lifted[nb] == 0:
                            todo.append((nb, left - 1, used | {link}))
                    elif lifted[nb] == 0:
                        outcomes.add(("end", nb))
                    else:
                        outcomes.add(("replace", nb))
                        todo.append((nb, lifted[nb], used | {link}))
            for o in outcomes:
                if o[0] == "goal":
                    found.add((start, "G", None))
                elif o[0] == "end":
                    found.add((start, o[1], None))
                elif replace:
                    end = o[1]
                    after = list(lifted)
                    after[end] = rings  # the mover; the displaced piece is off the board
                    occupied_rows = [i // 6 for i in range(36) if after[i]]
                    for drop in range(36):
                        if after[drop]:
                            continue
                        if side == 0 and drop // 6 > max(occupied_rows):
                            continue
                        if side == 1 and drop // 6 < min(occupied_rows):
                            continue
                        found.add((start, end, drop))
        if found:
            return found
    return {"pass"}


def reference_successor(board, side, move) -> tuple:
    """The board after ``move`` (a triple from reference_moves), as a tuple."""
    if move == "pass":
        return tuple(board)
    start, end, drop = move
    b = list(board)
    rings = b[start]
    b[start] = 0
    if end != "G":
        displaced = b[end]
        b[end] = rings
        if drop is not None:
            b[drop] = displaced
    return tuple(b)


def landing_sequences(board, side: int, start: int, max_bounces: int) -> dict:
    """Every landing sequence with at most ``max_bounces`` bounces, by the move it realises.

    Returns {(start, end or 'G', replaced?): set of tuples of squares (start, bounces..., end)}; for a
    win the tuple ends with the last square before the goal. Path-explicit, no memo.
    """
    far_row = 5 if side == 0 else 0
    lifted = list(board)
    rings = lifted[start]
    lifted[start] = 0
    out: dict = {}

    def add(key, seq):
        out.setdefault(key, set()).add(tuple(seq))

    def segment(sq, left, used, landings):
        if left == 1 and sq // 6 == far_row:
            add((start, "G", False), landings)
        for nb in _neighbours(sq):
            link = frozenset((sq, nb))
            if link in used:
                continue
            if left > 1:
                if lifted[nb] == 0:
                    segment(nb, left - 1, used | {link}, landings)
            elif lifted[nb] == 0:
                add((start, nb, False), landings + [nb])
            else:
                add((start, nb, True), landings + [nb])
                if len(landings) <= max_bounces:
                    segment(nb, lifted[nb], used | {link}, landings + [nb])

    segment(start, rings, frozenset(), [start])
    return out
