"""Compiled MCTS (UCT): the search tree in numba, over a game's rules-kernel array (agent spec ``uct:``).

The search of :class:`~ringgames.ai.mcts.MCTSAgent` with leaf evaluation (``rollout=0``, what the MCTS
levels play), run as machine code: the tree is a set of preallocated arrays (one slot per node: its action,
visits, the sum of each seat's rewards, its first child and how many), an iteration copies the root's kernel
array and plays down the tree on it, and the evaluation is the game's compiled one (:mod:`.rings`,
:mod:`.yinsh`; the values of :mod:`ringgames.ai.evaluation`). Rewards are the Python agent's: per seat in 0..1,
a finished game's ``returns()`` mapped from -1..1, otherwise ``tanh(x / (2 · scale))`` mapped the same way,
where ``x`` is, with two players, the seat's evaluation and, with more, the seat's value less the best other
seat's (so 2–6 players need no special case: each node's children are compared for the seat to move there).

How the tree grows: a node's children are all made at once (its legal actions in a random order), when the node
is reached for the ``expand``-th time (default 2: first reached, it is a leaf and evaluated); children never
visited are tried first, in that order, then UCT (``w/n + c·sqrt(ln N / n)``) picks among them. When the
tree's ``nodes`` slots are used up it stops growing and later iterations evaluate the leaves they reach.

RINGS has two more options: ``convert=all`` plays a seat's conversions all at once after its placement or pass
(:func:`convert_all`), so that every node below the root is a placement or a pass, and the agent plays its own
conversions so without a search; ``quiesce=1`` values a leaf after the conversions pending there (:func:`settle`).

Python keeps the root (:class:`CompiledMCTSAgent`): the tactics (a win within the turn, leaving out actions
that hand the next player a win), the time, a turn's later decisions played from the tree (a turn costs one budget:
:meth:`CompiledMCTSAgent.choose`), and the progress reports; the compiled function runs a given number
of iterations without the GIL and is called in chunks of about 10 ms until the budget is spent. Games without a
compiled kernel here (Gygès) are searched by the Python tree.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from typing import Any, cast

import numpy as np

from ...games.rings import kernel as RK
from ...jit import drop_stale_cache, njit
from ...protocol import State
from ..evaluation import get_evaluator
from ..mcts import MCTSAgent
from ..tactics import hands_win, safe_actions, winning_action
from ..turns import TURN_FLOOR, Turn, turn_after, turn_limit, turn_start  # noqa: F401 - TURN_FLOOR: documented here
from . import ops
from . import rings as _rings
from .ops import DRAW, ONGOING

drop_stale_cache(__file__, ops.__file__, _rings.__file__, *ops.KERNEL_FILES)

__all__ = ["CompiledMCTSAgent", "Tree", "GAMES"]

#: Games whose MCTS tree is compiled (the others use the Python tree).
GAMES = frozenset(ops.GAMES)
MAX_PATH = 2048  # the deepest the tree may grow (a longer path evaluates its leaf)
MAX_LEGAL = 512
#: The fewest visits a decision of the rest of a turn needs in the tree to be played from it without a search.
PLAN_VISITS = 50
# ctl entries: slots used, slots in all, visits that expand a node, RINGS conversions played at once (1) or searched
# (0), RINGS leaves valued after their pending conversions (1) or as they are (0)
USED, CAP, EXPAND, CONVERT_ALL, QUIESCE = 0, 1, 2, 3, 4
NUM_CTL = 5
#: Values of the ``convert`` option: RINGS conversions in the tree played all at once, or each a decision.
CONVERT_MODES = ("all", "search")


@njit
def rewards(game, s, n, scale, wts, wtab, buf, out):
    """Each seat's reward in 0..1 into ``out[:n]``; True if the game is over (the rewards are then its returns)."""
    if game == ops.YINSH:
        w = ops.outcome(game, s)
        if w != ONGOING:
            if w == DRAW:
                out[0] = 0.5
                out[1] = 0.5
            else:
                out[w] = 1.0
                out[1 - w] = 0.0
            return True
        r = (math.tanh(ops.evaluate(game, s, 0, wts, wtab, buf) / (2.0 * scale)) + 1.0) / 2.0
        out[0] = r
        out[1] = 1.0 - r
        return False
    if RK.is_over(s):
        m = RK.winners_mask(s)
        k = 0
        for p in range(n):
            if m & (1 << p):
                k += 1
        for p in range(n):
            if k == 0 or k == n:
                out[p] = 0.5
            elif m & (1 << p):
                out[p] = (1.0 / k + 1.0) / 2.0
            else:
                out[p] = (1.0 - 1.0 / (n - k)) / 2.0
        return True
    vals = wtab[0]
    _rings.seat_values(s, wts, vals)
    if n == 2:
        d = (vals[0] - vals[1]) / 2.0
        r = (math.tanh(d / (2.0 * scale)) + 1.0) / 2.0
        out[0] = r
        out[1] = 1.0 - r
        return False
    for p in range(n):
        best = -1e300
        for q in range(n):
            if q != p and vals[q] > best:
                best = vals[q]
        out[p] = (math.tanh((vals[p] - best) / (2.0 * scale)) + 1.0) / 2.0
    return False


