"""The greedy agent: wins now when it can, never hands an immediate win when it can avoid it.

Otherwise it plays the safe action with the best static evaluation after it
(``eval=1``, default) or a random safe action (``eval=0``). ``noise`` adds
Gaussian noise (in evaluation points) to the scores, so that play varies.

>>> from ringgames import load_game
>>> s = load_game("yinsh").new_initial_state()
>>> GreedyAgent(seed=1).choose(s) in s.legal_actions()
True
"""

from __future__ import annotations

import random

from ..protocol import State
from .evaluation import get_evaluator
from .tactics import is_win_for, safe_actions, winning_action

__all__ = ["GreedyAgent"]


class GreedyAgent:
    def __init__(self, seed: int | None = None, eval: int = 1, noise: float = 0.0):
        self.rng = random.Random(seed)
        if isinstance(eval, bool) or eval not in (0, 1):
            raise ValueError(f"greedy eval= is 1 (today's evaluation) or 0 (random safe moves), not {str(eval)[:40]!r}; "
                             "named evaluations (eval=tuned) are for the searching agents")
        self.use_eval = bool(eval)
        self.noise = float(noise)
        self.name = "greedy"

    def choose(self, state: State) -> int:
        acts = state.legal_actions()
        if len(acts) == 1:
            return acts[0]
        win = winning_action(state)
        if win is not None:
            return win
        me = state.current_player()
        safe = safe_actions(state, acts)
        if not self.use_eval:
            return self.rng.choice(safe)
        evaluate, _ = get_evaluator(state.game.name)
        work = state.clone()
        best, best_a = -float("inf"), safe[0]
        for a in safe:
            work.apply_action(a)
            if work.is_terminal():
                v = 1e9 if is_win_for(work, me) else -1e9 if work.returns()[me] < 0 else 0.0
            else:
                vals = evaluate(work)
                v = vals[me] - max(vals[p] for p in range(len(vals)) if p != me) if len(vals) > 2 else vals[me]
            work.undo_action()
            v += self.rng.random() * 1e-6 + (self.rng.gauss(0.0, self.noise) if self.noise else 0.0)
            if v > best:
                best, best_a = v, a
        return best_a
