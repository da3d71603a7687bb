"""Compiled alpha-beta: the whole search tree in numba, over a game's rules-kernel arrays.

The search is the one of :mod:`ringgames.ai.alphabeta` (negamax over changes of the player
to move; depth counts turns; decisions of the same player — a YINSH turn's row and ring
choices, RINGS conversions — are searched below the horizon without using depth, so a turn
is one unit: the quiescence over forced row and ring decisions), run as machine code:
positions are copies of the kernel array on a stack, one per ply; the transposition table,
history scores and move lists are preallocated NumPy arrays; each game's evaluation
(:mod:`.yinsh`, :mod:`.rings`) gives the values of its Python evaluation in
:mod:`ringgames.ai.evaluation`. On top of the Python search it adds principal variation
search at every node, killer moves, a depth-preferred transposition table with Zobrist keys,
and optional late move reductions (``lmr``). What differs between games is reached through
:mod:`.ops` (a game number picks the kernel's functions). Python keeps the root
(:class:`~ringgames.ai.compiled.agent.CompiledAlphaBetaAgent`): tactics, iterative deepening, time.

The search reads two control arrays: ``ctl`` (int64: nodes, node limit, may-stop, aborted, the
reductions' settings) and ``flags`` (int32, written by a Python thread while the search runs
without the GIL: time is up, stop now). Every 512 nodes it checks them; an aborted search
returns 0 and the caller discards the unfinished iteration.
"""

from __future__ import annotations

import numpy as np

from ...jit import drop_stale_cache, njit
from . import ops
from . import rings as _rings
from . import yinsh as _yinsh
from .ops import DRAW, ONGOING

drop_stale_cache(__file__, ops.__file__, _yinsh.__file__, _rings.__file__, *ops.KERNEL_FILES)

MAX_PLY = 64
MAX_LEGAL = 512  # at least any game's most legal actions (YINSH 512, RINGS 217)
WIN = 1_000_000.0
INF = 1e18
EXACT, LOWER, UPPER = 0, 1, 2
# ctl entries: nodes searched, node limit (0: none), may stop (the depths up to ``min`` are done), aborted,
# late move reductions: from the LMR-th action of a node (0: off), at depths of at least LMR_DEPTH, the root
# seat of a paranoid search (more than two players; -1: two players)
NODES, NODE_LIMIT, MAY_STOP, ABORTED, LMR, LMR_DEPTH, ROOT = 0, 1, 2, 3, 4, 5, 6
NUM_CTL = 7
# flags entries (set from Python)
TIME_UP, STOP = 0, 1


@njit
def _tick(ctl, flags):
    ctl[NODES] += 1
    if ctl[NODES] & 511 == 0:
        if flags[STOP] != 0:
            ctl[ABORTED] = 1
        elif ctl[MAY_STOP] != 0 and (flags[TIME_UP] != 0 or (ctl[NODE_LIMIT] > 0 and ctl[NODES] >= ctl[NODE_LIMIT])):
            ctl[ABORTED] = 1


@njit
def _terminal_value(w, me, ply):
    if w == DRAW:
        return 0.0
    return WIN - ply - 1 if w == me else -(WIN - ply - 1)


# frame fields of the explicit search stack (one frame per ply; numba's on-disk cache cannot hold
# recursive functions, numba issue #6061, so the search keeps its own stack)
F_DEPTH, F_EXT, F_MID, F_I, F_N, F_ME, F_BESTA, F_NEG, F_PVS, F_MOVE, F_IDX, F_TTA = range(12)
NUM_F = 12
G_ALPHA, G_BETA, G_ALPHA0, G_BEST = range(4)
ENTER, NEXT, RETURN = 0, 1, 2


@njit
def _push(fr, fv, ply, depth, alpha, beta, ext, mid):
    fr[ply, F_DEPTH] = depth
    fr[ply, F_EXT] = ext
    fr[ply, F_MID] = mid
    fv[ply, G_ALPHA] = alpha
    fv[ply, G_BETA] = beta


