"""Agents: wins in one, avoiding immediate losses, legality, determinism, tree reuse."""

import pytest

from ringgames import load_game
from ringgames.ai.agents import make_agent, parse_spec, with_seed
from ringgames.ai.alphabeta import WIN, AlphaBetaAgent
from ringgames.ai.levels import LEVELS, LevelAgent, spec_for
from ringgames.ai.match import play_game
from ringgames.ai.mcts import MCTSAgent
from ringgames.ai.tactics import is_win_for, wins_within_turn

SEARCHING = [
    "greedy:seed=1",
    "greedy:eval=0,seed=1",
    "mcts:iterations=100,seed=1",
    "mcts:iterations=100,rollout=0,safe=0,seed=1",
    "alphabeta:depth=2,seed=1",
    "level:1,seed=1",
    "level:3,scale=0.05,seed=1",
]


def play_turn(agent, state):
    """Let the agent take every decision of the current player's turn; returns the actions."""
    me = state.current_player()
    out = []
    while not state.is_terminal() and state.current_player() == me:
        a = agent.choose(state)
        assert a in state.legal_actions()
        state.apply_action(a)
        out.append(state.action_to_string(a) if not state.is_terminal() else a)
    return out


@pytest.mark.parametrize("spec", SEARCHING)
def test_completes_third_row_and_wins(spec, yinsh_win_in_one):
    s = yinsh_win_in_one
    turn = play_turn(make_agent(spec), s)
    assert len(turn) == 3  # move, row, ring: all chosen by the agent
    assert s.is_terminal() and s.winners() == (0,) and s.outcome().reason == "rings"


@pytest.mark.parametrize("spec", SEARCHING)
def test_defends_against_the_third_row(spec, yinsh_must_defend):
    s = yinsh_must_defend
    a = make_agent(spec).choose(s)
    assert s.action_to_string(a) in {"b3-d3", "b3-d5", "i11-b4"}
    s.apply_action(a)
    assert not wins_within_turn(s, 0, [100_000])


def test_random_does_not_defend_every_time(yinsh_must_defend):
    # the defence test above means something: most black moves lose at once
    s = yinsh_must_defend
    losing = 0
    for a in s.legal_actions():
        s.apply_action(a)
        losing += wins_within_turn(s, 0, [100_000])
        s.undo_action()
    assert losing == len(s.legal_actions()) - 3


@pytest.mark.parametrize("spec", ["random", "greedy:eval=0", "greedy", "mcts:iterations=30,rollout=10",
                                  "alphabeta:depth=1", "level:2"])
def test_whole_blitz_game_is_legal(spec):
    # play_game checks every action against legal_actions() and raises on an illegal one
    r = play_game("yinsh", [spec, "random"], index=0, seed=3, variant="blitz")
    assert r.reason in ("rings", "markers", "blocked")
    assert r.actions == len(r.history) > 10


def test_mcts_is_deterministic_with_a_seed():
    s = load_game("yinsh").new_initial_state()
    for t in "e3 a5 b5 c6 d6 e4 h7 g2 g3 g8".split():
        s.play(t)
    a1 = MCTSAgent(iterations=150, seed=7)
    a2 = MCTSAgent(iterations=150, seed=7)
    r1, r2 = a1.analyse(s), a2.analyse(s)
    assert r1["action"] == r2["action"] and r1["visits"] == r2["visits"] and r1["pv"] == r2["pv"]
    assert r1["iterations"] == 150


def test_mcts_reuses_its_tree():
    s = load_game("yinsh").new_initial_state()
    for t in "e3 a5 b5 c6 d6 e4 h7 g2 g3 g8".split():
        s.play(t)
    m = MCTSAgent(iterations=400, seed=1, safe=0)
    a = m.choose(s)
    s.apply_action(a)
    kids = m.root.children[a].children
    b = max(kids, key=lambda k: kids[k].n)  # a reply the tree has looked at
    node = kids[b]
    s.apply_action(b)
    m.choose(s)
    assert m.last["reused"] > 0 and m.root is node
    fresh = MCTSAgent(iterations=10, seed=1, reuse=0)
    fresh.choose(s)
    assert fresh.last["reused"] == 0


