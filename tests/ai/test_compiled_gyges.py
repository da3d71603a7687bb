"""The compiled Gygès search (ai/compiled/gyges.py) against the Python search and the rules."""

from __future__ import annotations

import random
import threading
import time

import numpy as np
import pytest

from ringgames import load_game
from ringgames.ai.alphabeta import WIN, AlphaBetaAgent
from ringgames.ai.compiled import gyges as G
from ringgames.ai.compiled.agent import CompiledAlphaBetaAgent, kernel_for
from ringgames.ai.evaluation import gyges as ev
from ringgames.games.gyges import GOAL, decode_move
from ringgames.games.gyges import kernel as K


def random_states(seed: int, n: int, variant: str | None = None, lo: int = 0, hi: int = 40) -> list:
    """``n`` unfinished states reached by random games (random setups, then lo..hi random actions)."""
    game = load_game("gyges", variant)
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        s = game.new_initial_state()
        target = rng.randrange(lo, hi)
        while not s.is_terminal() and len(s.history) < target:
            s.apply_action(rng.choice(s.legal_actions()))
        if not s.is_terminal():
            out.append(s)
    return out


def test_the_agent_uses_the_gyges_kernel():
    s = load_game("gyges").new_initial_state()
    assert kernel_for(s) is G


HAND = np.array(ev.weight_vector(ev.HAND_WEIGHTS))


@pytest.mark.parametrize("name", ["", "tuned"])
def test_compiled_evaluation_equals_python_on_random_positions(name):
    ctx = G.Context(name, 1024, 0)
    evaluate = ev.evaluator(name)[0]
    states = random_states(1, 240, lo=0, hi=60) + random_states(2, 30, variant="beginner", lo=2, hi=60)
    playing = 0
    nonzero = 0
    for s in states:
        py = evaluate(s)
        playing += s.features() is not None
        nonzero += py[0] != 0
        for me in (0, 1):
            assert ctx.evaluate(s.s, me) == pytest.approx(py[me], abs=1e-9), s.position()
    assert playing >= 200  # most of them in the play phase, where the features count
    assert nonzero >= 150


def test_the_tuned_weights_are_loaded_and_valued_as_recorded():
    """The weight file's numbers are the ones the search uses: the compiled value of a fixed position is the dot
    product of its features (worked out here from the rules queries) with the file's weights."""
    data = ev.load_weights()
    ctx = G.Context("tuned", 1024, 0)
    assert ctx.wts.tolist() == [data["weights"][f] for f in ev.FEATURES]
    assert data["weights"]["threat_waiting"] < 0 < data["weights"]["approach"]  # what the fit found (docs/ai.md)
    s = random_states(7, 1, lo=14, hi=15)[0]
    t0, a0, m0, t1, a1, m1 = s.features()
    rows = [r for r in range(6) if any(s.board[r * 6:r * 6 + 6])]
    adv0, adv1 = rows[0], 5 - rows[-1]
    w = data["weights"]
    south_to_move = s.current_player() == 0
    south = (w["threat_to_move"] if south_to_move else w["threat_waiting"]) * t0 + w["approach"] * a0 \
        + w["mobility"] * m0 + w["advance"] * adv0
    north = (w["threat_waiting"] if south_to_move else w["threat_to_move"]) * t1 + w["approach"] * a1 \
        + w["mobility"] * m1 + w["advance"] * adv1
    assert ctx.evaluate(s.s, 0) == pytest.approx(south - north, abs=1e-9)
    assert ctx.evaluate(s.s, 1) == pytest.approx(north - south, abs=1e-9)
    assert ctx.evaluate(s.s, 0) != G.Context("", 1024, 0).evaluate(s.s, 0)


def test_an_unknown_evaluation_is_refused():
    with pytest.raises(ValueError, match="unknown Gygès evaluation 'nope'; known: hand, tuned"):
        G.Context("nope")


@pytest.mark.parametrize("depth,count", [(1, 12), (2, 10), (3, 5)])
def test_root_value_equals_python_search_at_fixed_depth(depth, count):
    """Without extensions (extend=0) and root filters (safe=0) the compiled search is the Python
    search: the same value at every depth (with or without PVS in the Python one)."""
    states = random_states(10 + depth, count, lo=8, hi=40)
    for s in states:
        c = CompiledAlphaBetaAgent(depth=depth, safe=0, extend=0, seed=0).analyse(s.clone())
        p = AlphaBetaAgent(depth=depth, safe=0, seed=0, pvs=depth == 2).analyse(s.clone())
        assert c["value"] == p["value"], s.position()
        assert c["depth"] == p["depth"]


