"""Compiled alpha-beta for Gygès: the whole search tree in numba, over the rules kernel's arrays.

The search is the one of :mod:`ringgames.ai.alphabeta` (negamax; a Gygès turn is one move, so
every ply changes the player to move), run as machine code over
:mod:`ringgames.games.gyges.kernel`: positions are copies of the kernel array (45 ``int32``) on a
stack, one per ply; the actions searched are the kernel's :func:`~ringgames.games.gyges.kernel.
distinct_actions` (one per distinct successor position, as the Python search's
``state.distinct_actions()``); the evaluation is :mod:`ringgames.ai.evaluation.gyges`'s (the
kernel's :func:`~ringgames.games.gyges.kernel.features` and the *advance* of each side, with the weights of the
context's evaluation — today's or ``tuned`` — as an array: the same values). On
top of the Python search it adds principal variation search, killer moves and a depth-preferred
transposition table keyed by the kernel's Zobrist key (squares and side to move, as
``state.hash_key()``). Python keeps the root
(:class:`~ringgames.ai.compiled.agent.CompiledAlphaBetaAgent`): tactics, iterative deepening, time.

**Repetition** (*A move* 7: the third occurrence of a play-phase position is a draw) is applied
exactly as the protocol state applies it: the search keeps the keys of the game's earlier
positions (:meth:`Context.set_history`, from ``state.position_keys()``) and of the positions
on the path from the root, and a child that occurs for the third time is a draw (0). Without a
history only the root's own count (``REPS`` of its array) is known besides the path.

**Goal tactics, extensions, ordering, reductions** (the option ``extend`` > 0, capped at
:data:`MAX_EXTENSIONS`; 0: none of them, the plain search whose values equal the Python search's
at every depth):

* a node whose player can move into the goal is worth the win at once (no other move searched);
* a child whose player to move can reach the goal (the evaluation's *threat* of the side to
  move) is the loss of the player who moved into it, not a static value;
* *threat extension*: at the last ply, a move after which the mover threatens to reach the goal
  is searched one turn deeper, so the reply must parry it; at most ``extend`` on a path;
* *ordering pass*: at nodes with 2 or more turns left every child's static value is computed
  first (exact where the reply wins or the position repeats a third time: not searched further)
  and the children are searched best first after the table's move and the killers;
* *late move reductions* (:attr:`Context.lmr`, default :data:`DEFAULT_LMR`): after that many
  actions, a quiet one (no threat) is searched one turn shallower with a null window first
  (with 2 turns left: its static value, skipped if not above alpha), again at full depth only
  if it beats alpha. This is the only part that prunes: without it the tactics search gives
  the minimax value under the rules above.

The search is a loop over an explicit stack (``fi``/``ff``), not a recursive function: numba's
cache cannot reload recursive functions (numba issue #6061: a segmentation fault in the next
process).

The search reads two control arrays: ``ctl`` (int64: nodes, node limit, may-stop, aborted) and
``flags`` (int32, written by a Python thread while the search runs without the GIL: time is up,
stop now). Every 512 nodes it checks them; an aborted search returns 0 and the caller
discards the unfinished iteration.
"""

from __future__ import annotations

import numpy as np

from ...games.gyges import board as _board
from ...games.gyges import kernel as K
from ...jit import drop_stale_cache, njit
from ..evaluation import gyges as _ev
from . import tree as _tree
from .tree import ABORTED, EXACT, INF, LOWER, MAY_STOP, NODE_LIMIT, NODES, STOP, TIME_UP, UPPER, WIN, _tick  # noqa: F401

drop_stale_cache(__file__, K.__file__, _board.__file__, _ev.__file__, _tree.__file__)

