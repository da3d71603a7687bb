"""The compiled MCTS (``uct:``, issue #35): the Python agent's rewards, a tree whose counts add up, legal play."""

import random

import numpy as np
import pytest

from ringgames import load_game
from ringgames.ai.agents import make_agent
from ringgames.ai.compiled import ops, uct
from ringgames.ai.compiled.uct import CompiledMCTSAgent
from ringgames.ai.evaluation import get_evaluator, reward
from ringgames.games.rings import kernel as RK


def _positions(game, players, count, seed, every=4):
    """Every ``every``-th position of seeded random games, and each game's end."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        s = load_game(game, players=players).new_initial_state()
        ply = 0
        while len(out) < count:
            if s.is_terminal() or ply % every == 0:
                out.append(s.clone())
            if s.is_terminal():
                break
            s.apply_action(rng.choice(s.legal_actions()))
            ply += 1
    return out


def _python_rewards(s):
    """What :class:`~ringgames.ai.mcts.MCTSAgent` backs up from a leaf (``rollout=0``)."""
    n = s.num_players
    if s.is_terminal():
        return [(r + 1.0) / 2.0 for r in s.returns()]
    evaluate, scale = get_evaluator(s.game.name)
    v = evaluate(s)
    if n == 2:
        return [(reward(x, scale) + 1.0) / 2.0 for x in v]
    return [(reward(x - max(v[q] for q in range(n) if q != p), scale) + 1.0) / 2.0 for p, x in enumerate(v)]


def _compiled_rewards(tree, s):
    out = np.zeros(max(2, s.num_players))
    over = uct.rewards(tree.game, s.s, s.num_players, tree.scale, tree.wts, tree.wtab, tree.buf, out)
    return bool(over), out[: s.num_players].tolist()


@pytest.mark.parametrize("game,players", [("yinsh", 2), ("rings", 2), ("rings", 3), ("rings", 4), ("rings", 6)])
def test_the_leaf_rewards_are_the_python_agent_s(game, players):
    tree = uct.Tree(game, players, 1000, 2)
    positions = _positions(game, players, 400, seed=11 + players)
    ends = 0
    for s in positions:
        over, got = _compiled_rewards(tree, s)
        assert over == s.is_terminal()
        ends += over
        assert got == pytest.approx(_python_rewards(s), abs=1e-12), s.position()
    assert ends >= 1  # finished games (their returns) were among them
    assert len({round(x, 6) for s in positions[:50] for x in _compiled_rewards(tree, s)[1]}) > 10  # not constant


def _convert_all(state):
    """``convert=all`` played through the protocol: every conversion the seat to move has, until none is left."""
    while not state.is_terminal():
        conv = [a for a in state.legal_actions() if RK.CONVERT0 <= a < RK.END]
        if not conv:
            break
        state.apply_action(conv[0])


def _check_node(t, i, state, evaluated, expand, convert=False):
    """The counts of node ``i`` (whose position is ``state``) and its subtree add up; returns the subtree's size.
    ``convert``: the tree played a seat's conversions all at once after each of its actions (``convert=all``)."""
    kids = []
    c = int(t.child[i])
    while c >= 0:
        kids.append(c)
        c = int(t.sib[c])
    acts = [int(t.act[c]) for c in kids]
    assert len(set(acts)) == len(acts), "an action with two children"
    legal = set(state.legal_actions())
    assert set(acts) <= legal
    assert int(t.nnext[i]) == len(kids)
    if kids and i != 0:
        assert int(t.nleg[i]) == len(legal)
    own = 0
    if evaluated:  # a node is evaluated when it is made, and each visit while it stays a leaf
        own = int(t.vis[i]) if t.term[i] else min(int(t.vis[i]), expand - 1)
        if t.term[i]:
            assert state.is_terminal() and not kids
    assert int(t.vis[i]) == own + sum(int(t.vis[c]) for c in kids)
    if own:
        leaf = _python_rewards(state)
        expect = [own * r + sum(float(t.w[c, p]) for c in kids) for p, r in enumerate(leaf)]
        assert [float(x) for x in t.w[i]] == pytest.approx(expect, rel=1e-4, abs=1e-3)
    size = 1
    for c in kids:
        child = state.clone()
        child.apply_action(int(t.act[c]))
        if convert:
            _convert_all(child)
            # below the root every node is a placement or a pass: no conversion or end is a decision there
            assert child.is_terminal() or child.legal_actions()[-1] == RK.PASS
        size += _check_node(t, c, child, True, expand, convert)
    return size


