"""The benchmark behind ``ringgames bench``: measured speed of each game's engine.

All figures are single-threaded and go through the game protocol, exactly as
the AI and the server use it:

* ``playouts_per_s`` — whole games from the start with uniformly random legal
  actions (for games with a setup phase, the setup is random too);
* ``actions_per_s`` — atomic actions applied during those playouts
  (each one includes generating the legal actions it was drawn from);
* ``perft_nodes_per_s`` — leaf nodes counted per second by ``perft`` from the
  game's :meth:`~ringgames.protocol.Game.perft_benchmark` position.
"""

from __future__ import annotations

import platform
import random
import time

from . import GAMES, load_game

__all__ = ["bench_game", "bench_all", "machine_description"]


def random_playout(state, rng: random.Random, max_actions: int = 100_000) -> int:
    """Play uniformly random legal actions until the game ends; returns the number of actions."""
    n = 0
    while not state.is_terminal() and n < max_actions:
        actions = state.legal_actions()
        state.apply_action(actions[int(rng.random() * len(actions))])
        n += 1
    return n


def bench_game(name: str, seconds: float = 2.0, seed: int = 1, variant: str | None = None, players: int | None = None) -> dict:
    """Measure one game; returns a dict of figures (see the module docs)."""
    game = load_game(name, variant, players)
    rng = random.Random(seed)
    games = actions = 0
    t0 = time.perf_counter()
    while True:
        actions += random_playout(game.new_initial_state(), rng)
        games += 1
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            break
    state, depth = game.perft_benchmark()
    t1 = time.perf_counter()
    nodes = state.perft(depth)
    perft_s = time.perf_counter() - t1
    return {
        "game": name,
        "variant": game.variant,
        "players": game.num_players,
        "playouts": games,
        "playouts_per_s": round(games / elapsed, 2),
        "actions_per_s": round(actions / elapsed, 1),
        "mean_actions_per_game": round(actions / games, 1),
        "perft_depth": depth,
        "perft_nodes": nodes,
        "perft_nodes_per_s": round(nodes / perft_s, 1),
    }


def bench_all(games: list[str] | None = None, seconds: float = 2.0) -> list[dict]:
    return [bench_game(g, seconds) for g in (games or list(GAMES))]


def machine_description() -> str:
    import os

    return f"{platform.python_implementation()} {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs"
