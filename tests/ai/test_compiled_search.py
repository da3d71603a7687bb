"""The compiled search (``search:``, issue #35) for YINSH and RINGS (two players, and 3–6 players paranoid): the
same evaluations and values as the Python search, faster."""

import random
import threading
import time
from unittest import mock

import numpy as np
import pytest

from ringgames import load_game
from ringgames.ai.agents import make_agent
from ringgames.ai.alphabeta import WIN, AlphaBetaAgent
from ringgames.ai.compiled import tree
from ringgames.ai.compiled.agent import CompiledAlphaBetaAgent
from ringgames.ai.evaluation import yinsh as Y


def _random_positions(count, seed, min_plies=0, game="yinsh", players=2):
    """Positions of seeded random games (every phase: placing, moves, rows, rings)."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        s = load_game(game, players=players).new_initial_state()
        ply = 0
        while not s.is_terminal() and len(out) < count:
            if ply >= min_plies:
                out.append(s.clone())
            s.apply_action(rng.choice(s.legal_actions()))
            ply += 1
    return out


@pytest.mark.parametrize("eval_name", ["", "tuned"])
def test_the_compiled_evaluation_equals_the_python_one(eval_name):
    ctx = tree.Context("yinsh", eval_name, tt=1024)
    evaluate = Y.evaluator(eval_name)[0]
    phases = set()
    positions = _random_positions(600, seed=7)
    for s in positions:
        me = s.current_player()
        phases.add(s.phase)
        assert ctx.evaluate(s.s, me) == pytest.approx(evaluate(s)[me], rel=1e-12, abs=1e-9), s.position()
    assert phases == {"place", "move", "row", "ring"}


def _middle_game(seed, plies=24, game="yinsh", players=2):
    rng = random.Random(seed)
    s = load_game(game, players=players).new_initial_state()
    for _ in range(plies):
        s.apply_action(rng.choice(s.legal_actions()))
    return s


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_each_depth_gives_the_python_search_s_value(seed):
    s = _middle_game(seed, 20 + 3 * seed)
    assert not s.is_terminal()
    for depth in (1, 2, 3):
        py = AlphaBetaAgent(depth=depth, safe=0, seed=0).analyse(s.clone())
        c = CompiledAlphaBetaAgent(depth=depth, safe=0, seed=0).analyse(s.clone())
        assert c["value"] == py["value"], (seed, depth)
        assert c["depth"] == depth
        assert c["nodes"] > 0


def test_a_row_and_ring_turn_is_searched_as_one_unit():
    # White has a row to take (phase "row"): the row and the ring removal are searched without using depth
    s = load_game("yinsh").state_from_position(
        "B1b1/1w2b2/2bbb3/2b1wB2W/bWbw1wbWb1/BBwb3wW/1bbw1b1bb1/bbwBwwwww/bbwbwwwW/6w/4 w row 0:0 w 0")
    for depth in (1, 2):
        py = AlphaBetaAgent(depth=depth, safe=0, seed=0).analyse(s.clone())
        c = CompiledAlphaBetaAgent(depth=depth, safe=0, seed=0).analyse(s.clone())
        assert c["value"] == py["value"]
        assert c["action"] in s.legal_actions()


def test_the_principal_variation_is_a_legal_line():
    s = _middle_game(11)
    r = CompiledAlphaBetaAgent(depth=4, seed=0).analyse(s.clone())
    assert r["pv"][0] == r["action"] and len(r["pv"]) >= 3
    w = s.clone()
    for a in r["pv"]:
        assert a in w.legal_actions()
        w.apply_action(a)


def test_a_stop_request_ends_an_unbounded_search():
    s = _middle_game(5)
    stop = threading.Event()
    agent = CompiledAlphaBetaAgent(time=3600, seed=0)
    threading.Timer(0.3, stop.set).start()
    t0 = time.perf_counter()
    r = agent.analyse(s.clone(), time_limit=float("inf"), stop=stop)
    assert time.perf_counter() - t0 < 30  # stopped, not the hour
    assert r["action"] in s.legal_actions() and 1 <= r["depth"] < 64


def test_the_node_limit_is_honoured_once_the_first_depth_is_complete():
    s = _middle_game(6)
    r = CompiledAlphaBetaAgent(time=3600, seed=0).analyse(s.clone(), nodes=20_000)
    # checked every 512 nodes; the depth running when the limit passes is given up
    assert 20_000 <= r["nodes"] < 20_000 + 512
    small = CompiledAlphaBetaAgent(time=3600, seed=0).analyse(s.clone(), nodes=200_000)
    assert small["depth"] > r["depth"]


def test_a_winning_turn_is_found():
    # White (2 rings removed) has a row to take: taking it and then any ring wins
    s = load_game("yinsh").state_from_position(
        "B1b1/1w2b2/2bbb3/2b1wB3/bWbw1wbWb1/BBwb3w1/1bbw1b1bb1/bbwBwwwww/bbwbwwwW/6w/4 w row 2:0 w 0")
    ctx = tree.Context("yinsh", "", tt=1024)
    ctx.new_search(s.s)
    rows = np.array(s.legal_actions(), dtype=np.int32)
    out = np.zeros(len(rows))
    assert ctx.search_root(rows, 1, out) == len(rows)
    assert list(out) == [WIN - 2] * len(rows)  # won at the ring removal, one decision below the root's child
    s.apply_action(int(rows[0]))
    r = make_agent("search:depth=3").analyse(s.clone())
    assert r["value"] == WIN - 1 and r["win_probability"] == 1.0
    s.apply_action(r["action"])
    assert s.is_terminal() and s.returns()[0] > 0


def test_the_compiled_search_is_much_faster_per_node():
    # not a timing assertion: the same depth, the compiled search's own node count is a figure for bench;
    # here it is checked that a deeper search completes within the Python search's nodes for depth 3
    s = _middle_game(8)
    py = AlphaBetaAgent(depth=3, safe=0, seed=0).analyse(s.clone())
    c = CompiledAlphaBetaAgent(depth=3, safe=0, seed=0).analyse(s.clone())
    assert c["nodes"] <= 2 * py["nodes"]  # PVS + killers: no more nodes than the Python search (about)


def test_a_game_on_levels_and_the_engine_protocol_use_it():
    agent = make_agent("search:time=0.05,seed=1")
    assert isinstance(agent, AlphaBetaAgent) and agent.name == "search"
    s = load_game("yinsh").new_initial_state()
    for _ in range(14):
        a = agent.choose(s)
        assert a in s.legal_actions()
        s.apply_action(a)


# -- RINGS, two players ------------------------------------------------------------------------------

def test_the_compiled_rings_evaluation_equals_the_python_one():
    from ringgames.ai.evaluation import rings as R

    ctx = tree.Context("rings", "", tt=1024)
    positions = _random_positions(400, seed=3, game="rings")
    for s in positions:
        me = s.current_player()
        assert ctx.evaluate(s.s, me) == R.evaluate(s)[me], s.position()
    assert any(R.evaluate(s)[0] != 0 for s in positions)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_rings_each_depth_gives_the_python_search_s_value(seed):
    s = _middle_game(seed, 40 + 10 * seed, game="rings")
    assert not s.is_terminal()
    for depth in (1, 2):
        py = AlphaBetaAgent(depth=depth, safe=0, seed=0).analyse(s.clone())
        c = CompiledAlphaBetaAgent(depth=depth, safe=0, seed=0).analyse(s.clone())
        assert c["value"] == py["value"], (seed, depth)
        assert c["depth"] == depth and c["nodes"] > 0


# -- RINGS, 3–6 players: paranoid -------------------------------------------------------------------

@pytest.mark.parametrize("players", [3, 4, 6])
def test_the_compiled_paranoid_evaluation_equals_the_python_one(players):
    from ringgames.ai.compiled import ops
    from ringgames.ai.evaluation import rings as R

    ctx = tree.Context("rings", "", tt=1024)
    positions = _random_positions(150, seed=players, game="rings", players=players)
    nonzero = 0
    for s in positions:
        v = R.evaluate(s)
        for root in range(players):
            want = v[root] - max(v[p] for p in range(players) if p != root)  # AlphaBetaAgent._static
            for side, sign in ((0, 1.0), (1, -1.0)):
                got = ops.side_evaluate(ops.RINGS, s.s, side, root, ctx.wts, ctx.wtab, ctx.buf)
                assert got == pytest.approx(sign * want, abs=1e-9), (s.position(), root, side)
            nonzero += want != 0
    assert nonzero > 100


@pytest.mark.parametrize("players,seed,depths", [(3, 1, 2), (3, 2, 2), (4, 3, 1), (5, 4, 1)])
def test_rings_paranoid_each_depth_gives_the_python_search_s_value(players, seed, depths):
    # (the Python paranoid search takes 3-7 s for depth 2 of three players here, the compiled one 0.05 s)
    s = _middle_game(seed, 30 + 8 * seed, game="rings", players=players)
    assert not s.is_terminal()
    agent = CompiledAlphaBetaAgent(depth=1, safe=0, seed=0)
    for depth in range(1, depths + 1):
        py = AlphaBetaAgent(depth=depth, safe=0, seed=0).analyse(s.clone())
        agent.max_depth = depth
        c = agent.analyse(s.clone())
        assert c["value"] == pytest.approx(py["value"], abs=1e-9), (players, seed, depth)
        assert c["depth"] == depth and c["nodes"] > 0
    assert agent._ctx is not None and agent._ctx.ctl[tree.ROOT] == s.current_player()  # the compiled tree searched


def test_a_paranoid_search_values_the_end_of_a_game_as_the_python_one():
    # a few decisions before the end of random 3-player games: wins, losses and shared wins (by the kernel's
    # winners) give the root values of the Python search
    proven = 0
    for seed in range(8):
        rng = random.Random(seed)
        s = load_game("rings", players=3).new_initial_state()
        line = []
        while not s.is_terminal():
            line.append(rng.choice(s.legal_actions()))
            s.apply_action(line[-1])
        for back in (2, 4, 8):
            s = load_game("rings", players=3).new_initial_state()
            for a in line[:-back]:
                s.apply_action(a)
            py = AlphaBetaAgent(depth=2, safe=0, seed=0).analyse(s.clone())
            c = CompiledAlphaBetaAgent(depth=2, safe=0, seed=0).analyse(s.clone())
            assert c["value"] == pytest.approx(py["value"], abs=1e-9), (seed, back)
            proven += abs(py["value"]) >= WIN - 1000
    assert proven >= 3


def test_rings_three_player_games_to_the_end_on_the_compiled_search():
    s = load_game("rings", players=3).new_initial_state()
    agents = [make_agent("search:depth=2,seed=1"), make_agent("search:depth=1,seed=2"), make_agent("greedy:seed=3")]
    n = 0
    while not s.is_terminal() and n < 900:
        act = agents[s.current_player()].choose(s)
        assert act in s.legal_actions()
        s.apply_action(act)
        n += 1
    assert s.is_terminal() and len(s.winners()) >= 1
    assert agents[0]._ctx is not None and agents[0]._ctx.ctl[tree.ROOT] == 0


def test_rings_games_to_the_end_on_the_compiled_search():
    s = load_game("rings", players=2).new_initial_state()
    a, b = make_agent("search:depth=2,seed=1"), make_agent("search:depth=1,seed=2")
    n = 0
    while not s.is_terminal() and n < 600:
        act = (a if s.current_player() == 0 else b).choose(s)
        assert act in s.legal_actions()
        s.apply_action(act)
        n += 1
    assert s.is_terminal()


def test_a_yinsh_turn_with_a_row_and_a_ring_costs_one_search():
    # the search of the move also chose its row and ring (searched inside the move's tree): playing them needs
    # no new search, so the turn is one time budget, not three
    found = 0
    for seed in range(40):
        s = _middle_game(seed, 40)
        if s.is_terminal() or s.phase != "move":
            continue
        agent = CompiledAlphaBetaAgent(depth=2, safe=0, seed=0)
        me = s.current_player()
        a = agent.choose(s)
        s.apply_action(a)
        if s.is_terminal() or s.current_player() != me:
            continue
        found += 1
        pv = agent.last["pv"]
        with mock.patch.object(agent, "analyse", wraps=agent.analyse) as spy:
            b = agent.choose(s)
            assert b == pv[1] and spy.call_count == 0  # the row from the move's search, no search
            s.apply_action(b)
            if not s.is_terminal() and s.current_player() == me and len(pv) > 2:
                assert agent.choose(s) == pv[2] and spy.call_count == 0  # and the ring
        if found >= 2:
            break
    assert found >= 2


# -- threads (lazy SMP) ------------------------------------------------------------------------------

@pytest.mark.parametrize("game,seed,plies", [("yinsh", 3, 30), ("rings", 3, 60), ("gyges", 1, 8)])
def test_helper_threads_share_the_table_and_stop_with_the_search(game, seed, plies):
    s = _middle_game(seed, plies, game=game)  # positions that need a search (no win or forced move at the root)
    assert not s.is_terminal()
    one = CompiledAlphaBetaAgent(depth=3, safe=0, seed=0)
    two = CompiledAlphaBetaAgent(depth=3, safe=0, seed=0, threads=2)
    r1 = one.analyse(s.clone())
    before = threading.active_count()
    r2 = two.analyse(s.clone())
    assert threading.active_count() == before  # the helper was stopped and joined
    assert r1["depth"] == r2["depth"] == 3 and r2["action"] in s.legal_actions()
    helper = two._helpers[0]
    assert helper.tt_key is two._ctx.tt_key and helper.tt_move is two._ctx.tt_move  # one table
    assert helper.ctl[tree.NODES] > 0 and r2["nodes"] > two._ctx.ctl[tree.NODES]  # it searched; its nodes counted


def test_threads_must_be_a_sensible_count():
    for bad in (0, -1, 65, 1.5, True):
        with pytest.raises(ValueError, match="threads"):
            CompiledAlphaBetaAgent(depth=1, threads=bad)
    assert make_agent("search:time=1,threads=2").threads == 2


def test_three_player_rings_levels_use_the_paranoid_search_and_more_players_keep_mcts():
    from ringgames.ai.levels import spec_for

    assert spec_for("rings", 5, players=3) == "search:time=5,min=2"
    # level 3's cap (a hard ceiling that stands for the reply time) is not scaled
    assert spec_for("rings", 3, players=3, scale=0.1) == "search:time=0.05,min=2,cap=0.8"
    assert spec_for("rings", 3, players=3, scale=4) == "search:time=2,min=2,cap=3.2"  # lengthened with the budget
    # a paranoid depth 2 takes seconds there: compiled MCTS (level 5 with the turn's conversions at once, quiescent leaves)
    assert spec_for("rings", 5, players=4) == "uct:time=5,c=0.2,convert=all,quiesce=1"
    # four players' level 3 explores less than five and six players' (c=0.5 against c=1)
    assert spec_for("rings", 3, players=4, scale=0.1) == "uct:time=0.05,c=0.5"
    assert spec_for("rings", 3, players=5) == spec_for("rings", 3, players=6) == "uct:time=0.5"
    assert spec_for("rings", 5, players=6, scale=0.1) == "uct:time=0.5,c=0.2,convert=all,quiesce=1"
    assert spec_for("rings", 5, players=3, baseline=True) == "mcts:time=5,rollout=0"  # the frozen table stays
    level = make_agent("level:4,scale=0.05,seed=1")
    s = _middle_game(2, 30, game="rings", players=3)
    a = level.choose(s)
    assert a in s.legal_actions()
    inner = level.agent_for("rings", 3)
    assert isinstance(inner, CompiledAlphaBetaAgent) and inner._ctx.ctl[tree.ROOT] == s.current_player()
    assert level.agent_for("rings", 4) is not inner and not isinstance(level.agent_for("rings", 4), CompiledAlphaBetaAgent)
    level.retime(0.5)
    assert inner.time_limit == pytest.approx(1.0)  # level 4's 2 s at the new scale


def test_bad_search_options_get_a_clear_error_that_names_the_kind():
    for spec, words in [("search:min=x", "search min must be a whole number"), ("search:min=0", "search min must be"),
                        ("search:min=1.5", "search min must be"), ("search:time=x", "search time must be a positive"),
                        ("search:depth=0", "search depth must be"), ("alphabeta:min=0", "alphabeta min must be"),
                        ("search:cap=x", "search cap must be a positive number"), ("search:cap=-1", "search cap must be"),
                        ("alphabeta:cap=inf", "alphabeta cap must be")]:
        with pytest.raises(ValueError, match=words):
            make_agent(spec)
    assert make_agent("search:time=1,min=3").min_depth == 3
    assert make_agent("search:time=1,cap=0.8").cap == 0.8 and make_agent("search:time=1").cap is None


def _open_board_three_players():
    """Three-player RINGS after two placements: the third seat's paranoid depth 2 takes about 900,000 nodes (1.1 s
    on the project's machine; three-player level 3 replied in 1.6–2.6 s to such positions before its ``cap``)."""
    s = load_game("rings", None, 3).new_initial_state()
    for k in range(2):
        s.apply_action(random.Random(k).choice(s.legal_actions()))
    return s