@njit
def order(mv, sc, n, tt_a, k0, k1, hist):
    """Ordering scores of the actions ``mv[:n]`` into ``sc``: the table's action, the two killers, then history."""
    for i in range(n):
        a = mv[i]
        if a == tt_a:
            sc[i] = 1 << 62
        elif a == k0:
            sc[i] = 1 << 61
        elif a == k1:
            sc[i] = 1 << 60
        else:
            sc[i] = hist[a]


@njit
def _pick(mv, sc, i, n):
    """Move the best remaining action to index i (selection: a cut-off usually comes early)."""
    j = i
    for m in range(i + 1, n):
        if sc[m] > sc[j]:
            j = m
    if j != i:
        t = mv[i]
        mv[i] = mv[j]
        mv[j] = t
        t2 = sc[i]
        sc[i] = sc[j]
        sc[j] = t2
    return mv[i]


@njit
def cut_off(hist, killers, ply, a, depth):
    """Credit the action ``a`` that cut off the node at ``ply`` (``depth`` turns left): history and killers."""
    hist[a] += (1 << min(depth, 20)) if depth > 0 else 1
    if killers[ply, 0] != a:
        killers[ply, 1] = killers[ply, 0]
        killers[ply, 0] = a


@njit
def tt_put(tt_key, tt_val, tt_depth, tt_flag, tt_move, idx, key, best, alpha0, beta, depth, best_a):
    """Store a node's result (``best`` found in the window ``alpha0``..``beta``) in the transposition table, keeping
    the deeper entry of the same position."""
    flag = EXACT if alpha0 < best < beta else (LOWER if best >= beta else UPPER)
    d = max(depth, 0)
    if tt_key[idx] != key or tt_depth[idx] <= d:
        tt_key[idx] = key
        tt_val[idx] = best
        tt_depth[idx] = d
        tt_flag[idx] = flag
        tt_move[idx] = best_a


@njit
def _update(fr, fv, ply, a, v, hist, killers):
    """Take a child's value into the node at ``ply``; True on a cut-off."""
    if v > fv[ply, G_BEST]:
        fv[ply, G_BEST] = v
        fr[ply, F_BESTA] = a
    if v > fv[ply, G_ALPHA]:
        fv[ply, G_ALPHA] = v
    if fv[ply, G_ALPHA] >= fv[ply, G_BETA]:
        cut_off(hist, killers, ply, a, fr[ply, F_DEPTH])
        return True
    return False


@njit
def _store(fr, fv, keys, ply, tt_key, tt_val, tt_depth, tt_flag, tt_move):
    tt_put(tt_key, tt_val, tt_depth, tt_flag, tt_move, fr[ply, F_IDX], keys[ply], fv[ply, G_BEST], fv[ply, G_ALPHA0],
           fv[ply, G_BETA], fr[ply, F_DEPTH], fr[ply, F_BESTA])


