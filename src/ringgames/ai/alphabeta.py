"""Alpha-beta search: iterative deepening, transposition table, move ordering, time budget.

Written against the game protocol only. Values are from the point of view of
the player to move at each node; a child is negated only when the player to
move *changes*, so multi-decision turns (a YINSH move then its row and ring,
RINGS conversions) are searched correctly. Depth counts turns (a change of
player), and consecutive decisions of the same player are searched without
using depth (at most ``extend`` of them below the horizon).

With more than two players the search is *paranoid*: the root player against
a coalition of all the others.

Transposition keys: ``state.hash_key()`` (the protocol's position key: a
hash of ``state.position()`` unless the game provides a faster Zobrist key),
plus the searching player with more than two players.

Actions searched: ``state.distinct_actions()`` where the game provides it (one
action per distinct successor position, e.g. Gygès, where a replace by an
identical piece often gives the same position as another move), else
``state.legal_actions()``. Both give the same values; the first fewer nodes.

>>> from ringgames import load_game
>>> s = load_game("yinsh").new_initial_state()
>>> a = AlphaBetaAgent(depth=1, seed=0).choose(s)
>>> a in s.legal_actions()
True
"""

from __future__ import annotations

import math
import random
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Collection
from typing import Any

from ..protocol import TERMINAL, State
from .book import book_move
from .evaluation import get_evaluator, win_probability
from .tactics import safe_actions, winning_action

__all__ = ["AlphaBetaAgent", "WIN", "DEFAULT_DEPTH", "MAX_DEPTH", "MAX_UNTIMED_DEPTH"]

#: Value of a won game (minus the number of decisions to reach it).
WIN = 1_000_000.0
#: Depth (turns) searched when neither ``depth`` nor ``time`` is given.
DEFAULT_DEPTH = 3
#: The deepest search allowed; with a time budget and no ``depth``, iterative deepening goes up to it.
MAX_DEPTH = 64
#: The deepest search allowed without a time budget (deeper ones would run for hours on YINSH or Gygès).
MAX_UNTIMED_DEPTH = 8
_EXACT, _LOWER, _UPPER = 0, 1, 2


class _Timeout(Exception):
    pass


def _no_evaluator(state: State) -> list[float]:
    raise RuntimeError("the evaluator is set by analyse()")


def own_ceiling(agent: AlphaBetaAgent, time_limit: float | None, max_depth: int | None, nodes: int | None,
                ceiling: float | None) -> float | None:
    """The hard limit of one search: ``ceiling`` where given, else the agent's ``cap`` when the search runs on
    the agent's own budget (no time, depth or node limit given: a level's decision, not an analysis or a
    ``go depth``)."""
    if ceiling is not None:
        return None if math.isinf(ceiling) else ceiling
    if time_limit is None and max_depth is None and nodes is None:
        return agent.cap
    return None