def test_each_root_action_value_at_depth_one_is_minus_the_childs_evaluation():
    s = random_states(3, 1, lo=12, hi=13)[0]
    ctx = G.Context("", 1 << 12, 0)
    actions = np.array(s.distinct_actions(), dtype=np.int32)
    out = np.zeros(len(actions))
    ctx.new_search(s.s)
    assert ctx.search_root(actions, 1, out) == len(actions)
    for a, v in zip(actions.tolist(), out.tolist(), strict=True):
        c = s.clone()
        c.apply_action(a)
        expect = (WIN - 1) if c.is_terminal() and c.returns()[s.current_player()] > 0 else (
            0.0 if c.is_terminal() else ev.evaluate(c)[s.current_player()])
        assert v == expect


def test_stop_event_ends_the_search():
    s = random_states(4, 1, lo=14, hi=15)[0]
    agent = CompiledAlphaBetaAgent(time=60, seed=0)
    stop = threading.Event()
    threading.Timer(0.3, stop.set).start()
    t = time.perf_counter()
    r = agent.analyse(s.clone(), stop=stop)
    assert time.perf_counter() - t < 5.0
    assert r["action"] in s.legal_actions()


def test_node_limit_is_honoured():
    s = random_states(5, 1, lo=14, hi=15)[0]
    r = CompiledAlphaBetaAgent(depth=8, seed=0, min=1).analyse(s.clone(), nodes=3000)
    assert r["depth"] >= 1
    assert 0 < r["nodes"] <= 3000 + 1024  # the limit is checked every 512 nodes
    assert r["action"] in s.legal_actions()


def test_principal_variation_is_a_legal_sequence():
    for s in random_states(6, 4, lo=10, hi=30):
        r = CompiledAlphaBetaAgent(depth=3, seed=0).analyse(s.clone())
        w = s.clone()
        assert r["pv"][0] == r["action"]
        for a in r["pv"]:
            assert not w.is_terminal()
            assert a in w.legal_actions()
            w.apply_action(a)


def _win_in_one():
    for s in random_states(7, 400, lo=10, hi=60):
        if s.goal_reachable():
            return s
    raise AssertionError("no position with a win in one among the random ones")


def test_a_win_in_one_is_found():
    s = _win_in_one()
    r = CompiledAlphaBetaAgent(time=1, seed=0).analyse(s.clone())
    assert decode_move(r["action"])[1] == GOAL and r["value"] == WIN - 1
    # and by the kernel search itself (the agent's root tactics find it first)
    ctx = G.Context("", 1 << 12, 2)
    actions = np.array(s.distinct_actions(), dtype=np.int32)
    out = np.zeros(len(actions))
    ctx.new_search(s.s)
    ctx.search_root(actions, 2, out)
    best = int(actions[int(np.argmax(out))])
    assert decode_move(best)[1] == GOAL and out.max() == WIN - 1


def test_goal_tactics_see_a_win_for_the_reply_at_depth_one():
    """With extensions on, a root move after which the opponent can enter the goal is a loss
    (-(WIN - 2)); without them only its static value (at most the evaluation's threat)."""
    for s in random_states(8, 300, lo=10, hi=60):
        actions = np.array(s.distinct_actions(), dtype=np.int32)
        losing = []
        for a in actions.tolist():
            c = s.clone()
            c.apply_action(a)
            if not c.is_terminal() and c.goal_reachable():
                losing.append(a)
        if not losing or len(losing) == len(actions):
            continue
        for extend, expect_loss in ((2, True), (0, False)):
            ctx = G.Context("", 1 << 12, extend)
            out = np.zeros(len(actions))
            ctx.new_search(s.s)
            ctx.search_root(actions, 1, out)
            for a, v in zip(actions.tolist(), out.tolist(), strict=True):
                if a in losing:
                    assert (v == -(WIN - 2)) == expect_loss
        return
    raise AssertionError("no suitable position")


def test_repetition_third_occurrence_is_a_draw():
    """A root action whose position occurred twice before is a draw (0), from the game's history."""
    s = random_states(9, 1, lo=14, hi=15)[0]
    actions = np.array(s.distinct_actions(), dtype=np.int32)
    a = int(actions[0])
    child_key = int(K.successor_key(s.s, K.get_key(s.s), a))

    class Fake:
        def position_keys(self):
            return np.array([child_key, 12345, child_key, int(K.get_key(s.s))], dtype=np.int64)

    ctx = G.Context("", 1 << 12, 0)
    out = np.zeros(len(actions))
    ctx.set_history(Fake())
    ctx.new_search(s.s)
    ctx.search_root(actions, 2, out)
    assert out[0] == 0.0
    ctx.new_search(s.s)  # the history is used once: now only the root's own count is known
    ctx.search_root(actions, 1, out)
    assert out[0] == ev.evaluate(_after(s, a))[s.current_player()]


def _after(s, a):
    c = s.clone()
    c.apply_action(a)
    return c


def test_position_keys_end_with_the_current_position():
    s = random_states(11, 1, lo=20, hi=21)[0]
    keys = s.position_keys()
    assert len(keys) == s.s[K.NKEYS] and keys[-1] == K.get_key(s.s)
    assert (keys == K.get_key(s.s)).sum() == s.repetition_count()