@njit
def convert_all(s):
    """RINGS: play every conversion the seat to move has, one circle at a time in the circles' order, until none is
    left (the turn then ends by itself); nothing outside the conversions of a turn. Converting everything possible
    reaches the same position whatever the order (the rules), and a conversion never lowers the mover's influence
    or raises another seat's against a third, so the tree takes it as the seat's choice (``convert=all``)."""
    while not RK.is_over(s) and s[RK.PHASE] != RK.PH_PLACE:
        p = s[RK.MOVER]
        a = RK.END
        for c in range(RK.NC):
            if s[RK.CONV + c] == p:
                a = RK.CONVERT0 + c
                break
        RK.apply_action(s, a)


@njit
def settle(s):
    """RINGS: every seat, in turn order from the one to move, makes the conversions open to it (each circle one
    at a time, in the circles' order, until none is left for that seat), as it could on its next turn whatever it
    places; the turn's phase, mover and passes are left alone. A quiescence over conversions: a leaf is valued
    after the conversions pending there (``quiesce=1``)."""
    n = s[RK.NPLAYERS]
    first = s[RK.MOVER]
    for k in range(n):
        q = (first + k) % n
        if s[RK.ACTIVE + q] == 0:
            continue
        while s[RK.CONV_COUNT + q] > 0:
            for c in range(RK.NC):
                if s[RK.CONV + c] == q:
                    RK.convert(s, c, q)
                    break


@njit
def leaf(game, s, n, scale, wts, wtab, buf, out, ctl):
    """:func:`rewards` of a leaf, after :func:`settle` where the tree quiesces (RINGS, ``quiesce=1``; ``s`` is the
    iteration's scratch copy)."""
    if game == ops.RINGS and ctl[QUIESCE] != 0 and not RK.is_over(s):
        settle(s)
    return rewards(game, s, n, scale, wts, wtab, buf, out)


@njit
def seed(value):
    """Seed the compiled code's random numbers (the order in which a node's children are first tried)."""
    np.random.seed(value)


_STEPS = (7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97, 101, 103, 107, 109, 113)


@njit
def _nth_action(mv, k, node, i):
    """The ``i``-th action of ``node`` to try, of its ``k`` legal ones ``mv[:k]``: a permutation of them picked by the
    node (a start and a step prime to ``k``), so that no order is stored."""
    h = (node * 2654435761 + 12345) & 0x7FFFFFFF
    step = 1
    j = (h >> 5) % 27
    for _ in range(27):
        p = _STEPS[j]
        if k % p != 0:
            step = p
            break
        j = (j + 1) % 27
    return mv[(h % k + i * step) % k]


