"""Gygès (Claude Leroy, 1985): the rules as ``/work/shared/rules/gyges.md`` states them.

>>> from ringgames import load_game
>>> g = load_game("gyges")
>>> s = g.state_from_position("321123/000000/000000/000000/000000/321123 S")
>>> len(s.legal_actions()), s.perft(1)
(224, 211)
>>> s.action_to_string(s.string_to_action("C1-B1-C2"))  # a bounce on b1 back to c2, written canonically
'c1-c2'
>>> s.play("c1-b1(a4)") == s.history[-1]
True
>>> s.position()
'310123/000000/000000/200000/000000/321123 N'
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
