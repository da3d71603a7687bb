"""Monte Carlo tree search (UCT) for 2–6 players, with per-player rewards.

Every node keeps, for every seat, the sum of that seat's rewards (``returns()``
mapped to 0..1); a node's children are compared from the point of view of the
player to move *at that node*, so consecutive decisions by the same player
and any number of players need no special case.

Budget: ``iterations`` and/or ``time`` (seconds per decision). ``seed`` makes
an iteration-bounded search repeatable. The tree is reused between decisions
when the new state continues the history of the previous root.

Leaves are valued by a random playout (``rollout``: its length limit; ``-1`` =
to the end, ``0`` = no playout) and, when the playout stops before the end, by
the game's evaluation function mapped to a reward. A playout to the end runs
inside the game's compiled kernel when the state offers ``random_playouts``
(an optional fast path of the three games: one whole random game per call,
uniform over the legal actions, as the protocol loop would play).

Before searching, the agent plays a win within its turn when one exists
(``tactics.winning_action``) and, with ``safe=1`` (default), leaves out the root
actions that hand the next player an immediate win.

>>> from ringgames import load_game
>>> s = load_game("yinsh").new_initial_state()
>>> m = MCTSAgent(iterations=50, seed=1)
>>> m.choose(s) in s.legal_actions()
True
"""

from __future__ import annotations

import functools
import inspect
import math
import random
import threading
import time
from collections.abc import Callable

from ..protocol import Game, State
from .evaluation import get_evaluator, reward
from .tactics import safe_actions, winning_action

__all__ = ["MCTSAgent"]


class _Node:
    __slots__ = ("player", "untried", "children", "n", "w", "terminal")

    def __init__(self, state: State, rng: random.Random, nplayers: int):
        self.children: dict[int, _Node] = {}
        self.n = 0
        self.w = [0.0] * nplayers
        if state.is_terminal():
            self.terminal: list[float] | None = [(r + 1.0) / 2.0 for r in state.returns()]
            self.player = -1
            self.untried: list[int] = []
        else:
            self.terminal = None
            self.player = state.current_player()
            acts = state.legal_actions()
            rng.shuffle(acts)
            self.untried = acts