@pytest.mark.parametrize("players,expand", [(2, 2), (3, 2), (4, 2), (4, 3)])
def test_the_tree_s_visits_and_rewards_add_up(players, expand):
    rng = random.Random(players)
    s = load_game("rings", players=players).new_initial_state()
    for _ in range(12 * players):
        s.apply_action(rng.choice(s.legal_actions()))
    agent = CompiledMCTSAgent(iterations=3000, seed=5, safe=0, expand=expand)
    root = agent.search(s.clone())
    t = root.tree
    assert agent.iterations_done == 3000 and root.n == 3000
    assert _check_node(t, 0, s, False, expand) == t.used
    depth, node = 0, root
    while node.children:
        node = max(node.children.values(), key=lambda v: v.n)
        depth += 1
    assert depth >= 2  # the tree grew below the root's children


def test_the_tree_stops_growing_when_its_slots_are_used_up():
    s = load_game("rings", players=3).new_initial_state()
    agent = CompiledMCTSAgent(iterations=20_000, seed=1, safe=0, nodes=10_000)
    root = agent.search(s.clone())
    assert root.tree.used == 10_000 and root.n == 20_000
    assert sum(ch.n for ch in root.children.values()) == 20_000


def test_a_seed_and_an_iteration_budget_repeat_the_search():
    s = _positions("rings", 4, 60, seed=3, every=1)[-1]
    a = CompiledMCTSAgent(iterations=2000, seed=9)
    b = CompiledMCTSAgent(iterations=2000, seed=9)
    ra, rb = a.analyse(s.clone()), b.analyse(s.clone())
    assert a.root_visits() == b.root_visits() and ra["action"] == rb["action"]
    assert sum(a.root_visits().values()) == 2000
    c = CompiledMCTSAgent(iterations=2000, seed=10)
    c.analyse(s.clone())
    assert c.root_visits() != a.root_visits()


def test_the_root_leaves_out_actions_that_hand_the_next_player_a_win(yinsh_must_defend):
    # Black to move; most moves leave White its winning row: with safe=1 only the parries are searched
    from ringgames.ai.tactics import safe_actions

    s = yinsh_must_defend
    legal = s.legal_actions()
    safe = safe_actions(s, legal)
    assert 0 < len(safe) < len(legal) / 4
    agent = CompiledMCTSAgent(iterations=500, seed=1)
    agent.analyse(s.clone())
    assert set(agent.root_visits()) == set(safe)
    unsafe = CompiledMCTSAgent(iterations=500, seed=1, safe=0)
    unsafe.analyse(s.clone())
    assert len(unsafe.root_visits()) > len(safe)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_games_are_played_to_the_end(players):
    g = load_game("rings", players=players)
    s = g.new_initial_state()
    agents = [make_agent(f"uct:iterations=60,seed={p}") for p in range(players)]
    n = 0
    while not s.is_terminal():
        a = agents[s.current_player()].choose(s)
        assert a in s.legal_actions()
        s.apply_action(a)
        n += 1
    assert n > 50 and s.returns() and abs(sum(s.returns())) < 1e-9


def test_a_game_without_a_compiled_tree_uses_the_python_one():
    s = load_game("gyges").new_initial_state()
    agent = make_agent("uct:iterations=200,seed=1")
    assert agent.choose(s) in s.legal_actions()
    assert agent.iterations_done == 200