def test_alphabeta_search_finds_win_without_shortcut(yinsh_win_in_one, monkeypatch):
    import ringgames.ai.alphabeta as abmod

    monkeypatch.setattr(abmod, "winning_action", lambda state: None)
    s = yinsh_win_in_one
    res = abmod.AlphaBetaAgent(depth=1, seed=0).analyse(s.clone())
    assert res["value"] >= WIN - 10 and res["win_probability"] == 1.0
    assert len(res["pv"]) == 3  # move, row, ring
    for a in res["pv"]:
        s.apply_action(a)
    assert is_win_for(s, 0)


def test_mcts_search_finds_win_without_shortcut(yinsh_win_in_one, monkeypatch):
    import ringgames.ai.mcts as mmod

    monkeypatch.setattr(mmod, "winning_action", lambda state: None)
    s = yinsh_win_in_one
    res = mmod.MCTSAgent(iterations=400, seed=0, rollout=0).analyse(s)
    s.apply_action(res["action"])
    assert wins_within_turn(s, 0, [1000])
    assert res["win_probability"] > 0.9


def test_specs_and_levels():
    assert parse_spec("mcts:iterations=2000,c=1.4") == ("mcts", {"iterations": 2000, "c": 1.4})
    assert parse_spec("level:4") == ("level", {"value": 4})
    assert with_seed("greedy", 5) == "greedy:seed=5" and with_seed("mcts:seed=1", 5) == "mcts:seed=1"
    assert spec_for("yinsh", 5) == LEVELS["yinsh"][5]
    assert spec_for("yinsh", 3, scale=0.1) == "search:time=0.08"
    assert spec_for("yinsh", 3, scale=0.1, baseline=True) == "alphabeta:time=0.05"
    assert set(LEVELS["yinsh"]) == {1, 2, 3, 4, 5}
    lv = LevelAgent(value=2)
    s = load_game("yinsh").new_initial_state()
    assert lv.choose(s) in s.legal_actions()
    assert type(lv.agent_for("yinsh")).__name__ == "GreedyAgent"
    assert spec_for("rings", 4) == "search:time=2,min=2" and spec_for("rings", 4, scale=0.1) == "search:time=0.2,min=2" and spec_for("rings", 4, players=4) == "uct:time=1,c=0.2"
    with pytest.raises(ValueError):
        make_agent("level:6")
    with pytest.raises(ValueError):
        make_agent("nosuch")



def test_level_threads_reach_the_compiled_search_and_are_limited_like_the_engines():
    from ringgames.ai.levels import MAX_LEVEL_THREADS
    from ringgames.engine import MAX_ENGINE_THREADS

    assert MAX_ENGINE_THREADS == MAX_LEVEL_THREADS == max(2, min(64, __import__("os").cpu_count() or 1))
    lv = make_agent("level:4,threads=2")
    for game, players in (("yinsh", 2), ("gyges", 2), ("rings", 2), ("rings", 3)):
        agent = lv.agent_for(game, players)
        assert (type(agent).__name__, agent.threads) == ("CompiledAlphaBetaAgent", 2), (game, players)
    assert make_agent("level:4").agent_for("yinsh").threads == 1
    scaled = make_agent("level:4,scale=0.1,threads=2,seed=3").agent_for("yinsh")
    assert (scaled.threads, scaled.time_limit) == (2, 0.2)
    # greedy and MCTS levels have no threaded search: threads is a ceiling there, as in the engine protocol
    assert type(make_agent("level:2,threads=2").agent_for("yinsh")).__name__ == "GreedyAgent"
    assert type(lv.agent_for("rings", 4)).__name__ == "CompiledMCTSAgent"
    for bad in ("0", str(MAX_LEVEL_THREADS + 1), "1.5", "two"):
        with pytest.raises(ValueError, match=f"threads must be 1–{MAX_LEVEL_THREADS}, not"):
            make_agent(f"level:5,threads={bad}")
    with pytest.raises(ValueError, match="baseline:5 plays the frozen levels"):
        make_agent("baseline:5,threads=2")
    assert type(make_agent("baseline:5,threads=1").agent_for("yinsh")).__name__ == "AlphaBetaAgent"