MAX_PLY = 64
MAX_LEGAL = K.MAX_LEGAL
NUM_ACTIONS = _board.NUM_ACTIONS
MOVE_BASE = _board.MOVE_BASE
PASS = _board.PASS
GOAL = _board.GOAL
WIDTH = _board.SIZE
# ctl entries NODES, NODE_LIMIT, MAY_STOP, ABORTED and the flags TIME_UP, STOP: as in :mod:`.tree` (its ``_tick``)
#: ctl entry set by :meth:`Context.new_search`: 1 when the goal tactics are on (``extend`` > 0)
TACTICS = 4
#: ctl entry: late move reductions after this many actions (0: none; with the goal tactics only)
LMR = 5
# what the ordering pass found out about an action (with the goal tactics, depth >= 2)
K_SEARCH, K_EXACT, K_THREAT = 0, 1, 2
# the evaluation's weights (evaluation/gyges.py), indices into the weight array ``wts``
W_THREAT_TO_MOVE, W_THREAT_WAITING, W_APPROACH, W_MOBILITY, W_ADVANCE = 0, 1, 2, 3, 4
assert _ev.FEATURES == ("threat_to_move", "threat_waiting", "approach", "mobility", "advance")
#: Threat extensions per path at most (the agent's ``extend``, default 4, is capped here: with 2
#: or 4 the search reached less depth in the same time; docs/ai.md, "Gygès compiled search").
MAX_EXTENSIONS = 1
#: Late move reductions after this many actions (:attr:`Context.lmr`; 0: none).
DEFAULT_LMR = 3
#: Room for the game's earlier play-phase positions (the last 4,096 are kept: a game longer than
#: that may repeat an older one unseen) plus the search path.
HISTORY = 4096


@njit
def advance(occ, side):
    """Rows between ``side``'s home row and its nearest occupied row (the *advance* feature)."""
    for k in range(WIDTH):
        r = k if side == 0 else WIDTH - 1 - k
        if (occ & K.ROW_MASK[r]) != 0:
            return k
    return 0


@njit
def leaf(s, quick, wts, heads, links, nexts, st_sq, st_used):
    """``(ok, score for South, threat of the side to move, threat of the other side)``: the
    evaluation of :mod:`..evaluation.gyges` with the weights ``wts`` (in the order of its
    ``FEATURES``) from the kernel's per-side features (``ok`` 0: setup or a goal reached, score 0).
    With ``quick``, a side to move that can reach the goal is reported at once (threat 1, the rest
    0: the position is lost for the other side anyway)."""
    if s[K.PHASE] != K.PLAY or s[K.WINNER] >= 0:
        return 0, 0.0, 0, 0
    occ = K.occupancy(s)
    if K.popcount(occ) < 12:
        return 0, 0.0, 0, 0
    q = s[K.SIDE]
    tq, aq, mq = K.side_features(s, occ, q, heads, links, nexts, st_sq, st_used)
    if quick and tq != 0:
        return 1, 0.0, 1, 0
    to, ao, mo = K.side_features(s, occ, 1 - q, heads, links, nexts, st_sq, st_used)
    vq = wts[W_THREAT_TO_MOVE] * tq + wts[W_APPROACH] * aq + wts[W_MOBILITY] * mq + wts[W_ADVANCE] * advance(occ, q)
    vo = wts[W_THREAT_WAITING] * to + wts[W_APPROACH] * ao + wts[W_MOBILITY] * mo + wts[W_ADVANCE] * advance(occ, 1 - q)
    score = vq - vo if q == 0 else vo - vq
    return 1, score, tq, to


@njit
def evaluate(s, me, wts, heads, links, nexts, st_sq, st_used):
    """The evaluation (points) of ``s`` for player ``me`` with the weights ``wts``:
    :func:`ringgames.ai.evaluation.gyges.make_evaluate`'s."""
    _, score, _, _ = leaf(s, False, wts, heads, links, nexts, st_sq, st_used)
    return score if me == 0 else -score


@njit
def _occurrences(keys, n, key):
    c = 0
    for i in range(n):
        if keys[i] == key:
            c += 1
    return c