def test_the_search_beats_random_play_at_rings_with_four_players():
    wins = 0
    for g in range(2):
        s = load_game("rings", players=4).new_initial_state()
        agents = {0: make_agent(f"uct:iterations=400,seed={g}"), 2: make_agent(f"uct:iterations=400,seed={g + 9}")}
        rng = random.Random(g)
        while not s.is_terminal():
            p = s.current_player()
            s.apply_action(agents[p].choose(s) if p in agents else rng.choice(s.legal_actions()))
        wins += sum(1 for p in (0, 2) if s.returns()[p] > 0)
    assert wins >= 2  # seats 0 and 2 (the search) against two random seats: it wins every game


@pytest.mark.parametrize("spec,msg", [("uct:nodes=5", "nodes"), ("uct:expand=0", "expand"),
                                      ("uct:nodes=99999999999", "at most"), ("uct:eval=3", "eval"),
                                      ("uct:convert=some", "convert must be one of all, search"),
                                      ("uct:quiesce=2", "quiesce must be 0 or 1")])
def test_bad_options_are_refused(spec, msg):
    with pytest.raises(ValueError, match=msg):
        make_agent(spec)


def test_the_view_reads_like_the_python_tree():
    s = _positions("rings", 3, 40, seed=2, every=1)[-1]
    agent = CompiledMCTSAgent(iterations=20_000, seed=2, c=0.1)
    res = agent.analyse(s.clone())
    assert res["iterations"] == 20_000 and 10_000 < res["nodes"] <= 20_001
    visits = agent.root_visits()
    assert visits[res["action"]] == max(visits.values()) and sum(visits.values()) == 20_000
    assert 0.0 < res["value"] < 1.0 and res["pv"][0] == res["action"] and len(res["pv"]) >= 2
    assert ops.GAMES.keys() == uct.GAMES


def test_the_analysis_board_searches_three_or_more_seats_with_the_compiled_tree():
    from ringgames.ai.analysis import analyse_state

    s = _positions("rings", 4, 6, seed=41, every=12)[5]
    assert not s.is_terminal() and len(s.legal_actions()) > 4
    got = analyse_state(s, 30.0, iterations=3000, alternatives=2)
    # the same seeded search, read directly: the most visited root actions, each with every seat's mean reward
    root = CompiledMCTSAgent(iterations=3000, time=30.0, seed=0).search(s.clone())
    kids = sorted(root.children.items(), key=lambda t: (-t[1].n, t[0]))
    assert got["search"] == "mcts" and got["iterations"] == 3000
    assert sum(ch.n for _, ch in kids) == root.n == 3000
    assert got["pv"][0] == s.action_to_string(kids[0][0])
    assert got["eval"] == [round(w / kids[0][1].n, 4) for w in kids[0][1].w]
    assert [a["move"] for a in got["alternatives"]] == [s.action_to_string(a) for a, _ in kids[1:3]]



def _turn_that_goes_on(make, players=4, seed=11):
    """A RINGS position, an agent from ``make()`` that decided there, its placement and the position after it, where
    the placement leaves the agent's seat more decisions (conversions)."""
    rng = random.Random(seed)
    s = load_game("rings", players=players).new_initial_state()
    while not s.is_terminal():
        me = s.current_player()
        if len(s.history) > 8 * players and s.legal_actions()[-1] == 216:  # placing (pass is the last action)
            agent = make()
            a = agent.choose(s.clone())
            after = s.clone()
            after.apply_action(a)
            if not after.is_terminal() and after.current_player() == me:
                return s, agent, a, after
        s.apply_action(rng.choice(s.legal_actions()))
    raise AssertionError("no placement that goes on with a conversion")