@njit
def _new_node(child, sib, act, nleg, nnext, vis, w, term, ctl, parent, a):
    """A new child of ``parent`` for action ``a`` (first in its list); -1 if the slots are used up."""
    c = ctl[USED]
    if c >= ctl[CAP]:
        return -1
    ctl[USED] = c + 1
    act[c] = a
    child[c] = -1
    sib[c] = child[parent]
    child[parent] = c
    nleg[c] = 0
    nnext[c] = 0
    vis[c] = 0
    term[c] = 0
    w[c, :] = 0.0
    return c


@njit
def init_root(root_actions, child, sib, act, nleg, nnext, vis, w, term, ctl, mv):
    """A new tree whose root (slot 0) will try the actions ``root_actions`` (in a random order)."""
    ctl[USED] = 1
    child[0] = -1
    sib[0] = -1
    vis[0] = 0
    term[0] = 0
    w[0, :] = 0.0
    k = root_actions.shape[0]
    for i in range(k):
        mv[i] = root_actions[i]
    for i in range(k - 1, 0, -1):
        j = np.random.randint(0, i + 1)
        t = mv[i]
        mv[i] = mv[j]
        mv[j] = t
    nleg[0] = k
    nnext[0] = 0


@njit
def run(game, root_s, n, iterations, c, scale, wts, wtab, buf, child, sib, act, nleg, nnext, vis, w, term, ctl,
        work, path, mv, rew, root_mv):
    """Run ``iterations`` iterations from the root position ``root_s`` (see the module docstring)."""
    for _ in range(iterations):
        work[:] = root_s
        node = 0
        depth = 0
        path[0] = 0
        while True:
            if term[node] != 0:
                leaf(game, work, n, scale, wts, wtab, buf, rew, ctl)
                break
            if node != 0 and (vis[node] + 1 < ctl[EXPAND] or depth >= MAX_PATH - 1):  # a leaf (again)
                if leaf(game, work, n, scale, wts, wtab, buf, rew, ctl):
                    term[node] = 1
                break
            ch = -1
            if node == 0 or nleg[node] == 0 or nnext[node] < nleg[node]:  # an action not tried yet, if any
                if node == 0:
                    k = nleg[0]
                    if nnext[0] < k:
                        ch = _new_node(child, sib, act, nleg, nnext, vis, w, term, ctl, 0, root_mv[nnext[0]])
                else:
                    k = ops.gen_actions(game, work, mv)
                    if k == 0:  # over: a finished game has no actions
                        leaf(game, work, n, scale, wts, wtab, buf, rew, ctl)
                        term[node] = 1
                        break
                    nleg[node] = k
                    if nnext[node] < k:
                        ch = _new_node(child, sib, act, nleg, nnext, vis, w, term, ctl, node,
                                       _nth_action(mv, k, node, nnext[node]))
                if ch >= 0:
                    nnext[node] += 1
                elif child[node] < 0:  # the tree is full and this node has no children: a leaf for good
                    leaf(game, work, n, scale, wts, wtab, buf, rew, ctl)
                    break
            if ch < 0:  # UCT among the children
                me = ops.actor(game, work)
                logn = math.log(vis[node] + 1.0)
                best = -1.0
                i = child[node]
                while i >= 0:
                    u = w[i, me] / vis[i] + c * math.sqrt(logn / vis[i])
                    if u > best:
                        best = u
                        ch = i
                    i = sib[i]
            ops.apply_action(game, work, act[ch])
            if game == ops.RINGS and ctl[CONVERT_ALL] != 0:
                convert_all(work)
            node = ch
            depth += 1
            path[depth] = node
            if vis[node] == 0:  # new: evaluated as a leaf
                if leaf(game, work, n, scale, wts, wtab, buf, rew, ctl):
                    term[node] = 1
                break
        for i in range(depth + 1):
            nd = path[i]
            vis[nd] += 1
            for p in range(n):
                w[nd, p] += rew[p]
    return iterations