def _three_rows_position():
    """White to move; d6-h6 flips e6, f6, g6, each completing a column of five: three rows, three rings, a win."""
    from ringgames.games.yinsh.board import _INDEX, COLUMNS, NUM_POINTS
    from ringgames.games.yinsh.notation import format_position

    def p(name):
        return _INDEX[(COLUMNS.index(name[0]), int(name[1:]))]

    b = [0] * NUM_POINTS
    for c in "efg":
        for r in (4, 5, 7, 8):
            b[p(f"{c}{r}")] = 1
        b[p(f"{c}6")] = 2
    for n in ("d6", "a2", "a3", "a4", "a5"):
        b[p(n)] = 3
    for n in ("k7", "k8", "k9", "k10", "j11"):
        b[p(n)] = 4
    return format_position(b, 0, "move", (0, 0), None, 0)


def test_yinsh_three_rows_in_one_move_is_a_win_in_one():
    from ringgames.ai.evaluation.yinsh import may_win_within_turn
    from ringgames.ai.tactics import winning_action

    s = load_game("yinsh").state_from_position(_three_rows_position())
    assert tuple(s.removed) == (0, 0) and s.game.rings_to_win == 3
    assert may_win_within_turn(s)  # the old shortcut (removed + 2 >= 3) said False here
    a = winning_action(s)
    assert a is not None and s.action_to_string(a) == "d6-h6"
    assert AlphaBetaAgent(depth=1, seed=0).choose(s) == a
    # with only the 12 markers of the start of this position, and after it, the filter still prunes:
    early = load_game("yinsh").new_initial_state()
    for m in "e3 a5 b5 c6 d6 e4 h7 g2 g3 g8".split():
        early.play(m)
    assert not may_win_within_turn(early)


def test_alphabeta_min_depth_completes_past_the_time_budget():
    s = load_game("rings").new_initial_state()
    for _ in range(6):
        s.apply_action(s.legal_actions()[len(s.legal_actions()) // 2])
    r1 = AlphaBetaAgent(time=1e-6, seed=0).analyse(s.clone())
    r2 = AlphaBetaAgent(time=1e-6, seed=0, min=2).analyse(s.clone())
    assert r1["depth"] == 1 and r2["depth"] == 2 and r2["nodes"] > r1["nodes"]
    assert make_agent("alphabeta:time=0.5,min=2").min_depth == 2


@pytest.mark.parametrize("game_name", ["yinsh", "gyges", "rings"])
def test_mcts_full_playouts_run_in_the_kernel(game_name, monkeypatch):
    # rollout=-1 (to the end) values each new leaf with one kernel playout, not a Python loop
    s = load_game(game_name).new_initial_state()
    for _ in range(3):
        s.apply_action(s.legal_actions()[0])
    calls = []
    cls = type(s)
    real = cls.random_playouts

    def counting(self, count, seed=0, **kw):
        calls.append(count)
        return real(self, count, seed=seed, **kw)

    monkeypatch.setattr(cls, "random_playouts", counting)
    a = MCTSAgent(iterations=60, seed=2, rollout=-1, safe=0).choose(s)
    assert a in s.legal_actions()
    assert len(calls) >= 50 and set(calls) == {1}
    # a playout length limit keeps the protocol loop (and the evaluation at the limit)
    calls.clear()
    MCTSAgent(iterations=20, seed=2, rollout=5, safe=0).choose(s)
    assert calls == []