@pytest.mark.parametrize("kind", ["search", "alphabeta"])
def test_cap_ends_a_search_before_its_least_depth(kind):
    s = _open_board_three_players()
    cap = 0.05 if kind == "search" else 0.3  # the Python search needs about 0.02 s for depth 1 here
    capped = make_agent(f"{kind}:time=0.01,min=2,cap={cap},seed=1")
    r = capped.analyse(s.clone())
    # the least depth was not completed: the best action of depth 1, or of the part of depth 2 searched
    assert r["depth"] == 1 and r["action"] in s.legal_actions() and r["seconds"] < cap + 0.5
    assert capped.choose(s.clone()) in s.legal_actions()
    # a limit given to analyse replaces the agent's budget and its cap (the engine's ``go depth``)
    assert capped.analyse(s.clone(), max_depth=1)["depth"] == 1
    if kind == "search":
        deep = capped.analyse(s.clone(), max_depth=2)
        assert deep["depth"] == 2 and deep["nodes"] > 100_000 and deep["seconds"] > 0.05
        # an explicit ceiling ends even a given depth
        assert capped.analyse(s.clone(), max_depth=2, ceiling=0.05)["depth"] == 1
    # a cap (or stop) that comes before any root action is searched answers the first of the root actions to
    # search (those that hand no one a win, shuffled), not the first legal action
    actions, first, done = make_agent(f"{kind}:time=0.01,min=2,seed=1")._root_actions(s.clone(), (), 0.0)
    assert not done and first["action"] == actions[0] != s.legal_actions()[0] and first["depth"] == 0


