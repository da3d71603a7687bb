"""Alpha-beta's optional speed-ups give the same search results as the plain protocol path."""

from __future__ import annotations

import random

from ringgames import load_game
from ringgames.ai.alphabeta import AlphaBetaAgent
from ringgames.games.gyges.state import GygesState


def _gyges_positions(seed: int, n: int) -> list[str]:
    game = load_game("gyges")
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        s = game.new_initial_state()
        for _ in range(2 + rng.randrange(4, 20)):
            if s.is_terminal():
                break
            s.apply_action(rng.choice(s.legal_actions()))
        if not s.is_terminal() and not s.goal_reachable():  # no win in one: a real search
            out.append(s.position())
    return out


def test_distinct_actions_give_the_same_values_with_fewer_nodes(monkeypatch):
    game = load_game("gyges")
    positions = _gyges_positions(7, 5)
    with_hook = []
    for pos in positions:
        r = AlphaBetaAgent(depth=2, seed=3, safe=0).analyse(game.state_from_position(pos))
        with_hook.append((r["value"], r["nodes"]))
    monkeypatch.setattr(GygesState, "distinct_actions", None)  # the protocol fallback: legal_actions()
    fewer = 0
    for pos, (value, nodes) in zip(positions, with_hook, strict=True):
        r = AlphaBetaAgent(depth=2, seed=3, safe=0).analyse(game.state_from_position(pos))
        assert r["value"] == value, pos
        assert nodes <= r["nodes"], pos
        fewer += nodes < r["nodes"]
    assert fewer >= 1


def test_history_order_is_highest_first_and_stable():
    ag = AlphaBetaAgent(depth=1)
    for a, h in ((5, 3), (9, 7), (2, 3)):
        ag.history[a] += h
    assert ag._order([1, 2, 3, 5, 9, 4], None) == [9, 2, 5, 1, 3, 4]
    assert ag._order([1, 2, 3, 5, 9, 4], 4) == [4, 9, 2, 5, 1, 3]
