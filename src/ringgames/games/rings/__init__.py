"""RINGS (Stephen Linhart, 1995) for 2–6 players: board, rules and notation.

>>> from ringgames import load_game
>>> s = load_game("rings", players=2).new_initial_state()
>>> s.perft(1)
217
"""

from .state import RingsGame, RingsState

__all__ = ["RingsGame", "RingsState"]
