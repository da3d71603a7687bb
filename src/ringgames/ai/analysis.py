"""Position analysis for the analysis board (``POST /api/analysis``): evaluation per seat, best line, alternatives.

Two-player games are searched with the compiled alpha-beta of the levels
(:class:`~ringgames.ai.compiled.agent.CompiledAlphaBetaAgent`, one thread: the best line, then "multi-PV": the same
search with the actions already shown left out gives each alternative with its exact value);
RINGS with 3–6 seats with the compiled MCTS of the levels (:class:`~ringgames.ai.compiled.uct.CompiledMCTSAgent`,
about 50 times the Python tree's iterations; the most visited root actions, each with every seat's expected score). The search is seeded, so a depth (alpha-beta) or an iteration count (MCTS) gives
the same answer every time; ``seconds`` bounds it in any case. Runs in a worker process: plain data in and out.
"""

from __future__ import annotations

import math
from typing import Any

from ..protocol import State

#: alternatives shown besides the best action
ALTERNATIVES = 3
#: longest line shown
PV_LENGTH = 12


def _line(state: State, actions: list[int]) -> tuple[list[str], list[int], list[str]]:
    """The line as notation, the seat playing each action, and the position after each (legal prefix only)."""
    s = state.clone()
    notation, seats, positions = [], [], []
    for a in actions[:PV_LENGTH]:
        if s.is_terminal() or a not in s.legal_actions():
            break
        seats.append(s.current_player())
        notation.append(s.action_to_string(a))
        s.apply_action(a)
        positions.append(s.position())
    return notation, seats, positions


def _per_seat(p: float, me: int, n: int) -> list[float]:
    """A two-player win probability of seat ``me`` as one value per seat."""
    out = [1.0 - p] * n
    out[me] = p
    return [round(v, 4) for v in out]


def analyse_state(state: State, seconds: float, depth: int | None = None, iterations: int | None = None,
                  alternatives: int = ALTERNATIVES, seed: int = 0) -> dict[str, Any]:
    """Analyse ``state`` (not terminal) within about ``seconds``; see the module docstring for the answer."""
    if state.is_terminal():
        raise ValueError("the game is over")
    asked = state
    out: dict[str, Any] = {"to_move": state.current_player()}
    # forced actions (a single legal one, e.g. the only ring to remove) are played first: the search would call the
    # position even without looking, and the line starts with them
    forced: list[int] = []
    state = state.clone()
    while not state.is_terminal() and len(state.legal_actions()) == 1 and len(forced) < PV_LENGTH:
        forced.append(state.legal_actions()[0])
        state.apply_action(forced[-1])
    me = None if state.is_terminal() else state.current_player()
    n = state.num_players
    legal = [] if me is None else state.legal_actions()
    k = max(0, min(alternatives, len(legal) - 1))
    lines: list[dict[str, Any]] = []
    if me is None:  # the forced line ends the game
        lines.append({"actions": [], "eval": [round((r + 1.0) / 2.0, 4) for r in state.returns()], "score": None,
                      "proven": None, "depth": 0})
        out.update(search="alphabeta" if n == 2 else "mcts", depth=0 if n == 2 else None, iterations=None if n == 2 else 0)
    elif n == 2:
        from .alphabeta import WIN
        from .compiled.agent import CompiledAlphaBetaAgent

        # the levels' search (a depth is always completed)
        agent = CompiledAlphaBetaAgent(depth=depth, time=seconds, seed=seed, min=depth or 1)
        shown: list[int] = []
        for i in range(k + 1):
            budget = seconds / 2 if i == 0 else seconds / 2 / max(1, k)
            r = agent.analyse(state.clone(), time_limit=budget, max_depth=depth, exclude=shown)
            v = float(r["value"])
            proven = "win" if v >= WIN - 1000 else "loss" if v <= -WIN + 1000 else None
            lines.append({"actions": r["pv"], "eval": _per_seat(float(r["win_probability"]), me, n),
                          "score": None if proven else round(v, 1), "proven": proven, "depth": r["depth"]})
            shown.append(r["action"])
        out.update(search="alphabeta", depth=lines[0]["depth"], iterations=None)
    else:
        from .compiled.uct import CompiledMCTSAgent

        agent2 = CompiledMCTSAgent(iterations=iterations, time=seconds, seed=seed)
        root = agent2.search(state.clone(), iterations if iterations is not None else math.inf, seconds)
        kids = sorted(root.children.items(), key=lambda t: (-t[1].n, t[0]))
        for a, ch in kids[:k + 1]:
            acts, node = [a], ch
            while node.children:
                b, node = max(node.children.items(), key=lambda t: (t[1].n, -t[0]))
                if node.n < 2:
                    break
                acts.append(b)
            lines.append({"actions": acts, "eval": [round(w / ch.n, 4) for w in ch.w], "score": None, "proven": None,
                          "depth": None})
        if not lines:  # no iteration finished: the first legal action, even odds
            lines.append({"actions": legal[:1], "eval": [round(1.0 / n, 4)] * n, "score": None, "proven": None, "depth": None})
        out.update(search="mcts", depth=None, iterations=agent2.iterations_done)
    best = lines[0]
    if forced:  # the line from the position asked about; no alternative to a forced action
        best["actions"], lines = forced + best["actions"], lines[:1]
        if best["proven"] and me is not None and me != out["to_move"]:  # proven for the seat to move after them
            best["proven"] = {"win": "loss", "loss": "win"}[best["proven"]] if n == 2 else None
        if best["score"] is not None and me is not None and me != out["to_move"]:
            best["score"] = -best["score"]  # for the seat to move at the position asked about
    state = asked
    pv, pv_seats, pv_positions = _line(state, best["actions"])
    out.update(eval=best["eval"], score=best["score"], proven=best["proven"], pv=pv, pv_seats=pv_seats,
               pv_positions=pv_positions, alternatives=[])
    for alt in lines[1:]:
        line, _, _ = _line(state, alt["actions"])
        out["alternatives"].append({"move": line[0], "eval": alt["eval"], "score": alt["score"], "proven": alt["proven"],
                                    "pv": line})
    return out


