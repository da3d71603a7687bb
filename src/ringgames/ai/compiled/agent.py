"""The agent around a compiled search: root tactics, iterative deepening and time in Python.

``search:time=5`` is :class:`CompiledAlphaBetaAgent`: the options and the results of
:class:`~ringgames.ai.alphabeta.AlphaBetaAgent` (``depth``, ``time``, ``min``, ``extend``, ``tt``,
``seed``, ``safe``, ``eval``; ``analyse()`` with time, depth and node limits, a stop event,
``info`` callbacks and excluded root actions), with the tree searched by the game's compiled
kernel (:data:`KERNELS`) where it has one, else by the Python search it inherits.

The compiled search runs without the GIL; a watcher thread tells it when time is up or a stop
was asked for (a flag it reads every 512 nodes).

>>> from ringgames import load_game
>>> s = load_game("yinsh").new_initial_state()
>>> agent = CompiledAlphaBetaAgent(depth=2, seed=0)
>>> agent.choose(s) in s.legal_actions()
True
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Collection
from importlib import import_module
from types import ModuleType
from typing import Any, cast

import numpy as np

from ...protocol import State
from ..alphabeta import WIN, AlphaBetaAgent
from ..evaluation import get_evaluator, win_probability
from ..tactics import safe_actions, winning_action

__all__ = ["CompiledAlphaBetaAgent", "KERNELS", "kernel_for"]


def _yinsh() -> ModuleType:
    from . import yinsh

    return yinsh


#: Games with a compiled search: name -> loader of the kernel module.
KERNELS: dict[str, Callable[[], ModuleType]] = {"yinsh": _yinsh, "gyges": lambda: import_module(".gyges", __package__)}


def kernel_for(state: State) -> ModuleType | None:
    """The compiled search module for ``state``'s game (None: the Python search is used)."""
    load = KERNELS.get(state.game.name)
    if load is None or state.num_players != 2 or not hasattr(state, "s"):
        return None
    return load()


class CompiledAlphaBetaAgent(AlphaBetaAgent):
    """Alpha-beta with the tree in compiled code (``search:time=5``); see the module docstring."""

    def __init__(self, *args: Any, **kwargs: Any):
        kwargs.setdefault("pvs", 1)
        super().__init__(*args, **kwargs)
        self.name = "search"
        self._ctx: Any = None
        self._ctx_key: tuple | None = None

    def _context(self, kernel: ModuleType, state: State) -> Any:
        key = (kernel.__name__, self.eval_name, self.tt_size, self.extend)
        if self._ctx is None or self._ctx_key != key:
            self._ctx = kernel.Context(self.eval_name, self.tt_size, self.extend)
            self._ctx_key = key
        return self._ctx

    def analyse(self, state: State, time_limit: float | None = None, max_depth: int | None = None, *,
                nodes: int | None = None, stop: threading.Event | None = None,
                on_info: Callable[[dict], None] | None = None, exclude: Collection[int] = ()) -> dict:
        kernel = kernel_for(state)
        if kernel is None:
            return super().analyse(state, time_limit, max_depth, nodes=nodes, stop=stop, on_info=on_info,
                                   exclude=exclude)
        if state.is_terminal():
            raise ValueError("the game is over")
        _, scale = get_evaluator(state.game.name, self.eval_name)
        time_limit = self.time_limit if time_limit is None else time_limit
        if time_limit is not None and math.isinf(time_limit):
            time_limit = None
        max_depth = self.max_depth if max_depth is None else max_depth
        start = time.perf_counter()
        actions = self._actions(state)
        if exclude:
            actions = [a for a in actions if a not in set(exclude)]
            if not actions:
                raise ValueError("every legal action is excluded")
        result: dict[str, Any] = {"action": actions[0], "value": 0.0, "depth": 0, "pv": [actions[0]]}
        if len(actions) == 1:
            result.update(nodes=0, win_probability=0.5, seconds=0.0)
            return result
        win = winning_action(state)
        if win is not None and win not in exclude:
            result.update(action=win, value=WIN - 1, pv=[win], depth=1, nodes=0, win_probability=1.0,
                          seconds=time.perf_counter() - start)
            self.last = result
            return result
        if self.safe:
            actions = safe_actions(state, actions)
            if len(actions) == 1:
                result.update(action=actions[0], pv=actions[:1], nodes=0, win_probability=0.5,
                              seconds=time.perf_counter() - start)
                self.last = result
                return result
        self.rng.shuffle(actions)
        ctx = self._context(kernel, state)
        if hasattr(ctx, "set_history"):  # the game's earlier positions (Gygès: the repetition rule)
            ctx.set_history(state)
        ctx.new_search(cast(Any, state).s)  # a kernel state: its array (read only)
        ctl = ctx.ctl
        ctl[kernel.NODE_LIMIT] = 0 if nodes is None else max(1, int(nodes))
        flags = ctx.flags
        done = threading.Event()
        deadline = None if time_limit is None else start + time_limit
        watcher = None
        if deadline is not None or stop is not None:
            watcher = threading.Thread(target=_watch, args=(flags, kernel, deadline, stop, done), daemon=True)
            watcher.start()
        order = np.array(actions, dtype=np.int32)
        out = np.zeros(len(actions), dtype=np.float64)
        try:
            for depth in range(1, max_depth + 1):
                ctl[kernel.MAY_STOP] = 1 if depth > self.min_depth else 0
                if depth > self.min_depth and (flags[kernel.TIME_UP] or flags[kernel.STOP]):
                    break
                if flags[kernel.STOP]:
                    break
                searched = ctx.search_root(order, depth, out)
                if searched < len(order):  # cut off: the root actions searched so far (previous best first)
                    if searched > 0:
                        i = int(np.argmax(out[:searched]))
                        result.update(action=int(order[i]), value=float(out[i]))
                    break
                best = int(np.argmax(out))
                result.update(action=int(order[best]), value=float(out[best]), depth=depth)
                ranks = np.argsort(-out, kind="stable")
                order, out = order[ranks].copy(), out[ranks].copy()
                if on_info is not None:
                    on_info({"depth": depth, "value": result["value"], "nodes": int(ctl[kernel.NODES]),
                             "seconds": time.perf_counter() - start, "pv": ctx.pv(result["action"])})
                if abs(result["value"]) >= WIN - 1000:
                    break  # proven
                if stop is not None and stop.is_set():
                    break
                if nodes is not None and depth >= self.min_depth and ctl[kernel.NODES] >= nodes:
                    break
                if (time_limit is not None and depth >= self.min_depth
                        and time.perf_counter() - start > 0.45 * time_limit):
                    break  # the next iteration would not finish
        finally:
            done.set()
            if watcher is not None:
                watcher.join()
        self.nodes = int(ctl[kernel.NODES])
        result["pv"] = ctx.pv(result["action"])
        result["nodes"] = self.nodes
        result["seconds"] = time.perf_counter() - start
        v = result["value"]
        result["win_probability"] = 1.0 if v >= WIN - 1000 else 0.0 if v <= -WIN + 1000 else win_probability(v, scale)
        self.last = result
        return result


def _watch(flags: np.ndarray, kernel: ModuleType, deadline: float | None, stop: threading.Event | None,
           done: threading.Event) -> None:
    """Set the kernel's flags when the deadline passes or ``stop`` is set (checks every 2 ms)."""
    while not done.wait(0.002):
        if stop is not None and stop.is_set():
            flags[kernel.STOP] = 1
            return
        if deadline is not None and not flags[kernel.TIME_UP] and time.perf_counter() >= deadline:
            flags[kernel.TIME_UP] = 1
            if stop is None:
                return
