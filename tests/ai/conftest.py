import pytest

from ringgames import load_game
from ringgames.games.yinsh.board import NUM_POINTS, point_index
from ringgames.games.yinsh.notation import format_position


def yinsh_position(white_markers, black_markers, white_rings, black_rings, to_move="w", removed=(0, 0)):
    board = [0] * NUM_POINTS
    for names, v in ((white_markers, 1), (black_markers, 2), (white_rings, 3), (black_rings, 4)):
        for n in names:
            board[point_index(n)] = v
    return format_position(board, 0 if to_move == "w" else 1, "move", list(removed), None, 0)


# White has removed 2 rings and has markers c2..c5 with its ring on c6: any move of that
# ring makes the row c2-c6, whose removal (and a ring's) wins. Black's ring on b3 can break
# the row by flipping c3 (b3-d3) or c4 (b3-d5).
THIRD_ROW = dict(
    white_markers=["c2", "c3", "c4", "c5"],
    black_markers=["g7"],
    white_rings=["c6", "h9", "j10"],
    black_rings=["b3", "k7", "k8", "i11", "j11"],
    removed=(2, 0),
)


@pytest.fixture
def yinsh_win_in_one():
    return load_game("yinsh").state_from_position(yinsh_position(to_move="w", **THIRD_ROW))


@pytest.fixture
def yinsh_must_defend():
    return load_game("yinsh").state_from_position(yinsh_position(to_move="b", **THIRD_ROW))


# Gygès, found by random play from 321123/321123 and checked in the tests:
#: South to move has exactly one winning move (of 223).
GYGES_WIN = "320001/200000/012030/020003/000000/310100 S"
#: South to move: only 7 of 63 moves do not let North reach South's goal next move.
GYGES_DEFEND = "321010/000000/000003/000030/200000/320121 S"


def rings_decider(passes: int):
    """Two-player RINGS: Red holds LM12 (4 stones, a blue stone on P, Q empty); Blue holds a
    neighbour D (P and three more stones, Q and one point empty). Scores are 1-1. Converting
    LM12 flips P and takes D's majority away from Blue: 1-0. With ``passes=1`` (Blue has just
    passed) Red wins at once by passing and converting; without it the game goes on."""
    from ringgames.games.rings.board import CIRCLE_INDEX, CIRCLE_NEIGHBOURS, CIRCLE_POINTS, NUM_POINTS
    from ringgames.games.rings.notation import format_position

    c = CIRCLE_INDEX["LM12"]
    d = CIRCLE_NEIGHBOURS[c][0]
    shared = sorted(set(CIRCLE_POINTS[c]) & set(CIRCLE_POINTS[d]))
    p, q = shared
    owner = [-1] * NUM_POINTS
    for pt in CIRCLE_POINTS[c]:
        if pt not in shared:
            owner[pt] = 0
    owner[p] = 1
    rest = [pt for pt in CIRCLE_POINTS[d] if pt not in shared]
    for pt in rest[:3]:
        owner[pt] = 1
    return format_position(owner, 2, 0, 0, passes, [])


@pytest.fixture
def gyges_win_in_one():
    return load_game("gyges").state_from_position(GYGES_WIN)


@pytest.fixture
def gyges_must_defend():
    return load_game("gyges").state_from_position(GYGES_DEFEND)


@pytest.fixture
def rings_win_in_one():
    return load_game("rings").state_from_position(rings_decider(1))
