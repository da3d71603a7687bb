"""The agent around a compiled search: root tactics, iterative deepening and time in Python.

``search:time=5`` is :class:`CompiledAlphaBetaAgent`: the options and the results of
:class:`~ringgames.ai.alphabeta.AlphaBetaAgent` (``depth``, ``time``, ``min``, ``extend``, ``tt``,
``seed``, ``safe``, ``eval``; ``analyse()`` with time, depth and node limits, a stop event,
``info`` callbacks and excluded root actions), with the tree searched by the game's compiled
kernel (:mod:`.tree`; :data:`KERNELS`: YINSH, RINGS and Gygès) where it has one, else by the Python search it inherits.
RINGS with 3–6 players is searched *paranoid* (the searching seat against the coalition of the others), as
the Python search does (:data:`PARANOID`).

The compiled search runs without the GIL; a watcher thread tells it when time is up or a stop
was asked for (a flag it reads every 512 nodes).

``threads=N`` (default 1) searches on N threads, *lazy SMP*: N - 1 helper threads run their own
iterative deepening of the same position (root actions in their own shuffled order, every other
helper one depth ahead) into the same transposition table, and the main thread's search — the
one whose result is played — finds their entries there. What it buys is depth in the same time on
several cores; what it costs is determinism (the table's contents depend on the threads' timing,
and entries written by two threads at once are not locked), so ``threads=1`` stays the default and
the one the tests compare with the Python search.

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
from types import ModuleType
from typing import Any, cast

import numpy as np

from ...protocol import State
from ..alphabeta import WIN, AlphaBetaAgent, own_ceiling
from ..evaluation import get_evaluator
from ..turns import TURN_FLOOR, Turn, turn_after, turn_limit, turn_start  # noqa: F401 - TURN_FLOOR: documented here

__all__ = ["CompiledAlphaBetaAgent", "KERNELS", "MAX_THREADS", "PARANOID", "kernel_for"]


#: Games with a compiled search (the others use the Python search): YINSH and RINGS share
#: :mod:`.tree`, Gygès has its own (:mod:`.gyges`).
KERNELS: frozenset[str] = frozenset({"yinsh", "rings", "gyges"})
#: The most threads of ``threads=`` (lazy SMP; the cores are the useful limit).
MAX_THREADS = 64
#: The transposition table's arrays, shared by a search's threads.
_TABLE = ("tt_key", "tt_val", "tt_depth", "tt_flag", "tt_move")
#: Games whose compiled search also plays more than two players (paranoid).
PARANOID: frozenset[str] = frozenset({"rings"})


def kernel_for(state: State) -> ModuleType | None:
    """The compiled search (:mod:`.tree`, or :mod:`.gyges`) if ``state``'s game has one, else None (the Python
    search is used)."""
    if state.game.name not in KERNELS or not hasattr(state, "s"):
        return None
    if state.num_players != 2 and state.game.name not in PARANOID:
        return None
    if state.game.name == "gyges":
        from . import gyges

        return gyges
    from . import tree

    return tree


class CompiledAlphaBetaAgent(AlphaBetaAgent):
    """Alpha-beta with the tree in compiled code (``search:time=5``); see the module docstring."""

    kind = "search"

    def __init__(self, *args: Any, lmr: int = 0, threads: int = 1, **kwargs: Any):
        kwargs.setdefault("pvs", 1)
        super().__init__(*args, **kwargs)
        if isinstance(lmr, bool) or not isinstance(lmr, int) or lmr < 0:
            raise ValueError(f"search lmr must be 0 (off) or the index of the first reduced action, not {lmr!r}")
        if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= MAX_THREADS:
            raise ValueError(f"search threads must be 1–{MAX_THREADS}, not {threads!r}")
        self.lmr = lmr
        self.threads = threads
        self._helpers: list[Any] = []
        self.name = "search"
        self._ctx: Any = None
        self._ctx_key: tuple | None = None
        self._plan: dict[str, int] = {}  # position -> the rest of the turn the last search chose
        self._turn: Turn | None = None  # seat, position expected next, start: a turn in progress

    def choose(self, state: State) -> int:
        """The action to play: the rest of a turn the previous search already chose (a YINSH row and ring after
        the move, RINGS conversions: searched inside the move's tree, so that a turn costs one budget), else a
        search; a later decision of the same turn that the plan does not settle (a principal variation too short
        to reach it, as at depth 2 with three players) is searched with what is left of the turn's budget, at
        least :data:`TURN_FLOOR` of it, as the compiled MCTS does (the level's least depth still applies, within
        what is left of the turn's ``cap``, at least the same share of it)."""
        cont, start = turn_start(self._turn, state)
        planned = self._plan.get(state.position()) if self._plan else None
        if planned is not None and planned in state.legal_actions():
            action = planned
        else:
            if cont:
                limit, ceiling = turn_limit(self.time_limit, start), turn_limit(self.cap, start)
                action = int(self.analyse(state.clone(), limit, ceiling=ceiling)["action"])
            else:
                action = int(self.analyse(state.clone())["action"])
        self._turn = turn_after(state, action, start)
        return action

    def _turn_plan(self, state: State, pv: list[int]) -> dict[str, int]:
        """The decisions of the same player that follow the first in ``pv``, by the position they are taken in."""
        plan: dict[str, int] = {}
        me = state.current_player()
        w = state.clone()
        w.apply_action(pv[0])
        for a in pv[1:]:
            if w.is_terminal() or w.current_player() != me or a not in w.legal_actions():
                break
            plan[w.position()] = a
            w.apply_action(a)
        return plan

    def _new_context(self, kernel: ModuleType, state: State) -> Any:
        if kernel.__name__.endswith(".gyges"):
            return kernel.Context(self.eval_name, self.tt_size, self.extend, self.lmr or None)
        return kernel.Context(state.game.name, self.eval_name, self.tt_size, self.extend, self.lmr)

    def _context(self, kernel: ModuleType, state: State) -> Any:
        key = (state.game.name, self.eval_name, self.tt_size, self.extend, self.lmr)
        if self._ctx is None or self._ctx_key != key:
            self._ctx = self._new_context(kernel, state)
            self._ctx_key = key
            self._helpers = []
        while len(self._helpers) < self.threads - 1:  # lazy SMP: helpers with their own stacks, the same table
            helper = self._new_context(kernel, state)
            for name in _TABLE:
                setattr(helper, name, getattr(self._ctx, name))
            self._helpers.append(helper)
        return self._ctx

    def _start_helpers(self, kernel: ModuleType, state: State, actions: list[int], max_depth: int) -> list[Any]:
        """Start the helper threads of ``threads`` > 1 (see the module docstring); returns ``(context, thread)``
        pairs."""
        started = []
        for i, helper in enumerate(self._helpers[: self.threads - 1]):
            if hasattr(helper, "set_history"):
                helper.set_history(state)
            if state.num_players > 2:
                helper.new_search(cast(Any, state).s, state.current_player())
            else:
                helper.new_search(cast(Any, state).s)
            helper.ctl[kernel.MAY_STOP] = 1
            order = np.array(actions, dtype=np.int32)
            np.random.default_rng(self.rng.getrandbits(32)).shuffle(order)
            th = threading.Thread(target=_helper_search, args=(helper, kernel, order, 1 + (i + 1) % 2, max_depth),
                                  daemon=True)
            th.start()
            started.append((helper, th))
        return started

    def analyse(self, state: State, time_limit: float | None = None, max_depth: int | None = None, *,
                nodes: int | None = None, stop: threading.Event | None = None,
                on_info: Callable[[dict], None] | None = None, exclude: Collection[int] = (),
                ceiling: float | None = None) -> dict:
        kernel = kernel_for(state)
        if kernel is None:
            return super().analyse(state, time_limit, max_depth, nodes=nodes, stop=stop, on_info=on_info,
                                   exclude=exclude, ceiling=ceiling)
        if state.is_terminal():
            raise ValueError("the game is over")
        self._plan = {}
        _, scale = get_evaluator(state.game.name, self.eval_name)
        ceiling = own_ceiling(self, time_limit, max_depth, nodes, ceiling)
        time_limit = self.time_limit if time_limit is None else time_limit
        if time_limit is not None and math.isinf(time_limit):
            time_limit = None
        max_depth = self.max_depth if max_depth is None else max_depth
        start = time.perf_counter()
        actions, result, done = self._root_actions(state, exclude, start)
        if done:
            return result
        ctx = self._context(kernel, state)
        if hasattr(ctx, "set_history"):  # the game's earlier positions (Gygès: the repetition rule)
            ctx.set_history(state)
        if state.num_players > 2:  # paranoid: the searching seat against the others
            ctx.new_search(cast(Any, state).s, state.current_player())
        else:
            ctx.new_search(cast(Any, state).s)  # a kernel state: its array (read only)
        ctl = ctx.ctl
        ctl[kernel.NODE_LIMIT] = 0 if nodes is None else max(1, int(nodes))
        flags = ctx.flags
        finished = threading.Event()
        deadline = None if time_limit is None else start + time_limit
        hard = None if ceiling is None else start + ceiling
        watcher = None
        if deadline is not None or stop is not None or hard is not None:
            watcher = threading.Thread(target=_watch, args=(flags, kernel, deadline, stop, finished, hard), daemon=True)
            watcher.start()
        order = np.array(actions, dtype=np.int32)
        out = np.zeros(len(actions), dtype=np.float64)
        helpers = self._start_helpers(kernel, state, actions, max_depth) if self.threads > 1 else []
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
            finished.set()
            for helper, _ in helpers:
                helper.flags[kernel.STOP] = 1
            for _, th in helpers:
                th.join()
            if watcher is not None:
                watcher.join()
        self.nodes = int(ctl[kernel.NODES]) + sum(int(h.ctl[kernel.NODES]) for h, _ in helpers)
        result["pv"] = ctx.pv(result["action"])
        if result["depth"] >= 1 and result["pv"][0] == result["action"]:
            self._plan = self._turn_plan(state, result["pv"])
        return self._finish(result, start, scale)


def _helper_search(ctx: Any, kernel: ModuleType, order: np.ndarray, first: int, max_depth: int) -> None:
    """A lazy-SMP helper: iterative deepening from depth ``first`` into the shared table until stopped."""
    out = np.zeros(len(order), dtype=np.float64)
    for depth in range(first, max_depth + 1):
        if ctx.search_root(order, depth, out) < len(order) or ctx.flags[kernel.STOP]:
            return
        if np.max(np.abs(out)) >= WIN - 1000:
            return  # proven: nothing deeper to learn
        ranks = np.argsort(-out, kind="stable")
        order, out = order[ranks].copy(), out[ranks].copy()


def _watch(flags: np.ndarray, kernel: ModuleType, deadline: float | None, stop: threading.Event | None,
           done: threading.Event, hard: float | None = None) -> None:
    """Set the kernel's flags when the deadline passes, or the hard deadline (``cap``: STOP, which ends even a
    depth up to ``min``), or ``stop`` is set (checks every 2 ms)."""
    while not done.wait(0.002):
        now = time.perf_counter()
        if (stop is not None and stop.is_set()) or (hard is not None and now >= hard):
            flags[kernel.STOP] = 1
            return
        if deadline is not None and not flags[kernel.TIME_UP] and now >= deadline:
            flags[kernel.TIME_UP] = 1
            if stop is None and hard is None:
                return