@njit
def search(game, st, base, depth, alpha, beta, ext, midturn, extend, ctl, flags, moves, scores, hist, killers,
           tt_key, tt_val, tt_depth, tt_flag, tt_move, zob, wts, wtab, buf, fr, fv, keys):
    """Value of ``st[base]`` for its player to decide (see the module docstring).

    Negamax over changes of the side to move (:func:`.ops.side`: the seat, or with ``ctl[ROOT]`` >= 0 the root
    seat against the coalition of the others, paranoid), with an explicit stack: frame ``ply`` (``fr``, ``fv``,
    ``keys``) is the node whose position is ``st[ply]``. Below the horizon (``depth <= 0``) only a turn
    in progress (``midturn``: the last decision was by the same player) is searched on, for at most
    ``ext`` more decisions; otherwise the position is evaluated."""
    _push(fr, fv, base, depth, alpha, beta, ext, midturn)
    root = ctl[ROOT]
    sp = base
    mode = ENTER
    ret = 0.0
    while True:
        ply = sp
        if mode == ENTER:
            _tick(ctl, flags)
            if ctl[ABORTED] != 0:
                return 0.0
            s = st[ply]
            me = ops.side(game, s, root)
            d = fr[ply, F_DEPTH]
            if (d <= 0 and (fr[ply, F_MID] == 0 or fr[ply, F_EXT] <= 0)) or ply >= MAX_PLY - 1:
                ret = ops.side_evaluate(game, s, me, root, wts, wtab, buf)
                mode = RETURN
                continue
            key = ops.side_key(game, s, zob, root)
            idx = np.int64(key & np.uint64(tt_key.shape[0] - 1))
            tt_a = -1
            if tt_key[idx] == key:
                tt_a = tt_move[idx]
                if tt_depth[idx] >= d:
                    v = tt_val[idx]
                    f = tt_flag[idx]
                    if f == EXACT or (f == LOWER and v >= fv[ply, G_BETA]) or (f == UPPER and v <= fv[ply, G_ALPHA]):
                        ret = v
                        mode = RETURN
                        continue
            keys[ply] = key
            fr[ply, F_IDX] = idx
            fr[ply, F_ME] = me
            fr[ply, F_I] = 0
            fr[ply, F_BESTA] = -1
            fv[ply, G_ALPHA0] = fv[ply, G_ALPHA]
            fv[ply, G_BEST] = -INF
            n = ops.gen_actions(game, s, moves[ply])
            fr[ply, F_N] = n
            order(moves[ply], scores[ply], n, tt_a, killers[ply, 0], killers[ply, 1], hist)
            mode = NEXT
        elif mode == NEXT:
            i = fr[ply, F_I]
            if i >= fr[ply, F_N]:
                _store(fr, fv, keys, ply, tt_key, tt_val, tt_depth, tt_flag, tt_move)
                ret = fv[ply, G_BEST]
                mode = RETURN
                continue
            a = _pick(moves[ply], scores[ply], i, fr[ply, F_N])
            fr[ply, F_I] = i + 1
            fr[ply, F_MOVE] = a
            child = st[ply + 1]
            child[:] = st[ply]
            ops.apply_action(game, child, a)
            me = fr[ply, F_ME]
            d = fr[ply, F_DEPTH]
            horizon = d <= 0
            al = fv[ply, G_ALPHA]
            be = fv[ply, G_BETA]
            w = ops.side_outcome(game, child, root)
            if w != ONGOING:
                v = _terminal_value(w, me, ply)
            elif ops.side(game, child, root) == me:  # the same side decides again: no depth used
                fr[ply, F_NEG] = 0
                fr[ply, F_PVS] = 0
                if horizon:
                    _push(fr, fv, ply + 1, 0, al, be, fr[ply, F_EXT] - 1, 1)
                else:
                    _push(fr, fv, ply + 1, d, al, be, extend, 1)
                sp = ply + 1
                mode = ENTER
                continue
            elif horizon or d == 1:  # a leaf: what the search at depth 0 would return
                _tick(ctl, flags)
                v = -ops.side_evaluate(game, child, ops.side(game, child, root), root, wts, wtab, buf)
            else:
                fr[ply, F_NEG] = 1
                if ctl[LMR] > 0 and i >= ctl[LMR] and d >= ctl[LMR_DEPTH] and fr[ply, F_BESTA] >= 0:
                    # a late move: a null window one turn shallower first, searched again if it may be better
                    fr[ply, F_PVS] = 3
                    _push(fr, fv, ply + 1, d - 2, -al - 1.0, -al, extend, 0)
                elif fr[ply, F_BESTA] >= 0 and be - al > 1.0:  # principal variation search: a null window first
                    fr[ply, F_PVS] = 1
                    _push(fr, fv, ply + 1, d - 1, -al - 1.0, -al, extend, 0)
                else:
                    fr[ply, F_PVS] = 0
                    _push(fr, fv, ply + 1, d - 1, -be, -al, extend, 0)
                sp = ply + 1
                mode = ENTER
                continue
            if _update(fr, fv, ply, a, v, hist, killers):
                _store(fr, fv, keys, ply, tt_key, tt_val, tt_depth, tt_flag, tt_move)
                ret = fv[ply, G_BEST]
                mode = RETURN
        else:  # RETURN: ``ret`` is the value of the node at ``ply`` for its player
            if ply == base:
                return ret
            if ctl[ABORTED] != 0:
                return 0.0
            sp = ply - 1
            parent = sp
            v = -ret if fr[parent, F_NEG] != 0 else ret
            if fr[parent, F_PVS] == 3 and v > fv[parent, G_ALPHA]:
                # a reduced late move that may be better: its full depth, with a null window where there is one
                al = fv[parent, G_ALPHA]
                be = fv[parent, G_BETA]
                if be - al > 1.0:
                    fr[parent, F_PVS] = 1
                    _push(fr, fv, ply, fr[parent, F_DEPTH] - 1, -al - 1.0, -al, extend, 0)
                else:
                    fr[parent, F_PVS] = 2
                    _push(fr, fv, ply, fr[parent, F_DEPTH] - 1, -be, -al, extend, 0)
                sp = ply
                mode = ENTER
                continue
            if fr[parent, F_PVS] == 1 and fv[parent, G_ALPHA] < v < fv[parent, G_BETA]:
                # may be better: search again with the full window (the child's array is intact)
                fr[parent, F_PVS] = 2
                _push(fr, fv, ply, fr[parent, F_DEPTH] - 1, -fv[parent, G_BETA], -fv[parent, G_ALPHA], extend, 0)
                sp = ply
                mode = ENTER
                continue
            if _update(fr, fv, parent, fr[parent, F_MOVE], v, hist, killers):
                _store(fr, fv, keys, parent, tt_key, tt_val, tt_depth, tt_flag, tt_move)
                ret = fv[parent, G_BEST]
                mode = RETURN
            else:
                mode = NEXT