class AlphaBetaAgent:
    """Iterative-deepening alpha-beta (negamax over player changes).

    Options: ``depth`` (max turns, 1 to :data:`MAX_DEPTH`; default :data:`DEFAULT_DEPTH` without
    a time budget, :data:`MAX_DEPTH` with one), ``time`` (seconds per decision;
    default none: depth only; a ``depth`` above :data:`MAX_UNTIMED_DEPTH` needs one), ``extend`` (same-player decisions searched below
    the horizon, default 4), ``tt`` (max table entries, default 400000),
    ``seed`` (random tie-break of equal moves), ``safe`` (1: leave out root actions that
    hand the next player a win within their turn, as greedy does; default 1), ``min``
    (depths up to this one are always completed, even past the time budget; default 1), ``cap`` (a hard
    ceiling in seconds on a decision searched on the agent's own budget — with ``search:`` a turn's later decisions
    share it —: the search stops there even before ``min`` is complete, with the best action of the depth reached;
    a level's ``scale`` below 1 does not shorten it, since it stands for a reply time; default 0: none), ``pvs``
    (1: principal variation search — after the first action of a node, the others are searched
    with a null window around alpha first and searched again only if they may be better; same
    values, fewer nodes; default 0 so that ``baseline:N`` keeps today's search), ``eval`` (the name of one of
    the game's other evaluations, e.g. ``eval=tuned``: YINSH's weights fitted on real games; default: the
    game's own evaluation), ``book`` (1: where the position is in the game's opening book — Gygès's setup,
    :mod:`ringgames.ai.book` — play the book's action without searching; default 0).
    With ``min`` a level keeps its least search depth on any machine and under
    scaled budgets, so that a level's strength does not collapse to the level below.
    """

    #: the spec's kind, in error messages
    kind = "alphabeta"

    def __init__(self, depth: int | None = None, time: float | None = None, extend: int = 4, tt: int = 400_000,
                 seed: int | None = None, noise: float = 0.0, safe: int = 1, min: int = 1,  # noqa: A002
                 pvs: int = 0, eval: str = "", book: int = 0, cap: float = 0):  # noqa: A002
        kind = self.kind
        if isinstance(cap, bool) or not isinstance(cap, (int, float)) or not (cap == 0 or 0 < cap < math.inf):
            raise ValueError(f"{kind} cap must be a positive number of seconds (the hard ceiling of a decision) or 0 "
                             f"(none), not {cap!r}")
        self.cap: float | None = float(cap) if cap else None
        if isinstance(book, bool) or not isinstance(book, int) or book not in (0, 1):
            raise ValueError(f"{kind} book must be 0 or 1 (1: play the game's opening book where it has the position), "
                             f"not {book!r}")
        self.book = bool(book)
        if not isinstance(eval, str):
            raise ValueError(f"{kind} eval must be the name of an evaluation (such as tuned), not {eval!r}")
        self.eval_name = eval
        self.safe = bool(safe)
        if isinstance(min, bool) or not isinstance(min, int) or not 1 <= min <= MAX_DEPTH:
            raise ValueError(f"{kind} min must be a whole number of turns from 1 to {MAX_DEPTH} (the depths always "
                             f"completed), not {min!r}")
        self.min_depth = min
        self.pvs = bool(pvs)
        self._may_stop = False
        try:
            self.time_limit = None if time in (None, 0) else float(time)
        except (TypeError, ValueError):
            raise ValueError(f"{kind} time must be a positive number of seconds, not {time!r}") from None
        if self.time_limit is not None and not self.time_limit > 0:
            raise ValueError(f"{kind} time must be a positive number of seconds, not {time!r}")
        if depth is None:
            depth = MAX_DEPTH if self.time_limit is not None else DEFAULT_DEPTH
        if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= MAX_DEPTH:
            raise ValueError(f"{kind} depth must be a whole number of turns from 1 to {MAX_DEPTH}, not {depth!r}")
        if self.time_limit is None and depth > MAX_UNTIMED_DEPTH:
            raise ValueError(
                f"{kind} depth={depth} without a time budget would not finish: give time=SECONDS too "
                f"(iterative deepening stops at the deadline) or a depth of at most {MAX_UNTIMED_DEPTH}")
        self.max_depth = depth
        self.extend = int(extend)
        self.tt_size = int(tt)
        self.rng = random.Random(seed)
        self.noise = float(noise)
        self.tt: dict = {}
        self.history: defaultdict[int, int] = defaultdict(int)  # action -> history score
        self.name = "alphabeta"
        self.last: dict = {}
        self._eval: Callable[[State], list[float]] = _no_evaluator  # analyse() sets the game's
        self.deadline: float | None = None
        self.hard_deadline: float | None = None  # cap: ends the search even before min is complete
        self.node_limit: int | None = None
        self._stop: threading.Event | None = None
        self._limited = False

    # -- helpers ---------------------------------------------------------
    @staticmethod
    def _actions(state: State) -> list[int]:
        """The actions to search: one per distinct successor where the game says which."""
        distinct = getattr(state, "distinct_actions", None)
        return distinct() if distinct is not None else state.legal_actions()

    def _key(self, state: State):
        hk = getattr(state, "hash_key", None)  # the protocol's key (games may make it fast)
        k = hk() if hk is not None else hash(state.position())
        return (k, self._root) if self._multi else k

    def _static(self, state: State, me: int) -> float:
        v = self._eval(state)
        if self._multi:
            root = self._root
            x = v[root] - max(v[p] for p in range(len(v)) if p != root)
            return x if me == root else -x
        return v[me]

    def _side(self, p: int) -> int:
        return p if not self._multi else (0 if p == self._root else 1)

    # -- search ----------------------------------------------------------
    def _tick(self) -> None:
        self.nodes += 1
        if self.nodes & 63 == 0 and self._limited:
            self._check_limits()

    def _check_limits(self) -> None:
        """Every 64 nodes: a stop request and the ``cap`` end the search at once; the time and node limits
        only once the depths up to ``min`` are complete."""
        if self._stop is not None and self._stop.is_set():
            raise _Timeout
        if self.hard_deadline is not None and time.perf_counter() > self.hard_deadline:
            raise _Timeout
        if not self._may_stop:
            return
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise _Timeout
        if self.node_limit is not None and self.nodes >= self.node_limit:
            raise _Timeout

    def _search(self, state: State, depth: int, alpha: float, beta: float, ply: int, ext: int,
                midturn: bool = False) -> float:
        """Value for the player to move. Below the horizon (``depth <= 0``) only a turn in
        progress (``midturn``: the last decision was by the same player) is searched on,
        for at most ``ext`` more decisions; otherwise the position is evaluated."""
        self._tick()
        me = state.current_player()
        if depth <= 0 and (not midturn or ext <= 0):
            return self._static(state, me)
        key = self._key(state)
        entry = self.tt.get(key)
        best_move = None
        if entry is not None:
            edepth, evalue, eflag, best_move = entry
            if edepth >= depth:
                if eflag == _EXACT:
                    return evalue
                if eflag == _LOWER and evalue >= beta:
                    return evalue
                if eflag == _UPPER and evalue <= alpha:
                    return evalue
        return self._children(state, self._actions(state), depth, alpha, beta, ply, ext, me, key, best_move,
                              horizon=depth <= 0)

    def _order(self, actions, best_move):
        # highest history score first, ties in the given order (sorted is stable, also reversed);
        # the defaultdict's own __getitem__ as the key keeps the sort out of Python code
        acts = sorted(actions, key=self.history.__getitem__, reverse=True)
        if best_move is not None and best_move in actions:
            acts.remove(best_move)
            acts.insert(0, best_move)
        return acts

    def _child(self, state: State, depth: int, alpha: float, beta: float, ply: int, later: bool) -> float:
        """Value of a child where the other side moves (negated); with ``pvs``, an action after the
        first is tried with a null window (alpha, alpha + 1) and searched again in full only if it
        may be better than alpha (values are not integers, so anything above alpha is searched again)."""
        if self.pvs and later and beta - alpha > 1:
            v = -self._search(state, depth, -alpha - 1, -alpha, ply, self.extend)
            if v <= alpha or v >= beta:
                return v
        return -self._search(state, depth, -beta, -alpha, ply, self.extend)

    def _children(self, state, actions, depth, alpha, beta, ply, ext, me, key, best_move, horizon=False):
        alpha0 = alpha
        best = -float("inf")
        best_a = None
        side = self._side(me)
        for a in self._order(actions, best_move):
            state.apply_action(a)
            try:
                q = state.current_player()
                if q == TERMINAL:
                    r = state.returns()
                    if self._multi:
                        root = self._root
                        v0 = r[root] - max(r[p] for p in range(len(r)) if p != root)
                        val = (1 if v0 > 0 else -1 if v0 < 0 else 0) * (WIN - ply - 1)
                        v = val if me == root else -val
                    else:
                        v = (1 if r[me] > 0 else -1 if r[me] < 0 else 0) * (WIN - ply - 1)
                else:
                    if self._side(q) == side:
                        if horizon:
                            v = self._search(state, 0, alpha, beta, ply + 1, ext - 1, midturn=True)
                        else:
                            v = self._search(state, depth, alpha, beta, ply + 1, self.extend, midturn=True)
                    elif horizon or depth == 1:  # a leaf: what _search(depth 0) would return
                        self._tick()
                        v = -self._static(state, q)
                    else:
                        v = self._child(state, depth - 1, alpha, beta, ply + 1, best_a is not None)
            finally:
                state.undo_action()
            if v > best:
                best, best_a = v, a
            if v > alpha:
                alpha = v
            if alpha >= beta:
                self.history[a] += 1 << min(depth, 20) if depth > 0 else 1
                break
        flag = _EXACT if alpha0 < best < beta else (_LOWER if best >= beta else _UPPER)
        if len(self.tt) >= self.tt_size:
            self.tt.clear()
        self.tt[key] = (depth if not horizon else 0, best, flag, best_a)
        return best

    # -- root ------------------------------------------------------------
    def analyse(self, state: State, time_limit: float | None = None, max_depth: int | None = None, *,
                nodes: int | None = None, stop: threading.Event | None = None,
                on_info: Callable[[dict], None] | None = None, exclude: Collection[int] = (),
                ceiling: float | None = None) -> dict:
        """Search ``state``; returns ``{"action", "value", "depth", "pv", "nodes", "win_probability"}``.

        ``time_limit`` (seconds; ``math.inf``: none) and ``max_depth`` replace the agent's own
        budget (and with it the agent's ``cap``); ``ceiling``: a hard limit in seconds that ends the search even
        before the depths up to ``min`` are complete (default: the agent's ``cap`` when it searches on its own
        budget); ``nodes`` stops the search after about that many nodes (once the depths up to
        ``min`` are complete, like the time limit); setting ``stop`` (a :class:`threading.Event`,
        e.g. from another thread) ends the search within 64 nodes with the best action so far.
        ``on_info`` is called after each completed depth with ``{"depth", "value", "nodes",
        "seconds", "pv"}`` (the engine protocol's ``info`` lines). ``exclude``: root actions left out
        (the best of the others, with its exact value: the analysis board's alternatives, "multi-PV").
        """
        if state.is_terminal():
            raise ValueError("the game is over")
        self._eval, scale = get_evaluator(state.game.name, self.eval_name)
        self._multi = state.num_players > 2
        self._root = state.current_player()
        ceiling = own_ceiling(self, time_limit, max_depth, nodes, ceiling)
        time_limit = self.time_limit if time_limit is None else time_limit
        if time_limit is not None and math.isinf(time_limit):
            time_limit = None
        max_depth = self.max_depth if max_depth is None else max_depth
        start = time.perf_counter()
        self.deadline = None if time_limit is None else start + time_limit
        self.hard_deadline = None if ceiling is None else start + ceiling
        self.node_limit = None if nodes is None else int(nodes)
        self._stop = stop
        self._limited = (self.deadline is not None or self.node_limit is not None or stop is not None
                         or self.hard_deadline is not None)
        self.nodes = 0
        me = self._root
        actions, result, done = self._root_actions(state, exclude, start)
        if done:
            return result
        scores: dict[int, float] = {}
        order = actions
        for depth in range(1, max_depth + 1):
            self._may_stop = depth > self.min_depth  # a partial depth 1 could pick any move
            alpha, beta = -float("inf"), float("inf")
            iter_scores = {}
            best_a, best_v = None, -float("inf")
            try:
                for a in order:
                    state.apply_action(a)
                    try:
                        if state.is_terminal():
                            r = state.returns()
                            if self._multi:
                                v0 = r[me] - max(r[p] for p in range(len(r)) if p != me)
                            else:
                                v0 = r[me]
                            v = (1 if v0 > 0 else -1 if v0 < 0 else 0) * (WIN - 1)
                        elif self._side(state.current_player()) == self._side(me):
                            v = self._search(state, depth, alpha, beta, 1, self.extend, midturn=True)
                        else:
                            v = self._child(state, depth - 1, alpha, beta, 1, best_a is not None)
                    finally:
                        state.undo_action()
                    if self.noise:
                        v += self.rng.gauss(0.0, self.noise)
                    iter_scores[a] = v
                    if v > best_v:
                        best_v, best_a = v, a
                    if v > alpha:
                        alpha = v
            except _Timeout:
                if best_a is not None:  # root moves searched so far in this iteration (previous best first)
                    result.update(action=best_a, value=best_v)
                break
            scores = iter_scores
            order = sorted(order, key=lambda a: -scores.get(a, -float("inf")))
            result.update(action=best_a, value=best_v, depth=depth)
            if on_info is not None and best_a is not None:
                on_info({"depth": depth, "value": best_v, "nodes": self.nodes,
                         "seconds": time.perf_counter() - start, "pv": self._pv(state, best_a)})
            if abs(best_v) >= WIN - 1000:
                break  # proven
            if stop is not None and stop.is_set():
                break
            if self.node_limit is not None and depth >= self.min_depth and self.nodes >= self.node_limit:
                break
            if (time_limit is not None and depth >= self.min_depth
                    and time.perf_counter() - start > 0.45 * time_limit):
                break  # the next iteration would not finish
        result["pv"] = self._pv(state, result["action"])
        return self._finish(result, start, scale)

    def _finish(self, result: dict[str, Any], start: float, scale: float) -> dict[str, Any]:
        """The result with its nodes, seconds and win probability (``scale``: the evaluation's), kept as ``last``."""
        result["nodes"] = self.nodes
        result["seconds"] = time.perf_counter() - start
        v = result["value"]
        result["win_probability"] = 1.0 if v >= WIN - 1000 else 0.0 if v <= -WIN + 1000 else win_probability(v, scale)
        self.last = result
        return result

    def _root_actions(self, state: State, exclude: Collection[int], start: float) -> tuple[list[int], dict[str, Any], bool]:
        """The root actions to search (shuffled) and the result so far; ``done``: the result needs no search (one
        action, a book action, a win within the turn, or one action that does not hand the opponent a win)."""
        actions = self._actions(state)
        if exclude:
            actions = [a for a in actions if a not in set(exclude)]
            if not actions:
                raise ValueError("every legal action is excluded")
        result: dict[str, Any] = {"action": actions[0], "value": 0.0, "depth": 0, "pv": [actions[0]]}
        if len(actions) == 1:
            result.update(nodes=0, win_probability=0.5, seconds=0.0)
            return actions, result, True
        if self.book:
            entry = book_move(state)
            if entry is not None and entry[0] not in exclude:
                a, v, d = entry
                result.update(action=a, value=v, pv=[a], depth=d, book=True)
                self.nodes = 0  # no search ran
                return actions, self._finish(result, start, get_evaluator(state.game.name, self.eval_name)[1]), True
        win = winning_action(state)
        if win is not None and win not in exclude:
            result.update(action=win, value=WIN - 1, pv=[win], depth=1, nodes=0, win_probability=1.0,
                          seconds=time.perf_counter() - start)
            self.last = result
            return actions, result, True
        if self.safe:
            actions = safe_actions(state, actions)
            if len(actions) == 1:
                result.update(action=actions[0], pv=actions[:1], nodes=0, win_probability=0.5,
                              seconds=time.perf_counter() - start)
                self.last = result
                return actions, result, True
        self.rng.shuffle(actions)
        # the answer if a stop or the cap comes before any root action is searched: a safe one, not the first legal
        result.update(action=actions[0], pv=actions[:1])
        return actions, result, False

    def _pv(self, state: State, first: int, limit: int = 12) -> list[int]:
        pv = [first]
        state.apply_action(first)
        n = 1
        try:
            while n < limit and not state.is_terminal():
                entry = self.tt.get(self._key(state))
                if entry is None or entry[3] is None or entry[3] not in state.legal_actions():
                    break
                pv.append(entry[3])
                state.apply_action(entry[3])
                n += 1
        finally:
            for _ in range(n):
                state.undo_action()
        return pv

    def choose(self, state: State) -> int:
        work = state.clone()
        return self.analyse(work)["action"]