def test_the_rest_of_a_turn_is_played_from_the_tree_without_a_search():
    s, agent, a, after = _turn_that_goes_on(lambda: CompiledMCTSAgent(iterations=20_000, seed=1))
    me = s.current_player()
    assert agent._plan and after.position() in agent._plan
    planned = agent._plan[after.position()]
    done = agent.iterations_done
    assert agent.choose(after.clone()) == planned and agent.planned == 1
    assert agent.iterations_done == done and agent.root_visits() == {planned: 1}  # no search
    # the plan is the tree's most visited line below the placement, every step by the same seat
    fresh = CompiledMCTSAgent(iterations=20_000, seed=1)
    root = fresh.search(s.clone())
    best = max(root.children[a].children.items(), key=lambda kv: kv[1].n)
    assert best[0] == planned and best[1].n >= uct.PLAN_VISITS and after.current_player() == me
    # a position the agent did not reach by its own decision is searched, plan or not
    other = CompiledMCTSAgent(iterations=2000, seed=1)
    other._plan = dict(agent._plan)
    other.choose(after.clone())
    assert other.planned == 0 and other.iterations_done == 2000


def test_a_turn_s_later_decisions_get_what_is_left_of_its_time(monkeypatch):
    _, agent, _, after = _turn_that_goes_on(lambda: CompiledMCTSAgent(time=0.2, seed=1))
    agent._plan = {}  # a decision the tree did not settle: searched
    seen = []
    real = agent.analyse
    monkeypatch.setattr(agent, "analyse", lambda st, limit=None: seen.append(limit) or real(st, limit))
    agent.choose(after)
    assert seen == [pytest.approx(0.2 * uct.TURN_FLOOR)]  # the placement's search took the whole 0.2 s


@pytest.mark.parametrize("players", [2, 4])
def test_with_convert_all_the_tree_s_nodes_are_placements_and_its_counts_add_up(players):
    def conversions(tree):
        return sum(1 for a in tree.act[1:tree.used].tolist() if RK.CONVERT0 <= a <= RK.END)

    # a middle-game placement of searched play where the plain tree has many conversion nodes
    s = load_game("rings", players=players).new_initial_state()
    agents = [make_agent(f"uct:iterations=200,c=0.2,seed={p}") for p in range(players)]
    while True:
        assert not s.is_terminal(), "no position with conversions in the tree"
        if len(s.history) >= 40 * players and s.legal_actions()[-1] == RK.PASS:
            plain = CompiledMCTSAgent(iterations=3000, seed=5, safe=0, c=0.2).search(s.clone()).tree
            if conversions(plain) >= 50:
                break
        s.apply_action(agents[s.current_player()].choose(s))
    agent = CompiledMCTSAgent(iterations=3000, seed=5, safe=0, c=0.2, convert="all")
    t = agent.search(s.clone()).tree
    assert _check_node(t, 0, s, False, 2, convert=True) == t.used
    assert conversions(t) == 0


def test_convert_all_is_every_conversion_in_any_order():
    rng = random.Random(7)
    seen = 0
    for s in _positions("rings", 4, 600, seed=17, every=1):
        conv = [a for a in s.legal_actions() if RK.CONVERT0 <= a < RK.END]
        if s.is_terminal() or not conv:
            continue
        seen += 1
        me = s.current_player()
        work = s.s.copy()
        uct.convert_all(work)
        # the same conversions through the protocol, in a random order, then the turn's end
        other = s.clone()
        while not other.is_terminal() and other.current_player() == me:
            acts = other.legal_actions()
            conv = [a for a in acts if RK.CONVERT0 <= a < RK.END]
            other.apply_action(rng.choice(conv) if conv else acts[-1])
        assert work.tolist() == other.s.tolist()
        assert work[RK.PHASE] == RK.PH_PLACE and (RK.is_over(work) or work[RK.MOVER] != me)
    assert seen >= 20