@njit
def search_root(game, st, actions, n, depth, out, extend, ctl, flags, moves, scores, hist, killers,
                tt_key, tt_val, tt_depth, tt_flag, tt_move, zob, wts, wtab, buf, fr, fv, keys):
    """One iteration at ``depth``: the value of each root action (``out[i]``), in the given order.
    Returns how many were searched before an abort (``n`` when the iteration completed)."""
    s = st[0]
    root = ctl[ROOT]
    me = ops.side(game, s, root)
    alpha = -INF
    beta = INF
    child = st[1]
    for i in range(n):
        a = actions[i]
        child[:] = s
        ops.apply_action(game, child, a)
        w = ops.side_outcome(game, child, root)
        if w != ONGOING:
            v = 0.0 if w == DRAW else (WIN - 1.0 if w == me else -(WIN - 1.0))
        elif ops.side(game, child, root) == me:
            v = search(game, st, 1, depth, alpha, beta, extend, 1, extend, ctl, flags, moves, scores, hist, killers,
                       tt_key, tt_val, tt_depth, tt_flag, tt_move, zob, wts, wtab, buf, fr, fv, keys)
        elif i > 0 and depth > 1:
            v = -search(game, st, 1, depth - 1, -alpha - 1.0, -alpha, extend, 0, extend, ctl, flags, moves, scores,
                        hist, killers, tt_key, tt_val, tt_depth, tt_flag, tt_move, zob, wts, wtab, buf, fr, fv, keys)
            if v > alpha:
                v = -search(game, st, 1, depth - 1, -beta, -alpha, extend, 0, extend, ctl, flags, moves, scores,
                            hist, killers, tt_key, tt_val, tt_depth, tt_flag, tt_move, zob, wts, wtab, buf, fr, fv,
                            keys)
        else:
            v = -search(game, st, 1, depth - 1, -beta, -alpha, extend, 0, extend, ctl, flags, moves, scores,
                        hist, killers, tt_key, tt_val, tt_depth, tt_flag, tt_move, zob, wts, wtab, buf, fr, fv, keys)
        if ctl[ABORTED] != 0:
            return i
        out[i] = v
        if v > alpha:
            alpha = v
    return n


@njit
def principal_variation(game, s, first, out, limit, tt_key, tt_move, zob, legal, root):
    """The moves ``first`` then the table's best moves from ``s`` (at most ``limit``) into ``out``; returns how many."""
    w = s.copy()
    out[0] = first
    ops.apply_action(game, w, first)
    n = 1
    while n < limit and ops.outcome(game, w) == ONGOING:
        key = ops.side_key(game, w, zob, root)
        idx = np.int64(key & np.uint64(tt_key.shape[0] - 1))
        if tt_key[idx] != key:
            break
        a = tt_move[idx]
        m = ops.gen_actions(game, w, legal)
        found = False
        for i in range(m):
            if legal[i] == a:
                found = True
                break
        if not found:
            break
        out[n] = a
        n += 1
        ops.apply_action(game, w, a)
    return n



