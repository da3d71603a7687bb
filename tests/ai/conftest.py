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
