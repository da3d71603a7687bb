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
  ``alphabeta_depth`` the depth it completed;
* ``search_nodes_per_s`` / ``search_depth`` — the same for the compiled search (``search:``,
  :mod:`ringgames.ai.compiled`: the tree in numba; the Python search where a game has no
  compiled one yet), and ``search_speedup`` its nodes/s over the Python alpha-beta's in the same run;
* ``uct_iter_per_s`` — the compiled MCTS's iterations per second (``uct:``, :mod:`ringgames.ai.compiled.uct`,
  leaf evaluation; the Python tree for a game without a compiled one), and ``uct_speedup`` its rate over
  ``mcts_iter_per_s`` in the same run.
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

__all__ = ["bench_all", "bench_batch", "bench_game", "machine_description", "search_speed"]


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
    from .ai.compiled.agent import CompiledAlphaBetaAgent

    c = CompiledAlphaBetaAgent(seed=seed, safe=0, depth=1)
    c.analyse(state.clone())  # compiles (or loads) the kernel before the clock starts
    c = CompiledAlphaBetaAgent(time=seconds, seed=seed, safe=0)
    r = c.analyse(state.clone())
    out["search_nodes_per_s"] = round(r["nodes"] / max(1e-9, r["seconds"]), 1)
    out["search_nodes"] = r["nodes"]
    out["search_depth"] = r["depth"]
    out["search_speedup"] = round(out["search_nodes_per_s"] / max(1e-9, out["alphabeta_nodes_per_s"]), 2)
    from .ai.compiled.uct import CompiledMCTSAgent

    CompiledMCTSAgent(iterations=64, seed=seed, safe=0, nodes=10_000).search(state.clone())  # compiles first
    u = CompiledMCTSAgent(time=seconds, seed=seed, safe=0)
    t0 = time.perf_counter()
    u.search(state.clone())
    out["uct_iter_per_s"] = round(u.iterations_done / (time.perf_counter() - t0), 1)
    out["uct_iterations"] = u.iterations_done
    out["uct_speedup"] = round(out["uct_iter_per_s"] / max(1e-9, out["mcts_iter_per_s"]), 2)
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


# ---------------------------------------------------------------- batched simulation
def _rate(run, batch_size: int, seconds: float) -> tuple[float, float]:
    """Steps per second and per CPU second (all threads of the process) of ``run()`` (one call =
    one step of every game) over about ``seconds``."""
    run()
    n = 0
    c0 = time.process_time()
    t0 = time.perf_counter()
    while True:
        run()
        n += 1
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            return n * batch_size / elapsed, n * batch_size / max(1e-9, time.process_time() - c0)


