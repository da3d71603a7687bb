"""The perft tables of docs/research.md: the cheap entries recomputed by the kernels, and two
of the computed ones (beyond the published values) by the pure-Python test oracles."""

from __future__ import annotations

from pathlib import Path

import pytest

from ringgames import load_game

DOC = (Path(__file__).resolve().parent.parent / "docs" / "research.md").read_text()
REFERENCE_GYGES = "321123/000000/000000/000000/000000/321123 S"
PLACED = "e3 a5 b5 c6 d6 e4 h7 g2 g3 g8".split()


def _state(name, variant=None, players=None, moves=(), position=None):
    game = load_game(name, variant, players)
    s = game.new_initial_state() if position is None else game.state_from_position(position)
    for m in moves:
        s.play(m)
    return s


CASES = [
    (("yinsh",), 4, 48_594_840),
    (("yinsh", None, None, PLACED), 4, 31_988_400),
    (("gyges", "beginner", None, (), REFERENCE_GYGES), 3, 16_862),
    (("gyges", "beginner", None, (), REFERENCE_GYGES), 4, 531_418),
    (("rings", None, 2), 3, 10_077_912),
    (("rings", None, 3), 3, 10_078_129),
    (("rings", None, 6), 3, 10_078_129),
]


@pytest.mark.parametrize("args,depth,expected", CASES)
def test_documented_perft_values(args, depth, expected):
    assert _state(*args).perft(depth) == expected
    assert f"{expected:,}" in DOC


def test_oracles_agree_with_the_computed_values():
    from tests.games.gyges.reference import ReferenceGygesGame
    from tests.games.rings.reference import ReferenceRingsGame

    assert ReferenceGygesGame("beginner").state_from_position(REFERENCE_GYGES).perft(3) == 16_862
    assert ReferenceRingsGame(players=3).new_initial_state().perft(3) == 10_078_129