class Tree:
    """The arrays of one search's tree: ``nodes`` slots (one per node, 19 + 4 × players bytes), of which the
    search uses, and the system gives it, only what the tree grows into (a node per iteration at most)."""

    def __init__(self, game_name: str, players: int, nodes: int, expand: int, eval_name: str = "",
                 convert: str = "search", quiesce: int = 0):
        self.game, size, _, self.wts, self.wtab = ops.setup(game_name, eval_name)
        self.players = players
        self.scale = float(get_evaluator(game_name, eval_name)[1])
        cap = max(2, int(nodes))
        # np.zeros: the memory is taken from the system as the tree grows into it, not up front
        self.child = np.zeros(cap, dtype=np.int32)
        self.sib = np.zeros(cap, dtype=np.int32)
        self.act = np.zeros(cap, dtype=np.int16)
        self.nleg = np.zeros(cap, dtype=np.int16)
        self.nnext = np.zeros(cap, dtype=np.int16)
        self.vis = np.zeros(cap, dtype=np.int32)
        self.w = np.zeros((cap, players), dtype=np.float32)
        self.term = np.zeros(cap, dtype=np.int8)
        self.ctl = np.zeros(NUM_CTL, dtype=np.int64)
        self.ctl[CAP] = cap
        self.ctl[EXPAND] = expand
        self.ctl[CONVERT_ALL] = 1 if convert == "all" else 0
        self.ctl[QUIESCE] = 1 if quiesce else 0
        self.work = np.zeros(size, dtype=np.int32)
        self.root_s = np.zeros(size, dtype=np.int32)
        self.path = np.zeros(MAX_PATH, dtype=np.int32)
        self.mv = np.zeros(MAX_LEGAL, dtype=np.int32)
        self.root_mv = np.zeros(MAX_LEGAL, dtype=np.int32)
        self.buf = np.zeros(MAX_LEGAL, dtype=np.int32)
        self.rew = np.zeros(max(2, players), dtype=np.float64)

    def reset(self, s: np.ndarray, root_actions: list[int]) -> None:
        self.root_s[:] = s
        init_root(np.array(root_actions, dtype=np.int32), self.child, self.sib, self.act, self.nleg, self.nnext,
                  self.vis, self.w, self.term, self.ctl, self.root_mv)

    def run(self, iterations: int, c: float) -> int:
        return int(run(self.game, self.root_s, self.players, int(iterations), float(c), self.scale, self.wts,
                       self.wtab, self.buf, self.child, self.sib, self.act, self.nleg, self.nnext, self.vis, self.w,
                       self.term, self.ctl, self.work, self.path, self.mv, self.rew, self.root_mv))

    @property
    def used(self) -> int:
        """Slots in use."""
        return int(self.ctl[USED])


class _View:
    """A node of a :class:`Tree`, read as the Python agent's nodes are (``n``, ``w``, ``children``), so that
    :meth:`MCTSAgent.report` and the analysis board read either tree; children never visited are left out."""

    __slots__ = ("tree", "i")

    def __init__(self, tree: Tree, i: int):
        self.tree = tree
        self.i = i

    @property
    def n(self) -> int:
        return int(self.tree.vis[self.i])

    @property
    def w(self) -> list[float]:
        return [float(x) for x in self.tree.w[self.i]]

    @property
    def children(self) -> dict[int, _View]:
        t = self.tree
        out = {}
        c = int(t.child[self.i])
        while c >= 0:
            if t.vis[c] > 0:
                out[int(t.act[c])] = _View(t, c)
            c = int(t.sib[c])
        return out

    def __repr__(self) -> str:
        return f"<uct node {self.i}: n={self.n}>"


