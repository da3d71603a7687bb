"""Build YINSH positions for tests from point names."""

from ringgames import load_game
from ringgames.games.yinsh.board import point_index
from ringgames.games.yinsh.notation import format_position

W, B, WR, BR = 1, 2, 3, 4


def position(pieces: dict[str, int], actor="w", phase="move", removed=(0, 0), mover=None, passes=0) -> str:
    board = [0] * 85
    for names, v in pieces.items():
        for n in names.split():
            board[point_index(n)] = v
    return format_position(board, "wb".index(actor), phase, removed, None if mover is None else "wb".index(mover), passes)


def state(pieces, variant="standard", **kw):
    return load_game("yinsh", variant).state_from_position(position(pieces, **kw))


def moves_from(s, point: str) -> set[str]:
    return {t.split("-")[1] for t in (s.action_to_string(a) for a in s.legal_actions()) if t.startswith(point + "-")}
