"""Principal variation search (``alphabeta:pvs=1``): the same values and actions as the plain search at
a fixed depth, in no more nodes on positions where it prunes (issue #35, a first step to stronger play)."""

import random

import pytest

from ringgames import load_game
from ringgames.ai.alphabeta import AlphaBetaAgent


def _position(game: str, plies: int, seed: int):
    s = load_game(game).new_initial_state()
    rng = random.Random(seed)
    for _ in range(plies):
        s.apply_action(rng.choice(s.legal_actions()))
    assert not s.is_terminal()
    return s


@pytest.mark.parametrize("game,plies,seed,depth", [("yinsh", 20, 1, 3), ("gyges", 8, 1, 3), ("yinsh", 40, 2, 3)])
def test_pvs_keeps_the_values_of_the_plain_search(game, plies, seed, depth):
    s = _position(game, plies, seed)
    plain = AlphaBetaAgent(depth=depth, seed=0).analyse(s.clone())
    pvs = AlphaBetaAgent(depth=depth, seed=0, pvs=1).analyse(s.clone())
    assert (pvs["action"], pvs["value"], pvs["depth"]) == (plain["action"], plain["value"], plain["depth"])
    assert plain["depth"] == depth


def test_pvs_searches_fewer_nodes_where_it_prunes():
    s = _position("gyges", 8, 1)  # measured: 32,568 nodes plain, 21,551 with pvs at depth 3
    plain = AlphaBetaAgent(depth=3, seed=0).analyse(s.clone())
    pvs = AlphaBetaAgent(depth=3, seed=0, pvs=1).analyse(s.clone())
    assert pvs["nodes"] < 0.8 * plain["nodes"]
