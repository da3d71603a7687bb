"""Gygès (Claude Leroy, 1985): the rules as ``/work/shared/rules/gyges.md`` states them.

>>> from ringgames import load_game
>>> g = load_game("gyges")
>>> s = g.state_from_position("321123/000000/000000/000000/000000/321123 S")
>>> len(s.legal_actions()), s.perft(1)
(224, 211)
>>> s.action_to_string(s.string_to_action("C1-D2-D4(E5)"))
'c1-d2-d4(e5)'
"""

from .board import ARRANGEMENTS, GOAL, NO_DROP, PASS, PRESETS, decode_move, encode_move, mirror_action, mirror_board
from .state import GygesGame, GygesState

__all__ = [
    "ARRANGEMENTS",
    "GOAL",
    "NO_DROP",
    "PASS",
    "PRESETS",
    "GygesGame",
    "GygesState",
    "decode_move",
    "encode_move",
    "mirror_action",
    "mirror_board",
]