def analyse_serialized(serialized: str, seconds: float, depth: int | None = None, iterations: int | None = None) -> dict[str, Any]:
    """Runs in the analysis worker process: :func:`analyse_state` of a serialized state."""
    from .. import deserialize_state

    return analyse_state(deserialize_state(serialized), seconds, depth, iterations)


#: the quick search per position of "analyse this game"
GAME_DEPTH = 2
GAME_ITERATIONS = 5000
GAME_SECONDS = 0.5


def evaluate_serialized(serialized: str) -> list[float]:
    """Runs in the analysis worker: each seat's evaluation of one position of a game, by a quick search
    (alpha-beta :data:`GAME_DEPTH` turns deep, RINGS :data:`GAME_ITERATIONS` iterations, at most
    :data:`GAME_SECONDS`); a finished game's result as 1 (win), 0 (loss), 0.5 (draw)."""
    from .. import deserialize_state

    state = deserialize_state(serialized)
    if state.is_terminal():
        return [round((r + 1.0) / 2.0, 4) for r in state.returns()]
    return analyse_state(state, GAME_SECONDS, GAME_DEPTH, GAME_ITERATIONS, alternatives=0)["eval"]


def mistakes(evals: list[list[float] | None], movers: list[int | None], threshold: float = 0.2) -> list[dict[str, Any]]:
    """The plies after which the seat that moved lost at least ``threshold`` of its evaluation: ``{"ply", "seat",
    "drop"}`` (``evals[i]``: after ply i, 0 the start; ``movers[i]``: the seat that played ply i, i ≥ 1)."""
    out = []
    for i in range(1, len(evals)):
        before, after, seat = evals[i - 1], evals[i], movers[i]
        if before is None or after is None or seat is None:
            continue
        drop = before[seat] - after[seat]
        if drop >= threshold:
            out.append({"ply": i, "seat": seat, "drop": round(drop, 4)})
    return out
