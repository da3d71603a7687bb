"""Shared helpers for the RINGS tests: building positions and an independent reference of the rules."""

from __future__ import annotations

import random

from ringgames import load_game
from ringgames.games.rings.board import (
    CIRCLE_NEIGHBOURS,
    CIRCLE_POINTS,
    NUM_CIRCLES,
    NUM_POINTS,
    POINT_CIRCLES,
    circle_index,
    point_index,
)
from ringgames.games.rings.notation import CONVERT0, END, PASS, format_position


def make(players: int, stones: dict[int, str], mover: int = 0, phase: int = 0, passes: int = 0, resigned=()):
    """A state from ``{seat: "L11 M11 ..."}`` through a position string."""
    owner = [-1] * NUM_POINTS
    for seat, names in stones.items():
        for name in names.split():
            owner[point_index(name)] = seat
    text = format_position(owner, players, mover, phase, passes, resigned)
    return load_game("rings", players=players).state_from_position(text)


def owners(state, names: str) -> list[int]:
    return [state.owner(point_index(n)) for n in names.split()]


def ci(name: str) -> int:
    return circle_index(name)


def conv(name: str) -> int:
    return CONVERT0 + circle_index(name)


# -- an independent, from-scratch reading of the rules ---------------------------
def reference(state):
    """(rings, influence[c][p], majority[c], convertible circles for the mover) computed from the stones alone."""
    n = state.num_players
    active = set(state.active_players())
    owner = [state.owner(p) for p in range(NUM_POINTS)]
    rings = [-1] * NUM_CIRCLES
    for c, pts in enumerate(CIRCLE_POINTS):
        o = owner[pts[0]]
        if o in active and all(owner[p] == o for p in pts):
            rings[c] = o
    safe = [owner[p] >= 0 and any(rings[c] == owner[p] for c in POINT_CIRCLES[p]) for p in range(NUM_POINTS)]
    infl = []
    maj = []
    for c, pts in enumerate(CIRCLE_POINTS):
        row = []
        for p in range(n):
            if p not in active:
                row.append(0)
                continue
            row.append(sum(owner[q] == p for q in pts) + sum(rings[d] == p for d in CIRCLE_NEIGHBOURS[c]))
        infl.append(row)
        empty = sum(owner[q] < 0 for q in pts)
        holders = [p for p in range(n) if row[p] > sum(row) - row[p] + empty]
        assert len(holders) <= 1
        maj.append(holders[0] if holders else -1)
    mover = state.current_player()
    convertible = []
    if mover >= 0:
        for c, pts in enumerate(CIRCLE_POINTS):
            if maj[c] == mover and any(owner[q] in active and owner[q] != mover and not safe[q] for q in pts):
                convertible.append(c)
    return rings, infl, maj, convertible, safe


def random_state(players: int, rng: random.Random, plies: int, pass_bias: float = 0.0):
    """A state after ``plies`` random actions (fewer if the game ends)."""
    s = load_game("rings", players=players).new_initial_state()
    for _ in range(plies):
        if s.is_terminal():
            break
        acts = s.legal_actions()
        if PASS in acts and rng.random() < pass_bias:
            s.apply_action(PASS)
        elif END in acts and rng.random() < 0.5 and len(acts) > 1:
            s.apply_action(rng.choice(acts[:-1]))
        else:
            s.apply_action(rng.choice(acts))
    return s