def _mid_turn(players: int, seed: int):
    """A RINGS state in the middle of a seat's turn (a conversion to decide after its placement), from random play."""
    rng = random.Random(seed)
    s = load_game("rings", None, players).new_initial_state()
    while not s.is_terminal():
        me = s.current_player()
        s.apply_action(rng.choice(s.legal_actions()))
        if not s.is_terminal() and s.current_player() == me:
            return s
    raise AssertionError("no turn with a conversion in this game")


def test_a_turn_s_later_decisions_share_its_budget():
    """A later decision of a turn that the plan does not settle is searched with what is left of the turn's budget
    (at least a tenth of it), not a whole budget again (three-player level 3 took 1 s for a placement and a
    conversion at 0.5 s a decision)."""
    from ringgames.ai.compiled import agent as compiled

    s = _mid_turn(3, 4)
    me = s.current_player()
    agent = CompiledAlphaBetaAgent(time=0.4, min=1, seed=1)
    limits: list = []
    real = agent.analyse

    def spy(state, time_limit=None, *args, **kwargs):
        limits.append(time_limit)
        return real(state, time_limit, *args, **kwargs)

    agent.analyse = spy  # type: ignore[method-assign]
    agent.choose(s)  # not known to continue a turn: the level's own budget
    assert limits == [None]
    for spent, low, high in ((0.3, 0.08, 0.1), (10.0, 0.04, 0.04)):
        agent._turn, agent._plan = (me, s.position(), time.perf_counter() - spent), {}
        agent.choose(s)
        assert low - 1e-3 <= limits[-1] <= high + 1e-3, (spent, limits)
    assert compiled.TURN_FLOOR == 0.1
    # with a cap, a later decision also gets what is left of the turn's cap (at least a tenth of it)
    ceilings: list = []

    def spy_ceiling(state, time_limit=None, *args, ceiling=None, **kwargs):
        ceilings.append(ceiling)
        return real(state, time_limit, *args, ceiling=ceiling, **kwargs)

    agent.cap = 0.8
    agent.analyse = spy_ceiling  # type: ignore[method-assign]
    agent._turn, agent._plan = (me, s.position(), time.perf_counter() - 0.3), {}
    agent.choose(s)
    assert 0.45 <= ceilings[-1] <= 0.5 + 1e-3, ceilings
    agent._turn, agent._plan = None, {}
    agent.choose(s)  # a fresh decision: the agent's own budget and cap
    assert ceilings[-1] is None
    agent.analyse = spy  # type: ignore[method-assign]
    # a turn that continues is followed: after the agent's decision here, the seat's next decision (if any) is its turn's
    agent._turn = None
    a = agent.choose(s)
    after = s.clone()
    after.apply_action(a)
    if not after.is_terminal() and after.current_player() == me:
        assert agent._turn is not None and agent._turn[:2] == (me, after.position())
    else:
        assert agent._turn is None