def _reference_value(s, ply, depth, ext, keys, wts=HAND):
    """Plain minimax (no pruning, no table) with the goal tactics and threat extensions of the
    module docstring, over the kernel's arrays: the value for the side to move."""
    ws = K.workspace()
    if depth <= 0:
        return G.evaluate(s, int(s[K.SIDE]), wts, *ws)
    buf = np.zeros(K.MAX_LEGAL, dtype=np.int32)
    n = K.distinct_actions(s, buf, *ws)
    actions = buf[:n].tolist()
    if any(a != K.PASS and decode_move(a)[1] == GOAL for a in actions):
        return WIN - ply - 1
    best = -float("inf")
    for a in actions:
        c = s.copy()
        K.apply_action(c, a)
        ck = int(K.get_key(c))
        if keys.count(ck) >= 2:
            v = 0.0
        else:
            ok, sv, t_q, t_me = G.leaf(c, False, wts, *ws)
            if ok and t_q:
                v = -(WIN - ply - 2)
            elif depth == 1:
                v = -sv if c[K.SIDE] == 0 else sv
                if ok and t_me and ext > 0:
                    v = -_reference_value(c, ply + 1, 1, ext - 1, [*keys, ck], wts)
            else:
                v = -_reference_value(c, ply + 1, depth - 1, ext, [*keys, ck], wts)
        best = max(best, v)
    return best


@pytest.mark.parametrize("depth,most,name", [(1, 80, ""), (2, 60, ""), (3, 25, ""), (2, 60, "tuned")])
def test_tactical_search_equals_plain_minimax_with_the_same_rules(depth, most, name):
    """With the goal tactics and one threat extension (no late move reductions, which prune), the
    best root value is the minimax value of a plain reference search with the same rules."""
    checked = 0
    for s in random_states(20 + depth, 80, lo=8, hi=40):
        actions = np.array(s.distinct_actions(), dtype=np.int32)
        if len(actions) > most:
            continue  # keep the reference search small
        ctx = G.Context(name, 1 << 14, 1)
        ctx.lmr = 0
        out = np.zeros(len(actions))
        ctx.new_search(s.s)
        assert ctx.search_root(actions, depth, out) == len(actions)
        root = [int(k) for k in s.position_keys()]
        ref = _reference_value(s.s.copy(), 0, depth, 1, root, ctx.wts) if not s.goal_reachable() else WIN - 1
        if s.goal_reachable():
            continue  # the agent's root tactics play it; the kernel is not asked
        assert out.max() == ref, s.position()
        checked += 1
        if checked == 6:
            return
    assert checked >= 3


def _state_with_a_repetition_draw():
    """A position of a random game (seed 5) where one action repeats a position a third time."""
    s = load_game("gyges").new_initial_state()
    rng = random.Random(5)
    while not s.is_terminal() and len(s.history) < 400:
        if s.s[K.PHASE] == K.PLAY:
            keys = s.position_keys().tolist()
            base = K.get_key(s.s)
            hits = [a for a in s.distinct_actions() if keys.count(int(K.successor_key(s.s, base, a))) >= 2]
            if hits and len(hits) < len(s.distinct_actions()):
                return s, hits
        s.apply_action(rng.choice(s.legal_actions()))
    raise AssertionError("no repetition in the game")


def test_repetition_from_the_games_history_as_the_protocol_state():
    """In a real game: the action that repeats a position a third time is a draw for the compiled
    search (the agent hands it the game's history), and the root values equal the Python search's."""
    s, hits = _state_with_a_repetition_draw()
    c = s.clone()
    c.apply_action(hits[0])
    assert c.is_terminal() and c.outcome().reason == "repetition"
    agent = CompiledAlphaBetaAgent(depth=1, safe=0, extend=0, seed=0)
    agent.analyse(s.clone())
    assert agent._ctx.nh == len(s.position_keys())  # the history was used, not just the root's count
    actions = np.array(s.distinct_actions(), dtype=np.int32)
    for depth in (1, 2):
        r = CompiledAlphaBetaAgent(depth=depth, safe=0, extend=0, seed=0).analyse(s.clone())
        p = AlphaBetaAgent(depth=depth, safe=0, seed=0).analyse(s.clone())
        assert r["value"] == p["value"]
        for extend in (0, 1):
            ctx = G.Context("", 1 << 12, extend)
            ctx.set_history(s)
            ctx.new_search(s.s)
            out = np.zeros(len(actions))
            assert ctx.search_root(actions, depth, out) == len(actions)
            for a, v in zip(actions.tolist(), out.tolist(), strict=True):
                if a in hits:
                    assert v == 0.0
    ctx = G.Context("", 1 << 12, 0)
    ctx.new_search(s.s)  # without the history the repetition is not seen: the static value
    out = np.zeros(len(actions))
    ctx.search_root(actions, 1, out)
    i = actions.tolist().index(hits[0])
    assert out[i] == ev.evaluate(c)[s.current_player()] != 0.0