class CompiledMCTSAgent(MCTSAgent):
    """MCTS with the tree compiled (``uct:time=5``): see the module docstring. Options: ``iterations``, ``time``,
    ``c`` (default 1.0), ``safe``, ``seed``, ``nodes`` (tree slots, default 4,000,000; see :class:`Tree`), ``expand`` (the visit that
    makes a node's children, default 2), ``eval`` (a named evaluation, e.g. YINSH's ``tuned``), ``convert`` (RINGS:
    ``search``, the default, makes each conversion and ``end`` a decision of the tree; ``all`` plays a seat's
    conversions all at once after its placement or pass, in the tree and at the board, where the agent then plays
    them without a search: see :func:`convert_all`), ``quiesce`` (RINGS: 1 values each leaf after the conversions
    pending there, :func:`settle`; default 0). Gygès, which has no compiled tree here, is searched by the
    Python tree with the same options."""

    kind = "uct"

    def __init__(self, iterations: int | None = None, time: float | None = None, c: float = 1.0, safe: int = 1,
                 seed: int | None = None, nodes: int = 4_000_000, expand: int = 2, eval: str = "",  # noqa: A002
                 convert: str = "search", quiesce: int = 0):
        super().__init__(iterations=iterations, time=time, c=c, rollout=0, safe=safe, reuse=0, seed=seed)
        if convert not in CONVERT_MODES:
            raise ValueError(f"uct convert must be one of {', '.join(CONVERT_MODES)}, not {convert!r}")
        if quiesce not in (0, 1) or isinstance(quiesce, bool):
            raise ValueError(f"uct quiesce must be 0 or 1, not {quiesce!r}")
        self.convert = convert
        self.quiesce = quiesce
        for name, v, low in (("nodes", nodes, 10_000), ("expand", expand, 1)):
            if isinstance(v, bool) or not isinstance(v, int) or v < low:
                raise ValueError(f"uct {name} must be a whole number of at least {low}, not {v!r}")
        if nodes > 50_000_000:
            raise ValueError(f"uct nodes must be at most 50,000,000, not {nodes}")
        if not isinstance(eval, str):
            raise ValueError(f"uct eval must be the name of an evaluation, not {eval!r}")
        self.nodes = nodes
        self.expand = expand
        self.eval_name = eval
        self.name = "uct"
        self.tree_used = 0
        self._root: _View | None = None  # the last search's tree, until its plan is read
        self._plan: dict[str, int] = {}  # position -> the rest of the turn the last search chose
        self._turn: Turn | None = None  # seat, position expected next, start: a turn in progress
        self.planned = 0  # decisions played from a plan (no search)

    def choose(self, state: State) -> int:
        """The action to play. A turn costs one budget, not one per decision (a RINGS placement and its conversions,
        a YINSH move with its row and ring): the decisions of the same seat that follow the first are played from
        its tree where the search settled them (the most visited child, with at least :data:`PLAN_VISITS`
        visits; not when a win within the turn is there or the action would hand the next player a win), else
        searched with what is left of the turn's time (at least :data:`TURN_FLOOR` of it)."""
        if state.game.name not in GAMES or not hasattr(state, "s") or state.is_terminal():
            return super().choose(state)
        me = state.current_player()
        cont, start = turn_start(self._turn, state)
        planned = self._plan.get(state.position()) if cont else None
        if planned is None and self.convert == "all":
            planned = self._conversion(state)
        action = None
        if planned is not None and planned in state.legal_actions() and winning_action(state) in (None, planned) \
                and not (self.safe and hands_win(state, me, planned)):
            action = planned
            self.planned += 1
            self._visits = {planned: 1}
        if action is None:
            action = int(self.analyse(state, turn_limit(self.time_limit, start) if cont else None)["action"])
        self._turn = turn_after(state, action, start)
        if self._turn is None:
            self._plan = {}
        return action

    def _conversion(self, state: State) -> int | None:
        """With ``convert=all``, RINGS: the conversion to play now (the first circle the seat to move can convert),
        None where the decision is not a conversion's."""
        if state.game.name != "rings":
            return None
        acts = [a for a in state.legal_actions() if RK.CONVERT0 <= a < RK.END]
        return acts[0] if acts else None

    def _with_conversions(self, state: State, pv: list[int]) -> list[int]:
        """The line ``pv`` of a ``convert=all`` tree (placements and passes) as the game's decisions: each seat's
        conversions after its placement, as the tree played them."""
        line: list[int] = []
        w = state.clone()
        for a in pv:
            if w.is_terminal() or a not in w.legal_actions():
                break
            line.append(a)
            w.apply_action(a)
            while (c := self._conversion(w)) is not None and not w.is_terminal():
                line.append(c)
                w.apply_action(c)
        return line

    def _turn_plan(self, state: State, root: _View, action: int) -> dict[str, int]:
        """The decisions of the seat to move that follow ``action`` in the tree (see :meth:`choose`), by position."""
        plan: dict[str, int] = {}
        if self.convert == "all" and state.game.name == "rings":  # the tree has no node for the turn's conversions
            return plan
        me = state.current_player()
        w = state.clone()
        w.apply_action(action)
        node = root.children.get(action)
        while node is not None and not w.is_terminal() and w.current_player() == me:
            kids = node.children
            if not kids:
                break
            a, best = max(kids.items(), key=lambda kv: kv[1].n)
            if best.n < PLAN_VISITS:
                break
            plan[w.position()] = a
            w.apply_action(a)
            node = best
        return plan

    def analyse(self, state: State, time_limit: float | None = None, iterations: float | None = None, *,
                stop: threading.Event | None = None, on_info: Callable[[dict], None] | None = None) -> dict:
        self._root = None
        res = super().analyse(state, time_limit, iterations, stop=stop, on_info=on_info)
        res["nodes"] = self.tree_used
        if self.convert == "all" and state.game.name == "rings" and res.get("pv"):
            res["pv"] = self._with_conversions(state, res["pv"])
        root, self._root = self._root, None  # the tree is freed with the root
        self._plan = self._turn_plan(state, root, int(res["action"])) if root is not None else {}
        return res

    def search(self, state: State, iterations: float | None = None, time_limit: float | None = None, *,
               stop: threading.Event | None = None, on_info: Callable[[dict], None] | None = None) -> Any:
        if state.game.name not in GAMES or not hasattr(state, "s"):
            return super().search(state, iterations, time_limit, stop=stop, on_info=on_info)
        t0 = time.perf_counter()
        last_info = t0
        acts = state.legal_actions()
        allowed = None
        if self.safe and not state.is_terminal():
            safe = safe_actions(state, acts)
            if len(safe) < len(acts):
                allowed = set(safe)
                acts = [a for a in acts if a in allowed]
        tree = Tree(state.game.name, state.num_players, self.nodes, self.expand, self.eval_name,
                    self.convert, self.quiesce)  # freed with the root
        seed(self.rng.getrandbits(31))
        tree.reset(cast(Any, state).s, acts)
        iterations = self.iterations if iterations is None else iterations
        time_limit = self.time_limit if time_limit is None else time_limit
        deadline = None if time_limit is None or math.isinf(time_limit) else t0 + time_limit
        root = _View(tree, 0)
        done = 0
        chunk = 32
        while acts:
            todo = chunk
            if iterations is not None and not math.isinf(iterations):
                todo = min(todo, int(iterations) - done)
            if todo <= 0:
                break
            now = time.perf_counter()
            # the first chunk runs whatever the clock says (a search that was late to start still searches)
            if (done and deadline is not None and now >= deadline) or (stop is not None and stop.is_set()):
                break
            done += tree.run(todo, self.c)
            dt = time.perf_counter() - now
            chunk = max(16, min(1 << 16, int(todo * 0.01 / max(dt, 1e-4))))  # about 10 ms a call
            if on_info is not None and time.perf_counter() - last_info >= 1.0:
                last_info = time.perf_counter()
                self.iterations_done = done
                progress = self.report(cast(Any, root), state.current_player(), allowed, last_info - t0)
                if progress is not None:
                    on_info(progress)
        self.iterations_done = done
        self.tree_used = tree.used
        self.reused = 0
        self.root = None  # no tree reuse between decisions
        self._allowed = allowed
        self._root = root
        return root