@njit
def _is_goal_move(a):
    return MOVE_BASE <= a < PASS and ((a - MOVE_BASE) // 37) % 37 == GOAL


# the search's explicit stack (no recursion: numba's cache cannot reload recursive functions,
# numba issue #6061): one row per ply, int64 columns in ``fi``, float64 columns in ``ff``
F_DEPTH, F_EXT, F_N, F_I, F_BESTA, F_IDX, F_STAGE, F_KEY = 0, 1, 2, 3, 4, 5, 6, 7
F_ALPHA, F_BETA, F_ALPHA0, F_BEST = 0, 1, 2, 3
# the kind of the child search in progress (F_STAGE)
ST_FULL, ST_NULL, ST_LMR = 0, 1, 2
# the steps of the search loop
OP_ENTER, OP_NEXT, OP_RETURN, OP_UPDATE = 0, 1, 2, 3


@njit
def search(st, keys, nh, base, depth, alpha, beta, ext, ctl, flags, moves, scores, hist, killers,
           tt_key, tt_val, tt_depth, tt_flag, tt_move, fi, ff, sval, kind, wts, heads, links, nexts, st_sq, st_used):
    """Value of ``st[base]`` for its player to move (see the module docstring): negamax with
    alpha-beta, PVS, the table, killers and history, as a loop over an explicit stack (rows
    ``base`` and deeper of ``fi``/``ff``). ``keys[:nh + base]`` are the play-phase keys before
    the node's children (game history, then the path); ``ext``: extensions left on this path."""
    mask = tt_key.shape[0] - 1
    tactics = ctl[TACTICS] != 0
    lmr = ctl[LMR]
    ply = base
    fi[ply, F_DEPTH] = depth
    fi[ply, F_EXT] = ext
    ff[ply, F_ALPHA] = alpha
    ff[ply, F_BETA] = beta
    op = OP_ENTER
    ret = 0.0
    v = 0.0
    while True:
        if op == OP_ENTER:
            _tick(ctl, flags)
            if ctl[ABORTED] != 0:
                return 0.0
            s = st[ply]
            depth = fi[ply, F_DEPTH]
            if depth <= 0 or ply >= MAX_PLY - 1:
                ret = evaluate(s, s[K.SIDE], wts, heads, links, nexts, st_sq, st_used)
                op = OP_RETURN
                continue
            alpha = ff[ply, F_ALPHA]
            beta = ff[ply, F_BETA]
            key = K.get_key(s)
            idx = key & mask
            tt_a = -1
            if tt_key[idx] == key:
                tt_a = tt_move[idx]
                if tt_depth[idx] >= depth:
                    tv = tt_val[idx]
                    f = tt_flag[idx]
                    if f == EXACT or (f == LOWER and tv >= beta) or (f == UPPER and tv <= alpha):
                        ret = tv
                        op = OP_RETURN
                        continue
            mv = moves[ply]
            sc = scores[ply]
            n = K.distinct_actions(s, mv, heads, links, nexts, st_sq, st_used)
            if tactics:
                won = False
                for i in range(n):
                    if _is_goal_move(mv[i]):
                        won = True
                        break
                if won:
                    ret = WIN - ply - 1
                    op = OP_RETURN
                    continue
            k0 = killers[ply, 0]
            k1 = killers[ply, 1]
            _tree.order(mv, sc, n, tt_a, k0, k1, hist)
            if tactics and depth >= 2:
                # the ordering pass: every child's static value (exact where the reply wins or
                # the position repeats a third time), best first
                child = st[ply + 1]
                nk = nh + ply
                for i in range(n):
                    a = mv[i]
                    child[:] = s
                    K.apply_action(child, a)
                    _tick(ctl, flags)
                    ck = K.get_key(child)
                    if child[K.PHASE] == K.PLAY and _occurrences(keys, nk, ck) >= 2:
                        val = 0.0
                        kind[ply, i] = K_EXACT
                    else:
                        ok, sv, t_q, t_me = leaf(child, True, wts, heads, links, nexts, st_sq, st_used)
                        val = -sv if child[K.SIDE] == 0 else sv
                        kind[ply, i] = K_SEARCH
                        if ok != 0 and t_q != 0:
                            val = -(WIN - ply - 2)
                            kind[ply, i] = K_EXACT
                        elif ok != 0 and t_me != 0:
                            kind[ply, i] = K_THREAT
                    sval[ply, i] = val
                    if a == tt_a:
                        sc[i] = 1 << 62
                    elif a == k0:
                        sc[i] = 1 << 61
                    elif a == k1:
                        sc[i] = 1 << 60
                    else:
                        sc[i] = np.int64(val * 16.0)
                if ctl[ABORTED] != 0:
                    return 0.0
            fi[ply, F_N] = n
            fi[ply, F_I] = 0
            fi[ply, F_BESTA] = -1
            fi[ply, F_IDX] = idx
            fi[ply, F_KEY] = key
            ff[ply, F_ALPHA0] = alpha
            ff[ply, F_BEST] = -INF
            op = OP_NEXT
        elif op == OP_NEXT:
            i = fi[ply, F_I]
            n = fi[ply, F_N]
            depth = fi[ply, F_DEPTH]
            if i >= n:
                best = ff[ply, F_BEST]
                _tree.tt_put(tt_key, tt_val, tt_depth, tt_flag, tt_move, fi[ply, F_IDX], fi[ply, F_KEY], best,
                             ff[ply, F_ALPHA0], ff[ply, F_BETA], depth, fi[ply, F_BESTA])
                ret = best
                op = OP_RETURN
                continue
            mv = moves[ply]
            sc = scores[ply]
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
                t3 = sval[ply, i]
                sval[ply, i] = sval[ply, j]
                sval[ply, j] = t3
                t4 = kind[ply, i]
                kind[ply, i] = kind[ply, j]
                kind[ply, j] = t4
            a = mv[i]
            child = st[ply + 1]
            child[:] = st[ply]
            K.apply_action(child, a)
            op = OP_UPDATE
            if child[K.WINNER] >= 0:
                v = WIN - ply - 1
                continue
            ck = K.get_key(child)
            playing = child[K.PHASE] == K.PLAY
            nk = nh + ply  # the child's key goes to keys[nk]
            if playing and _occurrences(keys, nk, ck) >= 2:
                v = 0.0  # the third occurrence: a draw
                continue
            keys[nk] = ck if playing else 0
            alpha = ff[ply, F_ALPHA]
            beta = ff[ply, F_BETA]
            ext = fi[ply, F_EXT]
            if depth == 1:
                _tick(ctl, flags)
                ok, sv, t_q, t_me = leaf(child, tactics, wts, heads, links, nexts, st_sq, st_used)
                v = -sv if child[K.SIDE] == 0 else sv
                if tactics and ok != 0:
                    if t_q != 0:
                        v = -(WIN - ply - 2)  # the reply moves into the goal
                    elif t_me != 0 and ext > 0:  # a threat: searched one turn deeper (the reply must parry)
                        fi[ply, F_STAGE] = ST_FULL
                        fi[ply + 1, F_DEPTH] = 1
                        fi[ply + 1, F_EXT] = ext - 1
                        ff[ply + 1, F_ALPHA] = -beta
                        ff[ply + 1, F_BETA] = -alpha
                        ply += 1
                        op = OP_ENTER
                continue
            if tactics:  # depth >= 2: the ordering pass has run
                kd = kind[ply, i]
                if kd == K_EXACT:
                    v = sval[ply, i]
                    continue
                if lmr > 0 and i >= lmr and kd == K_SEARCH and fi[ply, F_BESTA] >= 0:
                    # a late quiet action: searched one turn shallower first (at depth 2: its static
                    # value), again at full depth only if it may be better than alpha
                    if depth == 2:
                        if sval[ply, i] <= alpha:
                            v = sval[ply, i]
                            continue
                    else:
                        fi[ply, F_STAGE] = ST_LMR
                        fi[ply + 1, F_DEPTH] = depth - 2
                        fi[ply + 1, F_EXT] = ext
                        ff[ply + 1, F_ALPHA] = -alpha - 1.0
                        ff[ply + 1, F_BETA] = -alpha
                        ply += 1
                        op = OP_ENTER
                        continue
            fi[ply + 1, F_DEPTH] = depth - 1
            fi[ply + 1, F_EXT] = ext
            if fi[ply, F_BESTA] >= 0 and beta - alpha > 1.0:
                fi[ply, F_STAGE] = ST_NULL
                ff[ply + 1, F_ALPHA] = -alpha - 1.0
                ff[ply + 1, F_BETA] = -alpha
            else:
                fi[ply, F_STAGE] = ST_FULL
                ff[ply + 1, F_ALPHA] = -beta
                ff[ply + 1, F_BETA] = -alpha
            ply += 1
            op = OP_ENTER
        elif op == OP_RETURN:
            if ply == base:
                return ret
            ply -= 1
            if ctl[ABORTED] != 0:
                return 0.0
            v = -ret
            op = OP_UPDATE
            if fi[ply, F_STAGE] == ST_LMR:
                if v > ff[ply, F_ALPHA]:  # not refuted by the reduced search: the full depth
                    fi[ply, F_STAGE] = ST_NULL
                    fi[ply + 1, F_DEPTH] = fi[ply, F_DEPTH] - 1
                    ff[ply + 1, F_ALPHA] = -ff[ply, F_ALPHA] - 1.0
                    ff[ply + 1, F_BETA] = -ff[ply, F_ALPHA]
                    ply += 1
                    op = OP_ENTER
            elif fi[ply, F_STAGE] == ST_NULL:
                alpha = ff[ply, F_ALPHA]
                beta = ff[ply, F_BETA]
                if alpha < v < beta:  # the child's array is intact: deeper plies write deeper rows
                    fi[ply, F_STAGE] = ST_FULL
                    ff[ply + 1, F_ALPHA] = -beta
                    ff[ply + 1, F_BETA] = -alpha
                    ply += 1
                    op = OP_ENTER
        else:  # OP_UPDATE: the value v of the action at F_I
            if ctl[ABORTED] != 0:
                return 0.0
            i = fi[ply, F_I]
            a = moves[ply, i]
            if v > ff[ply, F_BEST]:
                ff[ply, F_BEST] = v
                fi[ply, F_BESTA] = a
            if v > ff[ply, F_ALPHA]:
                ff[ply, F_ALPHA] = v
            if ff[ply, F_ALPHA] >= ff[ply, F_BETA]:
                _tree.cut_off(hist, killers, ply, a, fi[ply, F_DEPTH])
                fi[ply, F_I] = fi[ply, F_N]
            else:
                fi[ply, F_I] = i + 1
            op = OP_NEXT


@njit
def search_root(st, keys, nh, actions, n, depth, out, extend, ctl, flags, moves, scores, hist, killers,
                tt_key, tt_val, tt_depth, tt_flag, tt_move, fi, ff, sval, kind, wts, heads, links, nexts, st_sq, st_used):
    """One iteration at ``depth``: the value of each root action (``out[i]``), in the given order.
    Returns how many were searched before an abort (``n`` when the iteration completed)."""
    s = st[0]
    me = s[K.SIDE]
    alpha = -INF
    beta = INF
    child = st[1]
    for i in range(n):
        a = actions[i]
        child[:] = s
        K.apply_action(child, a)
        if child[K.WINNER] >= 0:
            v = WIN - 1.0 if child[K.WINNER] == me else -(WIN - 1.0)
        else:
            ck = K.get_key(child)
            playing = child[K.PHASE] == K.PLAY
            if playing and _occurrences(keys, nh, ck) >= 2:
                v = 0.0
            else:
                keys[nh] = ck if playing else 0
                # the root's children are searched as an inner node's (ply 0)
                if depth == 1:
                    _tick(ctl, flags)
                    ok, sv, t_q, t_me = leaf(child, extend > 0, wts, heads, links, nexts, st_sq, st_used)
                    v = -sv if child[K.SIDE] == 0 else sv
                    if extend > 0 and ok != 0:
                        if t_q != 0:
                            v = -(WIN - 2.0)
                        elif t_me != 0:
                            v = -search(st, keys, nh, 1, 1, -beta, -alpha, extend - 1, ctl, flags, moves, scores,
                                        hist, killers, tt_key, tt_val, tt_depth, tt_flag, tt_move, fi, ff, sval, kind, wts, heads, links,
                                        nexts, st_sq, st_used)
                elif i > 0:
                    v = -search(st, keys, nh, 1, depth - 1, -alpha - 1.0, -alpha, extend, ctl, flags, moves, scores,
                                hist, killers, tt_key, tt_val, tt_depth, tt_flag, tt_move, fi, ff, sval, kind, wts, heads, links, nexts, st_sq,
                                st_used)
                    if v > alpha:
                        v = -search(st, keys, nh, 1, depth - 1, -beta, -alpha, extend, ctl, flags, moves, scores,
                                    hist, killers, tt_key, tt_val, tt_depth, tt_flag, tt_move, fi, ff, sval, kind, wts, heads, links, nexts,
                                    st_sq, st_used)
                else:
                    v = -search(st, keys, nh, 1, depth - 1, -beta, -alpha, extend, ctl, flags, moves, scores, hist,
                                killers, tt_key, tt_val, tt_depth, tt_flag, tt_move, fi, ff, sval, kind, wts, heads, links, nexts, st_sq,
                                st_used)
        if ctl[ABORTED] != 0:
            return i
        out[i] = v
        if v > alpha:
            alpha = v
    return n


@njit
def principal_variation(s, first, out, limit, tt_key, tt_move, legal, heads, links, nexts, st_sq, st_used):
    """The moves ``first`` then the table's best moves from ``s`` (at most ``limit``) into ``out``; returns how many."""
    w = s.copy()
    out[0] = first
    K.apply_action(w, first)
    n = 1
    while n < limit and w[K.WINNER] < 0:
        key = K.get_key(w)
        idx = np.int64(key & (tt_key.shape[0] - 1))
        if tt_key[idx] != key:
            break
        a = tt_move[idx]
        m = K.generate(w, legal, heads, links, nexts, st_sq, st_used)
        found = False
        for i in range(m):
            if legal[i] == a:
                found = True
                break
        if not found:
            break
        out[n] = a
        n += 1
        K.apply_action(w, a)
    return n


class Context:
    """The preallocated arrays of one agent's searches (kept between its decisions: the
    transposition table and history scores carry over). ``tt``: table entries (rounded down to a
    power of two, at least 1,024; 24 bytes each); ``extend``: threat extensions per path and the
    goal tactics (0: none; see the module docstring); ``lmr``: late move reductions after that many
    actions (0: none; default :data:`DEFAULT_LMR`)."""

    def __init__(self, eval_name: str = "", tt: int = 400_000, extend: int = 4, lmr: int | None = None):
        if eval_name in ("", "hand", "default"):
            weights = _ev.HAND_WEIGHTS
        elif eval_name == "tuned":
            weights = _ev.load_weights()["weights"]
        else:
            raise ValueError(f"unknown Gygès evaluation {eval_name!r}; known: hand, tuned")
        #: the evaluation's weights, in the order of :data:`..evaluation.gyges.FEATURES`
        self.wts = np.array(_ev.weight_vector(weights), dtype=np.float64)
        size = 1 << max(10, int(tt).bit_length() - 1)
        self.tt_key = np.zeros(size, dtype=np.int64)
        self.tt_val = np.zeros(size, dtype=np.float64)
        self.tt_depth = np.zeros(size, dtype=np.int16)
        self.tt_flag = np.zeros(size, dtype=np.int8)
        self.tt_move = np.full(size, -1, dtype=np.int32)
        self.st = np.zeros((MAX_PLY + 1, K.SIZE), dtype=np.int32)
        self.moves = np.zeros((MAX_PLY, MAX_LEGAL), dtype=np.int32)
        self.scores = np.zeros((MAX_PLY, MAX_LEGAL), dtype=np.int64)
        self.hist = np.zeros(NUM_ACTIONS, dtype=np.int64)
        self.killers = np.full((MAX_PLY, 2), -1, dtype=np.int32)
        self.legal = np.zeros(MAX_LEGAL, dtype=np.int32)
        self.fi = np.zeros((MAX_PLY + 1, 8), dtype=np.int64)
        self.sval = np.zeros((MAX_PLY, MAX_LEGAL), dtype=np.float64)
        self.kind = np.zeros((MAX_PLY, MAX_LEGAL), dtype=np.int8)
        self.ff = np.zeros((MAX_PLY + 1, 4), dtype=np.float64)
        self.ws = K.new_workspace()
        self.keys = np.zeros(HISTORY + MAX_PLY + 2, dtype=np.int64)
        self.nh = 0
        self._history: np.ndarray | None = None
        self.ctl = np.zeros(6, dtype=np.int64)
        self.lmr = DEFAULT_LMR if lmr is None else max(0, int(lmr))
        self.flags = np.zeros(2, dtype=np.int32)
        self.extend = min(max(0, int(extend)), MAX_EXTENSIONS)

    def set_history(self, state: object) -> None:
        """Take the game's earlier play-phase positions from ``state.position_keys()`` for the
        repetition rule of the next :meth:`new_search` (once; without it only the root's count is known)."""
        keys = getattr(state, "position_keys", None)
        self._history = None if keys is None else np.asarray(keys(), dtype=np.int64)

    def new_search(self, s: np.ndarray) -> None:
        """Start a search from the kernel array ``s``: counters and flags cleared, history aged."""
        self.st[0] = s
        self.ctl[:] = 0
        self.flags[:] = 0
        self.hist >>= 2
        self.killers[:] = -1
        self.ctl[TACTICS] = 1 if self.extend > 0 else 0
        self.ctl[LMR] = self.lmr
        h = self._history
        self._history = None
        if h is not None and len(h) and h[-1] == K.get_key(s):
            h = h[-HISTORY:]
            self.keys[: len(h)] = h
            self.nh = len(h)
        elif s[K.PHASE] == K.PLAY:  # only the root's own occurrences are known
            self.nh = min(HISTORY, max(1, int(s[K.REPS])))
            self.keys[: self.nh] = K.get_key(s)
        else:
            self.nh = 0

    def search_root(self, actions: np.ndarray, depth: int, out: np.ndarray) -> int:
        """One iteration of :func:`search_root` over ``actions``; how many were searched."""
        return int(search_root(self.st, self.keys, self.nh, actions, len(actions), depth, out, self.extend, self.ctl,
                               self.flags, self.moves, self.scores, self.hist, self.killers, self.tt_key, self.tt_val,
                               self.tt_depth, self.tt_flag, self.tt_move, self.fi, self.ff, self.sval, self.kind, self.wts, *self.ws))

    def pv(self, first: int, limit: int = 12) -> list[int]:
        """The principal variation from the root, starting with ``first``."""
        out = np.zeros(limit, dtype=np.int32)
        n = principal_variation(self.st[0].copy(), first, out, limit, self.tt_key, self.tt_move, self.legal, *self.ws)
        return [int(a) for a in out[:n]]

    def evaluate(self, s: np.ndarray, me: int) -> float:
        """The compiled evaluation of the kernel array ``s`` for player ``me`` (points)."""
        return float(evaluate(s, me, self.wts, *self.ws))
