"""The benchmark behind ``ringgames bench``: measured speed of each game's engine.

All figures are single-threaded and go through the game protocol, exactly as
the AI and the server use it:

* ``playouts_per_s`` — whole games from the start with uniformly random legal
  actions (for games with a setup phase, the setup is random too), on the
  fastest path the game offers: its compiled batched playouts
  (``state.random_playouts``) where it has them (``playout_path: kernel``);
* ``actions_per_s`` — atomic actions applied during those playouts
  (each one includes generating the legal actions it was drawn from);
* ``protocol_playouts_per_s`` / ``protocol_actions_per_s`` — the same through
  the Python protocol (``legal_actions`` + ``apply_action`` per action), as the
  AI and the server see it;
* ``perft_nodes_per_s`` — leaf nodes counted per second by ``perft`` from the
  game's :meth:`~ringgames.protocol.Game.perft_benchmark` position;
* ``mcts_iter_per_s`` — MCTS iterations per second from the start position
  (``MCTSAgent(rollout=0, safe=0)``: evaluation at the leaf, as the MCTS levels
  use it), over ``search_seconds``; ``mcts_playout_iter_per_s`` the same with
  a random playout to the end at each leaf (``rollout=-1``);
* ``alphabeta_nodes_per_s`` — alpha-beta nodes per second from the start
  position (``AlphaBetaAgent(time=search_seconds, safe=0)``), with
  ``alphabeta_depth`` the depth it completed.
"""

from __future__ import annotations

import functools
import inspect
import platform
import random
import time
from typing import Any

from . import GAMES, load_game
from .protocol import State

__all__ = ["bench_game", "bench_all", "search_speed", "machine_description"]


def random_playout(state, rng: random.Random, max_actions: int = 100_000) -> int:
    """Play uniformly random legal actions until the game ends; returns the number of actions."""
    n = 0
    while not state.is_terminal() and n < max_actions:
        actions = state.legal_actions()
        state.apply_action(actions[int(rng.random() * len(actions))])
        n += 1
    return n


def search_speed(state: State, seconds: float = 1.0, seed: int = 1) -> dict[str, Any]:
    """MCTS iterations/s (leaf evaluation, and random playout to the end) and alpha-beta nodes/s
    from ``state`` (not modified), each searched for ``seconds``; with the counts behind them
    (``mcts_iterations``, ``mcts_playout_iterations``, ``alphabeta_nodes``)."""
    from .ai.alphabeta import AlphaBetaAgent
    from .ai.mcts import MCTSAgent

    out: dict[str, Any] = {"search_seconds": seconds}
    for label, rollout in (("mcts", 0), ("mcts_playout", -1)):
        m = MCTSAgent(time=seconds, rollout=rollout, seed=seed, safe=0, reuse=0)
        t0 = time.perf_counter()
        m.search(state.clone())
        out[f"{label}_iter_per_s"] = round(m.iterations_done / (time.perf_counter() - t0), 1)
        out[f"{label}_iterations"] = m.iterations_done  # the work behind the figure
    ab = AlphaBetaAgent(time=seconds, seed=seed, safe=0)
    r = ab.analyse(state.clone())
    out["alphabeta_nodes_per_s"] = round(r["nodes"] / max(1e-9, r["seconds"]), 1)
    out["alphabeta_nodes"] = r["nodes"]
    out["alphabeta_depth"] = r["depth"]
    return out


def bench_game(name: str, seconds: float = 2.0, seed: int = 1, variant: str | None = None, players: int | None = None,
               search_seconds: float = 1.0) -> dict:
    """Measure one game; returns a dict of figures (see the module docs). ``search_seconds`` is the
    time given to each search measurement (0: leave them out)."""
    game = load_game(name, variant, players)
    rng = random.Random(seed)
    # warm up (compiles the kernels on a cold cache)
    random_playout(game.new_initial_state(), rng)
    games = actions = 0
    t0 = time.perf_counter()
    while True:
        actions += random_playout(game.new_initial_state(), rng)
        games += 1
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            break
    row = {
        "game": name,
        "variant": game.variant,
        "players": game.num_players,
        "protocol_playouts_per_s": round(games / elapsed, 2),
        "protocol_actions_per_s": round(actions / elapsed, 1),
        "mean_actions_per_game": round(actions / games, 1),
    }
    start = game.new_initial_state()
    if hasattr(start, "random_playouts"):  # the batched kernel path
        kernel_playouts = start.random_playouts
        if "sampler" in inspect.signature(kernel_playouts).parameters:  # Gygès: its fastest sampler
            kernel_playouts = functools.partial(kernel_playouts, sampler="fast")
        kernel_playouts(2, seed)
        n, total, total_actions, kt = 64, 0, 0, 0.0
        while kt < seconds:
            t1 = time.perf_counter()
            res = kernel_playouts(n, seed + n)
            kt += time.perf_counter() - t1
            total += n
            total_actions += int(res["length"].sum())
            n *= 2
        row["playouts_per_s"] = round(total / kt, 1)
        row["actions_per_s"] = round(total_actions / kt, 1)
        row["playout_path"] = "kernel"
    else:
        row["playouts_per_s"] = row["protocol_playouts_per_s"]
        row["actions_per_s"] = row["protocol_actions_per_s"]
        row["playout_path"] = "protocol"
    state, depth = game.perft_benchmark()
    state.perft(1)
    t1 = time.perf_counter()
    nodes = state.perft(depth)
    perft_s = time.perf_counter() - t1
    row.update({"perft_depth": depth, "perft_nodes": nodes, "perft_nodes_per_s": round(nodes / perft_s, 1)})
    if search_seconds > 0:
        row.update(search_speed(game.new_initial_state(), search_seconds, seed))
    return row


def startup_cost(name: str, cold: bool) -> float:
    """Seconds for ``import ringgames`` + loading the game + the first legal actions and apply, in a fresh
    interpreter; ``cold`` points numba's cache at an empty folder first."""
    import os
    import subprocess
    import sys
    import tempfile

    code = (
        f"import time; t=time.perf_counter(); import ringgames; g=ringgames.load_game({name!r}); "
        "s=g.new_initial_state(); s.apply_action(s.legal_actions()[0]); s.perft(2); print(time.perf_counter()-t)"
    )
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as tmp:
        if cold:
            env["NUMBA_CACHE_DIR"] = tmp
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return round(float(out.stdout.strip().splitlines()[-1]), 3)


def bench_all(games: list[str] | None = None, seconds: float = 2.0) -> list[dict]:
    return [bench_game(g, seconds) for g in (games or list(GAMES))]


def machine_description() -> str:
    import os

    return f"{platform.python_implementation()} {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs"
