"""Compiled searches: the search tree in numba over a game's rules kernel (issue #35).

* :mod:`.agent` — :class:`~.agent.CompiledAlphaBetaAgent` (agent spec ``search:``): the root,
  iterative deepening and time in Python, the tree in the game's kernel;
* :mod:`.yinsh` — YINSH's compiled alpha-beta;
* :mod:`.gyges` — Gygès's compiled alpha-beta (goal tactics, threat extensions, late move reductions).
"""