def test_with_convert_all_the_agent_plays_its_conversions_without_a_search():
    s, agent, a, after = _turn_that_goes_on(lambda: CompiledMCTSAgent(iterations=5000, seed=1, convert="all"))
    me = s.current_player()
    assert agent._plan == {}
    done, n = agent.iterations_done, 0
    while not after.is_terminal() and after.current_player() == me:
        conv = [x for x in after.legal_actions() if RK.CONVERT0 <= x < RK.END]
        x = agent.choose(after.clone())
        assert x == conv[0]  # the first circle it can convert, never end while one is left
        after.apply_action(x)
        n += 1
    assert n >= 1 and agent.planned == n and agent.iterations_done == done  # no search


def test_a_game_with_convert_all_is_played_to_the_end():
    s = load_game("rings", players=4).new_initial_state()
    agents = [make_agent(f"uct:iterations=80,seed={p},convert=all") for p in range(4)]
    while not s.is_terminal():
        a = agents[s.current_player()].choose(s)
        assert a in s.legal_actions()
        assert a != RK.END  # a seat converts everything it can
        s.apply_action(a)
    assert sum(ag.planned for ag in agents) > 0 and abs(sum(s.returns())) < 1e-9


def test_settle_is_every_seat_s_pending_conversions_in_turn_order():
    """The quiescence (``quiesce=1``) against the protocol: each seat in turn passes and converts all it can."""
    seen = 0
    for s in _positions("rings", 4, 2000, seed=23, every=1):
        if s.is_terminal() or s.legal_actions()[-1] != RK.PASS or s.s[RK.PASSES] != 0 \
                or not any(s.s[RK.CONV + c] >= 0 for c in range(RK.NC)):
            continue
        seen += 1
        work = s.s.copy()
        uct.settle(work)
        other = s.clone()
        for _ in range(4):  # four pass turns: the game ends after the last one's conversions
            other.apply_action(RK.PASS)
            _convert_all(other)
        assert other.is_terminal()
        assert work[RK.OWNER:RK.OWNER + RK.NP].tolist() == other.s[RK.OWNER:RK.OWNER + RK.NP].tolist()
        assert work[RK.CONV_COUNT + (s.s[RK.MOVER] + 3) % 4] == 0  # the last seat left itself nothing to convert
        assert work[RK.MOVER] == s.s[RK.MOVER] and work[RK.PHASE] == RK.PH_PLACE
    assert seen >= 10


def test_with_quiesce_a_leaf_is_valued_after_its_pending_conversions():
    s = next(p for p in _positions("rings", 4, 2000, seed=23, every=1)
             if not p.is_terminal() and any(p.s[RK.CONV + c] >= 0 for c in range(RK.NC)))
    tree = uct.Tree("rings", 4, 1000, 2, quiesce=1)
    out = np.zeros(4)
    work = s.s.copy()
    uct.leaf(tree.game, work, 4, tree.scale, tree.wts, tree.wtab, tree.buf, out, tree.ctl)
    settled = s.s.copy()
    uct.settle(settled)
    expect = np.zeros(4)
    uct.rewards(tree.game, settled, 4, tree.scale, tree.wts, tree.wtab, tree.buf, expect)
    plain = np.zeros(4)
    uct.rewards(tree.game, s.s.copy(), 4, tree.scale, tree.wts, tree.wtab, tree.buf, plain)
    assert out.tolist() == expect.tolist() and out.tolist() != plain.tolist()
    agent = make_agent("uct:iterations=500,seed=1,quiesce=1,convert=all")
    assert agent.choose(s.clone()) in s.legal_actions()


def test_with_convert_all_the_principal_variation_is_the_game_s_decisions():
    s, agent, a, after = _turn_that_goes_on(lambda: CompiledMCTSAgent(iterations=20_000, seed=1, c=0.2, convert="all"))
    res = agent.analyse(s.clone())
    pv, w, seats = res["pv"], s.clone(), set()
    assert pv[0] == res["action"]
    for x in pv:  # every step legal where it stands: the conversions after each placement are in the line
        assert x in w.legal_actions()
        seats.add(w.current_player())
        w.apply_action(x)
    assert any(RK.CONVERT0 <= x < RK.END for x in pv) and len(seats) >= 2