def _protocol_rate(game, seconds: float, seed: int) -> tuple[float, float]:
    """Random steps per second (and per CPU second) of one protocol state (legal_actions +
    apply_action, a new game at the end)."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    n = 0
    c0 = time.process_time()
    t0 = time.perf_counter()
    while True:
        for _ in range(100):
            if state.is_terminal():
                state = game.new_initial_state()
            actions = state.legal_actions()
            state.apply_action(actions[int(rng.random() * len(actions))])
        n += 100
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            return n / elapsed, n / max(1e-9, time.process_time() - c0)


def bench_batch(name: str, batch_size: int = 1024, seconds: float = 1.0, repeats: int = 3, seed: int = 1,
                variant: str | None = None, players: int | None = None) -> dict:
    """Speed of the batched environment (:class:`ringgames.batch.BatchedEnv`) of one game.

    Every figure is random-agent steps per second (one step = one action in one game, auto-reset
    included), measured ``repeats`` times for about ``seconds`` each, the configurations taking
    turns so that other load on the machine spreads over all of them; ``*_runs`` hold every run,
    the plain keys the best:

    * ``batch_steps_per_s``: ``env.step_random()`` (sampler and step in one compiled call, one
      call per step of the batch) on ``batch_size`` games, all of numba's threads (``threads``);
    * ``two_call_steps_per_s``: the same steps as two calls,
      ``env.step(env.sample_random_actions(), validate=False)``, and ``one_call_ratio`` =
      ``batch_steps_per_s`` / ``two_call_steps_per_s``;
    * ``single_thread_steps_per_s``: the same on one thread (``numba.set_num_threads(1)``), and
      ``scaling`` = best with ``min(2, threads)`` threads / best with one (``scaling_threads``);
    * ``validated_steps_per_s``: with ``validate=True`` (every action checked against the rules);
    * ``mask_obs_steps_per_s``: the ``step_random()`` loop that also materialises
      ``legal_action_mask()`` and ``observation()`` every step (into buffers allocated once: ``out=``);
    * ``fused_steps_per_s``: ``env.play_random(k)`` (the same steps in one compiled call per k);
    * ``protocol_steps_per_s``: one protocol state, ``legal_actions()`` + ``apply_action()`` with
      Python's ``random``, in the same minutes; ``ratio_to_protocol`` = batch / protocol;
    * ``batch_steps_per_cpu_s``, ``single_thread_steps_per_cpu_s``, ``protocol_steps_per_cpu_s``:
      steps per CPU second of the process (all its threads), best run: on a machine shared with
      other work these depend far less on how much of the cores the benchmark got.
    """
    import numba
    import numpy as np

    from .batch import BatchedEnv

    env = BatchedEnv(name, batch_size, variant=variant, players=players, seed=seed)
    game = env.game
    threads = numba.get_num_threads()
    two = min(2, threads)

    def plain():
        env.step_random()

    def two_calls():
        env.step(env.sample_random_actions(), validate=False)

    def validated():
        env.step(env.sample_random_actions())

    mask_buf = np.empty((batch_size, env.num_actions), dtype=np.bool_)
    obs_buf = np.empty((batch_size, *env.observation_shape), dtype=np.float32)

    def mask_obs():
        env.legal_action_mask(out=mask_buf)
        env.observation(out=obs_buf)
        env.step_random()

    k = 16

    def fused():
        env.play_random(k)

    configs = {
        "batch": (plain, threads, 1),
        "single_thread": (plain, 1, 1),
        "two_threads": (plain, two, 1),
        "two_call": (two_calls, threads, 1),
        "validated": (validated, threads, 1),
        "mask_obs": (mask_obs, threads, 1),
        "fused": (fused, threads, k),
    }
    runs: dict[str, list[float]] = {key: [] for key in configs}
    runs["protocol"] = []
    cpu: dict[str, list[float]] = {key: [] for key in runs}
    try:
        for r in range(repeats):
            for key, (fn, nthreads, per_call) in configs.items():
                numba.set_num_threads(nthreads)
                wall, per_cpu = _rate(fn, batch_size * per_call, seconds)
                runs[key].append(wall)
                cpu[key].append(per_cpu)
            wall, per_cpu = _protocol_rate(game, seconds, seed + r)
            runs["protocol"].append(wall)
            cpu["protocol"].append(per_cpu)
    finally:
        numba.set_num_threads(threads)
    best = {key: max(v) for key, v in runs.items()}
    row = {
        "game": name,
        "variant": game.variant,
        "players": game.num_players,
        "batch_size": batch_size,
        "threads": threads,
        "threading_layer": numba.threading_layer(),
        "batch_steps_per_s": round(best["batch"]),
        "single_thread_steps_per_s": round(best["single_thread"]),
        "scaling_threads": two,
        "scaling": round(best["two_threads"] / best["single_thread"], 2),
        "two_call_steps_per_s": round(best["two_call"]),
        "one_call_ratio": round(best["batch"] / best["two_call"], 2),
        "validated_steps_per_s": round(best["validated"]),
        "mask_obs_steps_per_s": round(best["mask_obs"]),
        "fused_steps_per_s": round(best["fused"]),
        "protocol_steps_per_s": round(best["protocol"]),
        "ratio_to_protocol": round(best["batch"] / best["protocol"], 1),
        "observation_shape": list(env.observation_shape),
        "num_actions": env.num_actions,
        "repeats": repeats,
        "seconds": seconds,
    }
    for key in ("batch", "single_thread", "protocol"):
        row[f"{key}_steps_per_cpu_s"] = round(max(cpu[key]))
    for key, v in runs.items():
        row[f"{key}_runs"] = [round(x) for x in v]
    return row


def format_batch_row(row: dict) -> str:
    """A few readable lines of one :func:`bench_batch` result."""

    def spread(key: str) -> str:
        v = row[f"{key}_runs"]
        return f"{max(v):,} (runs {min(v):,}–{max(v):,})"

    cpu = (f"  per CPU second           batch {row['batch_steps_per_cpu_s']:,}, one thread "
           f"{row['single_thread_steps_per_cpu_s']:,}, protocol {row['protocol_steps_per_cpu_s']:,}")
    head = (f"{row['game']} ({row['variant']}, {row['players']} players), B={row['batch_size']}, {row['threads']} threads "
            f"({row['threading_layer']}), random-agent steps/s, best of {row['repeats']} x {row['seconds']} s:")
    return "\n".join([
        head,
        f"  step_random (one call)   {spread('batch')}",
        f"  sampler, step (2 calls)  {spread('two_call')}; one call / two x{row['one_call_ratio']}",
        f"  one thread               {spread('single_thread')}; scaling 1 -> {row['scaling_threads']} threads x{row['scaling']}",
        f"  validated step           {spread('validated')}",
        f"  + mask + observation     {spread('mask_obs')}",
        f"  play_random (fused)      {spread('fused')}",
        f"  protocol, one state      {spread('protocol')}; batch / protocol x{row['ratio_to_protocol']}",
        cpu,
    ])
