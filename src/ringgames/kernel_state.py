"""The protocol state around a compiled rules kernel, shared by the three games.

Each game keeps its position in one NumPy array (``state.s``) that its numba
kernel reads and writes; what is left for Python is the same everywhere and
lives here:

* **undo by copy**: :meth:`KernelState.apply_action` pushes the current array
  on the undo stack and plays the action on a copy, so an undo is a pop. Undo
  records are never written again, so clones share them;
* a preallocated **legal-action buffer** the kernel fills (``_buf``);
* **perft** in the kernel, and the empty action list once the players ended
  the game (resignation, agreed draw).

A subclass sets :attr:`KernelState.kernel` (its kernel module, whose
``legal_actions``, ``apply_action`` and ``perft`` the hooks call) and
:attr:`KernelState.max_legal`; it may override :meth:`~KernelState._kernel_legal`,
:meth:`~KernelState._kernel_apply` and :meth:`~KernelState._kernel_perft` (Gygès
keeps repetition keys beside the array), extend :meth:`~KernelState._clone_into`
for its own fields and :meth:`~KernelState._ended_by_players` where a
resignation does not end the game (RINGS).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .protocol import State
from .rng import new_state as new_rng_state

__all__ = ["KernelState"]


class KernelState(State):
    """A state whose position is one kernel array ``self.s`` (read it, never write it:
    after an undo it is shared with the undo records of clones)."""

    __slots__ = ("game", "s", "_history", "_undo", "_resigned", "_agreed", "_start", "_buf")

    #: The size of the legal-action buffer: at least the most actions any position has.
    #: The game's kernel module (``legal_actions``, ``apply_action``, ``perft``).
    kernel: Any = None  # a module of numba functions (untyped)
    max_legal: int = 0

    def _init_kernel_state(self, game, s: np.ndarray, start: str | None = None) -> None:
        """Set the shared fields: ``s`` the kernel array of the position, no history."""
        self.game = game
        self.s = s
        self._history: list[int] = []
        self._undo: list[np.ndarray] = []
        self._resigned: list[int] = []
        self._agreed = False
        self._start = start
        self._buf = np.empty(self.max_legal, dtype=np.int32)

    # -- what a game provides ----------------------------------------------
    def _kernel_legal(self, s: np.ndarray, out: np.ndarray) -> int:
        """Write the legal actions of ``s`` into ``out`` (ascending); return how many."""
        return self.kernel.legal_actions(s, out)

    def _kernel_apply(self, s: np.ndarray, action: int) -> None:
        """Play ``action`` on ``s`` in place (a fresh copy, owned by this state)."""
        self.kernel.apply_action(s, action)

    def _kernel_perft(self, s: np.ndarray, depth: int) -> int:
        """perft of ``s`` at ``depth`` > 0 in the kernel."""
        return self.kernel.perft(s, depth)

    def _kernel_playout(self, s: np.ndarray, max_actions: int, rng: np.ndarray, record: np.ndarray) -> int:
        """A seeded random playout on ``s`` in the kernel (:mod:`ringgames.rng`); returns the actions played."""
        return int(self.kernel.playout(s, max_actions, rng, record))

    def _ended_by_players(self) -> bool:
        """True when a resignation or an agreed draw has ended the game (no actions, perft 0)."""
        return self._agreed or bool(self._resigned)

    def _clone_into(self, c: KernelState) -> None:
        """Copy the subclass's own fields into the clone ``c`` (the shared ones are done)."""

    # -- protocol ------------------------------------------------------------
    @property
    def history(self) -> list[int]:
        return self._history

    def legal_actions(self) -> list[int]:
        if self._ended_by_players():
            return []
        n = self._kernel_legal(self.s, self._buf)
        return self._buf[:n].tolist()

    def apply_action(self, action: int) -> None:
        # the current array becomes the undo record and is never written again (clones share it);
        # the action is played on a copy
        self._undo.append(self.s)
        self.s = self.s.copy()
        self._history.append(action)
        self._kernel_apply(self.s, action)

    def _undo_action(self, action: int) -> None:
        self._history.pop()
        self.s = self._undo.pop()

    def clone(self):
        c = type(self).__new__(type(self))
        c.game = self.game
        c.s = self.s.copy()
        c._history = self._history[:]
        c._undo = self._undo[:]  # undo records are never mutated
        c._resigned = self._resigned[:]
        c._agreed = self._agreed
        c._start = self._start
        c._buf = np.empty(self.max_legal, dtype=np.int32)
        self._clone_into(c)
        return c

    def random_playout_actions(self, seed: int, max_actions: int = 100_000) -> list[int]:
        """The actions of the random playout with ``seed`` from this state (not changed), played in
        the compiled kernel: the same as the Python path :func:`ringgames.simulate.random_playout`
        (the generator and the choice rule: :mod:`ringgames.rng`)."""
        if self.is_terminal():
            return []
        record = np.empty(max_actions, dtype=np.int32)
        n = self._kernel_playout(self.s.copy(), max_actions, new_rng_state(seed), record)
        return record[:n].tolist()

    def perft(self, depth: int) -> int:
        """perft in the compiled kernel (a game ended by the players has no children)."""
        if depth == 0:
            return 1
        if self._ended_by_players():
            return 0
        return int(self._kernel_perft(self.s, depth))
