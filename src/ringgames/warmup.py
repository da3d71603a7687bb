"""Compile (or load from numba's on-disk cache) the rules kernels and compiled searches before they are needed.

A kernel is compiled on its first call. In a server that first call would come from a
player's move, inside the event loop, and stall every game for seconds after an install
(or for a few tenths of a second when loading the cache). :func:`warm_up` makes those
first calls up front: the play site runs it before it accepts connections, and in each
computer-player process when the pool starts.

>>> seconds = warm_up(["yinsh"])
>>> sorted(seconds)
['yinsh']
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from . import GAMES, load_game

__all__ = ["warm_up"]


def _exercise(game_name: str) -> None:
    """Call what a game's protocol compiles: moves, undo, positions, keys, notation, outcomes, playouts."""
    game = load_game(game_name)
    state = game.new_initial_state()
    state.legal_actions()
    state.hash_key()
    again = game.state_from_position(state.position())
    again.legal_actions()
    for a in state.clone().legal_actions()[:1]:
        probe = state.clone()
        probe.apply_action(a)
        probe.action_to_string(a)
        probe.undo_action()
    from .simulate import playout_actions

    played = game.new_initial_state()  # a random game in the kernel, then replayed: every phase and the end
    for a in playout_actions(played, seed=1)[:400]:
        played.action_to_string(a)
        played.apply_action(a)
    played.returns()
    played.position()
    from .ai.compiled.agent import KERNELS, CompiledAlphaBetaAgent

    if game_name in KERNELS:  # the compiled search of the computer players (levels 3-5)
        CompiledAlphaBetaAgent(depth=2, seed=0, safe=0).analyse(load_game(game_name, players=2).new_initial_state())
    from .ai.compiled.uct import GAMES as UCT_GAMES
    from .ai.compiled.uct import CompiledMCTSAgent

    if game_name in UCT_GAMES:  # the compiled MCTS (RINGS with four to six players)
        CompiledMCTSAgent(iterations=64, seed=0, safe=0, nodes=10_000).search(game.new_initial_state())


def warm_up(games: Iterable[str] | None = None) -> dict[str, float]:
    """Exercise every registered game's kernels (or those of ``games``); the seconds each took."""
    seconds: dict[str, float] = {}
    for name in games if games is not None else GAMES:
        t = time.perf_counter()
        _exercise(name)
        seconds[name] = round(time.perf_counter() - t, 3)
    return seconds
