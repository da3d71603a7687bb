"""Compiled searches: the search tree in numba over a game's rules kernel (issue #35).

* :mod:`.agent` — :class:`~.agent.CompiledAlphaBetaAgent` (agent spec ``search:``): the root,
  iterative deepening and time in Python, the tree compiled;
* :mod:`.tree` — the compiled alpha-beta for YINSH and RINGS (explicit stack, transposition
  table, PVS, killers, history; with 3–6 players paranoid, as the Python search);
* :mod:`.ops` — what differs between those games, picked by a game number;
* :mod:`.yinsh`, :mod:`.rings` — each game's position keys and evaluation (the values of
  :mod:`ringgames.ai.evaluation`);
* :mod:`.gyges` — Gygès's compiled alpha-beta (its own tree: repetition from the game's history, goal
  tactics, threat extensions, late move reductions; the move ordering, cut-off credit and table store of
  :mod:`.tree`);
* :mod:`.uct` — :class:`~.uct.CompiledMCTSAgent` (agent spec ``uct:``): MCTS (UCT) with leaf evaluation and the
  tree in numba, for YINSH and RINGS (any number of players).
"""