class MCTSAgent:
    """UCT. Options: ``iterations`` (default 1000 when no time is given), ``time``,
    ``c`` (exploration, default 1.0 on 0..1 rewards), ``rollout`` (playout length
    limit, default -1 = to the end), ``safe`` (1/0), ``reuse`` (1/0), ``seed``."""

    def __init__(self, iterations: int | None = None, time: float | None = None, c: float = 1.0,
                 rollout: int = -1, safe: int = 1, reuse: int = 1, seed: int | None = None):
        for name, v in (("iterations", iterations), ("time", time)):  # 0 or none: no such budget
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v < math.inf):
                raise ValueError(f"mcts {name} must be a number of at least 0 (0: none), not {str(v)[:40]!r}")
        self.iterations = None if iterations in (None, 0) else int(iterations)
        self.time_limit = None if time in (None, 0) else float(time)
        if self.iterations is None and self.time_limit is None:
            self.iterations = 1000
        self.c = float(c)
        self.rollout = int(rollout)
        self.safe = bool(safe)
        self.reuse = bool(reuse)
        self.rng = random.Random(seed)
        self.name = "mcts"
        self.root: _Node | None = None
        self.root_history: list[int] | None = None
        self.root_key: tuple[Game, str | None] | None = None
        self.last: dict = {}
        self._visits: dict[int, int] = {}

    # -- tree reuse --------------------------------------------------------
    def _find_root(self, state: State) -> _Node | None:
        if not self.reuse or self.root is None or self.root_history is None:
            return None
        if self.root_key != (state.game, state._start_position() if hasattr(state, "_start_position") else None):
            return None
        hist = state.history
        old = self.root_history
        if len(hist) < len(old) or hist[: len(old)] != old:
            return None
        node = self.root
        for a in hist[len(old):]:
            child = node.children.get(a)
            if child is None:
                return None
            node = child
        if node.terminal is not None or node.player != state.current_player():
            return None
        return node

    # -- search --------------------------------------------------------------
    def search(self, state: State, iterations: float | None = None, time_limit: float | None = None, *,
               stop: threading.Event | None = None, on_info: Callable[[dict], None] | None = None) -> _Node:
        """Run iterations from ``state`` (``iterations`` and ``time_limit`` replace the agent's own
        budget; ``math.inf`` means none); ``stop`` ends the search after the current iteration;
        ``on_info`` gets a progress report (see :meth:`report`) about once a second."""
        n = state.num_players
        t0 = time.perf_counter()
        last_info = t0
        evaluate, scale = get_evaluator(state.game.name)
        root = self._find_root(state) or _Node(state, self.rng, n)
        self.reused = root.n
        allowed = None
        if self.safe and root.terminal is None:
            acts = state.legal_actions()
            safe = safe_actions(state, acts)
            if len(safe) < len(acts):
                allowed = set(safe)
                root.untried = [a for a in root.untried if a in allowed]
        iterations = self.iterations if iterations is None else iterations
        time_limit = self.time_limit if time_limit is None else time_limit
        deadline = None if time_limit is None or math.isinf(time_limit) else time.perf_counter() + time_limit
        work = state.clone()
        rng = self.rng
        c = self.c
        log = math.log
        sqrt = math.sqrt
        rollout = self.rollout
        kernel_playout = getattr(work, "random_playouts", None) if rollout < 0 else None
        if kernel_playout is not None and "sampler" in inspect.signature(kernel_playout).parameters:
            kernel_playout = functools.partial(kernel_playout, sampler="fast")  # Gygès: the faster sampler
        done = 0
        while True:
            if iterations is not None and done >= iterations:
                break
            if deadline is not None and time.perf_counter() >= deadline:
                break
            if stop is not None and stop.is_set():
                break
            if on_info is not None and done & 255 == 255 and time.perf_counter() - last_info >= 1.0:
                last_info = time.perf_counter()
                self.iterations_done = done
                progress = self.report(root, state.current_player(), allowed, last_info - t0)
                if progress is not None:
                    on_info(progress)
            done += 1
            node = root
            path = [root]
            applied = 0
            while True:
                if node.terminal is not None:
                    break
                if node.untried:
                    a = node.untried.pop()
                    work.apply_action(a)
                    applied += 1
                    child = _Node(work, rng, n)
                    node.children[a] = child
                    path.append(child)
                    node = child
                    break
                if not node.children:
                    break
                me = node.player
                logn = log(node.n + 1)
                best = -1.0
                best_a = None
                for a, ch in node.children.items():
                    if allowed is not None and node is root and a not in allowed:
                        continue
                    u = ch.w[me] / ch.n + c * sqrt(logn / ch.n)
                    if u > best:
                        best, best_a = u, a
                if best_a is None:  # no allowed child (a reused tree whose root lost them): value this node
                    break
                work.apply_action(best_a)
                applied += 1
                node = node.children[best_a]
                path.append(node)
            if node.terminal is not None:
                r = node.terminal
            elif kernel_playout is not None and not work.is_terminal():
                r = [(x + 1.0) / 2.0 for x in kernel_playout(1, seed=rng.getrandbits(31))["returns"][0].tolist()]
            else:
                steps = 0
                while not work.is_terminal() and steps != rollout:
                    acts = work.legal_actions()
                    work.apply_action(acts[int(rng.random() * len(acts))])
                    steps += 1
                if work.is_terminal():
                    r = [(x + 1.0) / 2.0 for x in work.returns()]
                else:
                    v = evaluate(work)
                    if n == 2:
                        r = [(reward(x, scale) + 1.0) / 2.0 for x in v]
                    else:
                        r = [(reward(x - max(v[q] for q in range(n) if q != p), scale) + 1.0) / 2.0 for p, x in enumerate(v)]
                applied += steps
            for _ in range(applied):
                work.undo_action()
            for nd in path:
                nd.n += 1
                w = nd.w
                for p in range(n):
                    w[p] += r[p]
        self.iterations_done = done
        self.root = root
        self.root_history = list(state.history)
        self.root_key = (state.game, state._start_position() if hasattr(state, "_start_position") else None)
        self._allowed = allowed
        return root

    def report(self, root: _Node, me: int, allowed: set | None, seconds: float) -> dict | None:
        """The most visited root action and its line so far: ``{"action", "value", "pv",
        "iterations", "visits", "seconds"}`` (None before any root child was expanded)."""
        kids = [(a, ch) for a, ch in root.children.items() if allowed is None or a in allowed]
        if not kids:
            return None
        a, ch = max(kids, key=lambda t: (t[1].n, t[1].w[me] / t[1].n))
        pv = [a]
        node = ch
        while node.children:
            b, node = max(node.children.items(), key=lambda t: t[1].n)
            if node.n < 2:
                break
            pv.append(b)
        q = ch.w[me] / ch.n
        return {"action": a, "value": q, "win_probability": q, "pv": pv, "iterations": self.iterations_done,
                "visits": ch.n, "seconds": seconds}

    def analyse(self, state: State, time_limit: float | None = None, iterations: float | None = None, *,
                stop: threading.Event | None = None, on_info: Callable[[dict], None] | None = None) -> dict:
        """Search; returns ``{"action", "value", "win_probability", "pv", "iterations", "visits"}``.

        ``stop`` and ``on_info``: see :meth:`search` (the engine protocol's ``stop`` and ``info``)."""
        if state.is_terminal():
            raise ValueError("the game is over")
        t0 = time.perf_counter()
        me = state.current_player()
        win = winning_action(state)
        if win is not None:
            self._visits = {win: 1}
            self.last = {"action": win, "value": 1.0, "win_probability": 1.0, "pv": [win], "iterations": 0,
                         "visits": 0, "seconds": time.perf_counter() - t0}
            return self.last
        acts = state.legal_actions()
        if len(acts) == 1:
            self._visits = {acts[0]: 1}
            self.last = {"action": acts[0], "value": 0.5, "win_probability": 0.5, "pv": acts[:1], "iterations": 0,
                         "visits": 0, "seconds": time.perf_counter() - t0}
            return self.last
        root = self.search(state, iterations, time_limit, stop=stop, on_info=on_info)
        allowed = self._allowed
        rep = self.report(root, me, allowed, time.perf_counter() - t0)
        if rep is None:
            a = (sorted(allowed) if allowed else acts)[0]
            self._visits = {a: 1}
            self.last = {"action": a, "value": 0.5, "win_probability": 0.5, "pv": [a], "iterations": self.iterations_done,
                         "visits": 0, "seconds": time.perf_counter() - t0}
            return self.last
        self._visits = {b: nd.n for b, nd in root.children.items() if allowed is None or b in allowed}
        rep["reused"] = self.reused
        self.last = rep
        return self.last

    def choose(self, state: State) -> int:
        return self.analyse(state)["action"]

    def root_visits(self) -> dict[int, int]:
        """The search policy of the last decision (:meth:`choose` / :meth:`analyse`): visit counts
        of the root's children by action (the actions left out as unsafe are not in it).

        A decision taken without a search (a win within the turn, a single legal action) gives
        ``{action: 1}``; before any decision, ``{}``.

        >>> from ringgames import load_game
        >>> s = load_game("yinsh").new_initial_state()
        >>> m = MCTSAgent(iterations=40, seed=1)
        >>> a = m.choose(s)
        >>> v = m.root_visits()
        >>> sum(v.values()), v[a] == max(v.values())
        (40, True)
        """
        return dict(self._visits)
