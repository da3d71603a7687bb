"""The same agents on Gygès and RINGS (2 and 3 players): wins in one, defence, legality."""

import pytest

from ringgames.ai.agents import make_agent
from ringgames.ai.match import play_game, run_match
from ringgames.ai.tactics import is_win_for, wins_within_turn

SEARCHING = [
    "greedy:seed=1",
    "greedy:eval=0,seed=1",
    "mcts:iterations=100,seed=1,rollout=0",
    "alphabeta:depth=2,seed=1",
    "level:1,seed=1",
    "level:3,scale=0.05,seed=1",
]


@pytest.mark.parametrize("spec", SEARCHING)
def test_gyges_reaches_the_goal(spec, gyges_win_in_one):
    s = gyges_win_in_one
    a = make_agent(spec).choose(s)
    s.apply_action(a)
    assert s.is_terminal() and s.winners() == (0,) and s.outcome().reason == "goal"


def test_gyges_win_is_unique(gyges_win_in_one):
    s = gyges_win_in_one
    wins = 0
    for a in s.legal_actions():
        s.apply_action(a)
        wins += is_win_for(s, 0)
        s.undo_action()
    assert wins == 1 and len(s.legal_actions()) == 223


@pytest.mark.parametrize("spec", SEARCHING)
def test_gyges_blocks_the_goal(spec, gyges_must_defend):
    s = gyges_must_defend
    a = make_agent(spec).choose(s)
    s.apply_action(a)
    # brute force over every North reply: none may reach South's goal
    for b in s.legal_actions():
        s.apply_action(b)
        assert not is_win_for(s, 1), s.action_to_string(b)
        s.undo_action()


def test_gyges_most_moves_lose(gyges_must_defend):
    s = gyges_must_defend
    losing = 0
    for a in s.legal_actions():
        s.apply_action(a)
        losing += wins_within_turn(s, 1, [10_000])
        s.undo_action()
    assert (len(s.legal_actions()), losing) == (63, 56)


@pytest.mark.parametrize("spec", SEARCHING)
def test_rings_pass_and_convert_to_win(spec, rings_win_in_one):
    s = rings_win_in_one
    agent = make_agent(spec)
    turn = []
    while not s.is_terminal() and s.current_player() == 0:
        a = agent.choose(s)
        assert a in s.legal_actions()
        turn.append(s.action_to_string(a))
        s.apply_action(a)
    assert turn == ["pass", "xLM12"]
    assert s.is_terminal() and s.winners() == (0,) and s.scores() == [1, 0]


def test_rings_decider_is_not_won_by_ending(rings_win_in_one):
    s = rings_win_in_one
    s.play("pass")
    s.play("end")  # passing without the conversion: 1-1, a shared win
    assert s.is_terminal() and s.winners() == (0, 1)


@pytest.mark.parametrize("spec", ["greedy", "alphabeta:depth=1", "mcts:iterations=20,rollout=0", "level:2"])
def test_whole_gyges_game_is_legal(spec):
    r = play_game("gyges", [spec, "random"], index=1, seed=4)
    assert r.reason in ("goal", "repetition") and r.actions >= 3


@pytest.mark.parametrize("spec", ["greedy", "mcts:iterations=10,rollout=0"])
def test_whole_rings_game_is_legal(spec):
    r = play_game("rings", [spec, "random"], index=0, seed=4)
    assert r.reason == "passes" and r.actions > 100


def test_three_player_rings_mcts_beats_randoms():
    # per-player rewards: MCTS in a 3-player game, seated once in each position
    res = run_match("rings", ["mcts:iterations=30,rollout=0", "random", "random:seed=9"], games=3, seed=1, players=3)
    assert res["games"] == 3 and res["score"] >= 0.75