class Context:
    """The preallocated arrays of one agent's searches in one game (kept between its decisions: the
    transposition table and history scores carry over). ``tt``: table entries (rounded down to a
    power of two, at least 1,024; about 23 bytes each)."""

    def __init__(self, game_name: str, eval_name: str = "", tt: int = 400_000, extend: int = 4, lmr: int = 0,
                 lmr_depth: int = 3):
        self.game, size, num_actions, self.wts, self.wtab = ops.setup(game_name, eval_name)
        tsize = 1 << max(10, int(tt).bit_length() - 1)
        self.tt_key = np.zeros(tsize, dtype=np.uint64)
        self.tt_val = np.zeros(tsize, dtype=np.float64)
        self.tt_depth = np.zeros(tsize, dtype=np.int16)
        self.tt_flag = np.zeros(tsize, dtype=np.int8)
        self.tt_move = np.full(tsize, -1, dtype=np.int32)
        self.zob = ops.zobrist_table()
        self.st = np.zeros((MAX_PLY + 1, size), dtype=np.int32)
        self.moves = np.zeros((MAX_PLY, MAX_LEGAL), dtype=np.int32)
        self.scores = np.zeros((MAX_PLY, MAX_LEGAL), dtype=np.int64)
        self.hist = np.zeros(num_actions, dtype=np.int64)
        self.killers = np.full((MAX_PLY, 2), -1, dtype=np.int32)
        self.buf = np.zeros(MAX_LEGAL, dtype=np.int32)
        self.ctl = np.zeros(NUM_CTL, dtype=np.int64)
        self.flags = np.zeros(2, dtype=np.int32)
        self.fr = np.zeros((MAX_PLY + 1, NUM_F), dtype=np.int64)
        self.fv = np.zeros((MAX_PLY + 1, 4), dtype=np.float64)
        self.keys = np.zeros(MAX_PLY + 1, dtype=np.uint64)
        self.extend = int(extend)
        self.lmr = (int(lmr), int(lmr_depth))

    def new_search(self, s: np.ndarray, root: int = -1) -> None:
        """Start a search from the kernel array ``s``: counters and flags cleared, history aged. ``root``: the
        searching seat of a paranoid search (more than two players), else -1."""
        self.st[0] = s
        self.ctl[:] = 0
        self.ctl[LMR], self.ctl[LMR_DEPTH] = self.lmr
        self.ctl[ROOT] = root
        self.flags[:] = 0
        self.hist >>= 2
        self.killers[:] = -1

    def search_root(self, actions: np.ndarray, depth: int, out: np.ndarray) -> int:
        """One iteration of :func:`search_root` over ``actions``; how many were searched."""
        return int(search_root(self.game, self.st, actions, len(actions), depth, out, self.extend, self.ctl,
                               self.flags, self.moves, self.scores, self.hist, self.killers, self.tt_key, self.tt_val,
                               self.tt_depth, self.tt_flag, self.tt_move, self.zob, self.wts, self.wtab, self.buf,
                               self.fr, self.fv, self.keys))

    def pv(self, first: int, limit: int = 12) -> list[int]:
        """The principal variation from the root, starting with ``first``."""
        out = np.zeros(limit, dtype=np.int32)
        n = principal_variation(self.game, self.st[0].copy(), first, out, limit, self.tt_key, self.tt_move, self.zob,
                                np.zeros(MAX_LEGAL, dtype=np.int32), self.ctl[ROOT])
        return [int(a) for a in out[:n]]

    def evaluate(self, s: np.ndarray, me: int) -> float:
        """The compiled evaluation of the kernel array ``s`` for player ``me`` (points)."""
        return float(ops.evaluate(self.game, s, me, self.wts, self.wtab, self.buf))
