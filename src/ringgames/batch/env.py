"""The batched environment: B games of one kind in one array, stepped by compiled parallel kernels."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import load_game
from ..jit import JIT_ENABLED
from ..protocol import Game, IllegalActionError, State
from . import _common, gyges, observe, rings, yinsh

__all__ = ["BatchedEnv", "make"]


def _default_chunks() -> int:
    if not JIT_ENABLED:
        return 1
    import numba

    config: Any = numba.config
    return max(1, int(config.NUMBA_NUM_THREADS))


class _Backend:
    """What the environment needs from a game's batched kernels (one subclass per game)."""

    mod = yinsh

    def __init__(self, game: Game, batch_size: int, nchunks: int):
        self.game = game
        self.nchunks = nchunks
        self.extra: tuple = ()

    def template(self) -> np.ndarray:
        """The kernel array of a new game."""
        raise NotImplementedError

    def reset(self) -> None:
        """Forget per-row data kept beside the states."""

    def before_step(self, states: np.ndarray) -> None:
        """Make room for what :meth:`step` will write beside the states."""

    def step(self, states, actions, template, rewards, terminated) -> None:
        self.mod.step(states, actions, template, rewards, terminated, self.nchunks)

    def step_random(self, states, rng, template, actions, rewards, terminated) -> None:
        self.mod.step_random(states, rng, template, actions, rewards, terminated, self.nchunks)

    def play(self, states, rng, template, num_steps, reward_sum, finished) -> None:
        self.mod.play(states, rng, template, num_steps, reward_sum, finished, self.nchunks)

    def position(self, row: np.ndarray) -> str:
        raise NotImplementedError


class _Yinsh(_Backend):
    mod = yinsh

    def template(self) -> np.ndarray:
        from ..games.yinsh import kernel as K

        game: Any = self.game  # a YinshGame
        return K.new_state(game.rings_to_win)

    def position(self, row: np.ndarray) -> str:
        from ..games.yinsh import kernel as K
        from ..games.yinsh.notation import format_position

        phase = K.PHASE_NAMES[row[K.PHASE]]
        if row[K.WINNER] != K.ONGOING:
            phase = "over"
        return format_position(row[: K.RINGS], int(row[K.ACTOR]), phase, [int(row[K.REMOVED]), int(row[K.REMOVED + 1])],
                               int(row[K.MOVER]) if phase in ("row", "ring") else None, int(row[K.PASSES]))


class _Rings(_Backend):
    mod = rings

    def template(self) -> np.ndarray:
        from ..games.rings import kernel as K

        return K.new_state(self.game.num_players)

    def position(self, row: np.ndarray) -> str:
        from ..games.rings import kernel as K
        from ..games.rings.notation import format_position

        return format_position(row[K.OWNER : K.OWNER + K.NP].tolist(), self.game.num_players, int(row[K.MOVER]),
                               int(row[K.PHASE]), int(row[K.PASSES]), [])


class _Gyges(_Backend):
    mod = gyges

    def __init__(self, game: Game, batch_size: int, nchunks: int):
        super().__init__(game, batch_size, nchunks)
        self.batch_size = batch_size
        self.tables = gyges.new_tables(batch_size)
        self.extra = gyges.new_workspaces(nchunks)

    def template(self) -> np.ndarray:
        from ..games.gyges import kernel as K

        s = K.new_state(self.game.variant != "beginner")
        K.set_key(s, K.board_key(s))
        return s

    def reset(self) -> None:
        self.tables[3][:] += 1  # every row starts a new game: its table entries no longer count

    def before_step(self, states: np.ndarray, steps: int = 1) -> None:
        """Keep every repetition table at most 3/4 full after ``steps`` more positions."""
        from ..games.gyges import kernel as K

        need = (4 * (int(states[:, K.NKEYS].max()) + steps + 1) + 2) // 3
        size = self.tables[0].shape[1]
        if need > size:
            while size < need:
                size *= 2
            new = gyges.new_tables(self.batch_size, size)
            keys, counts, tags, game = self.tables
            gyges.rehash(keys, counts, tags, game, new[0], new[1], new[2], self.nchunks)
            self.tables = (new[0], new[1], new[2], game)

    def step(self, states, actions, template, rewards, terminated) -> None:
        gyges.step(states, *self.tables, actions, template, rewards, terminated, self.nchunks)

    def step_random(self, states, rng, template, actions, rewards, terminated) -> None:
        gyges.step_random(states, *self.tables, rng, template, actions, rewards, terminated, self.nchunks, *self.extra)

    def play(self, states, rng, template, num_steps, reward_sum, finished) -> None:
        done = 0
        while done < num_steps:  # in slices, so that the tables never grow for nothing
            k = min(256, num_steps - done)
            self.before_step(states, k)
            gyges.play(states, *self.tables, rng, template, k, reward_sum, finished, self.nchunks, *self.extra)
            done += k

    def position(self, row: np.ndarray) -> str:
        from ..games.gyges import kernel as K
        from ..games.gyges.board import NSQ
        from ..games.gyges.notation import format_position

        return format_position(row[:NSQ].tolist(), int(row[K.SIDE]))


_BACKENDS = {"yinsh": _Yinsh, "rings": _Rings, "gyges": _Gyges}


class BatchedEnv:
    """``batch_size`` games of one kind, stepped together in compiled code, parallel over the cores.

    All B positions live in one array (:attr:`states`, ``int32[B, S]``: one rules-kernel
    array per row); every method works on the whole batch in one compiled call, split in
    chunks of rows over numba's threads (``numba.set_num_threads`` limits them), with no
    Python per state.

    Action ids are the protocol's (``game.num_distinct_actions``; for Gygès the whole-move
    ids). :meth:`step` plays one action per game; a game that ends gets its final rewards
    (the protocol's :meth:`~ringgames.protocol.State.returns`) and is **reset in the same
    call** (auto-reset), so every row is always a game in progress.

    >>> env = BatchedEnv("yinsh", 4, seed=1)
    >>> env.current_player().tolist(), env.legal_action_mask().sum(axis=1).tolist()
    ([0, 0, 0, 0], [85, 85, 85, 85])
    >>> rewards, terminated = env.step(env.sample_random_actions())
    >>> rewards.shape, terminated.tolist(), env.current_player().tolist()
    ((4, 2), [False, False, False, False], [1, 1, 1, 1])
    >>> env.observation().shape
    (4, 19, 11, 11)
    """

    def __init__(self, game: str, batch_size: int, variant: str | None = None, players: int | None = None,
                 seed: int = 0):
        if not isinstance(batch_size, (int, np.integer)) or isinstance(batch_size, bool) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive int, not {batch_size!r}")
        self.game: Game = load_game(game, variant, players)
        self.batch_size = int(batch_size)
        self.num_players: int = self.game.num_players
        self.num_actions: int = self.game.num_distinct_actions
        self._nchunks = min(self.batch_size, _default_chunks())
        self._b = _BACKENDS[self.game.name](self.game, self.batch_size, self._nchunks)
        self._mod = self._b.mod
        self._template = self._b.template()
        #: The positions, one rules-kernel array per row (read it; write only through the methods).
        self._states = np.empty((self.batch_size, self._template.shape[0]), dtype=np.int32)
        self._rng = np.zeros(self.batch_size, dtype=np.uint64)
        self._obs = observe.for_game(self.game)
        self.reset(seed)

    def __repr__(self) -> str:
        return f"BatchedEnv({self.game!r}, batch_size={self.batch_size})"

    # -- the batch ---------------------------------------------------------
    @property
    def states(self) -> np.ndarray:
        """The kernel arrays, ``int32[B, S]``: a read-only view of the live array (writing raises ValueError)."""
        view = self._states.view()
        view.flags.writeable = False
        return view

    def reset(self, seed: int = 0) -> None:
        """Every game back to its start; the random streams of :meth:`sample_random_actions` start from ``seed``."""
        self._states[:] = self._template
        self._b.reset()
        _common.seed_streams(self._rng, np.uint64(int(seed) % (1 << 64)))

    def step(self, actions, validate: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Play ``actions[i]`` in game i, for every i; returns ``(rewards, terminated)``.

        ``rewards`` (float32[B, num_players]) is 0 except for games that ended with this
        action, which hold the final returns; ``terminated`` (bool[B]) marks those games,
        which are already reset to a new game. With ``validate`` (the default) every action
        is first checked against the rules (compiled, in parallel) and an illegal one raises
        :class:`~ringgames.protocol.IllegalActionError` with nothing played; without it the
        actions must be legal (as :meth:`sample_random_actions` gives), and only their range
        is checked.
        """
        a = self._check_actions(actions)
        if validate:
            bad = np.zeros(self.batch_size, dtype=np.bool_)
            self._mod.illegal(self._states, a, bad, self._nchunks, *self._b.extra)
            if bad.any():
                idx = np.flatnonzero(bad)
                i = int(idx[0])
                st = self.state(i)
                legal = [st.action_to_string(x) for x in st.legal_actions()[:20]]
                raise IllegalActionError(
                    f"action {int(a[i])} is not legal in game {i} ({len(idx)} illegal action(s) in the batch)", legal)
        rewards = np.zeros((self.batch_size, self.num_players), dtype=np.float32)
        terminated = np.zeros(self.batch_size, dtype=np.bool_)
        self._b.before_step(self._states)
        self._b.step(self._states, a, self._template, rewards, terminated)
        return rewards, terminated

    def _check_actions(self, actions) -> np.ndarray:
        a = np.asarray(actions)
        if a.shape != (self.batch_size,):
            raise ValueError(f"actions must have shape ({self.batch_size},), not {a.shape}")
        if a.dtype.kind not in "iu":
            raise ValueError(f"actions must be integers, not {a.dtype}")
        if a.size and (int(a.min()) < 0 or int(a.max()) >= self.num_actions):
            i = int(np.flatnonzero((a < 0) | (a >= self.num_actions))[0])
            raise ValueError(f"action {int(a[i])} of game {i} is outside 0..{self.num_actions - 1}")
        return np.ascontiguousarray(a, dtype=np.int32)

    def current_player(self) -> np.ndarray:
        """The seat to decide in each game (int32[B])."""
        return self._states[:, self._mod.CURRENT].copy()

    def legal_action_mask(self, out: np.ndarray | None = None) -> np.ndarray:
        """bool[B, num_actions]: ``mask[i, a]`` is True when action a is legal in game i.

        ``out`` (a C-contiguous bool array of that shape) is filled and returned instead of a new
        array: reusing one saves the page faults of a fresh allocation every step (Gygès: 50 MB
        at B = 1024)."""
        out = self._out(out, (self.batch_size, self.num_actions), np.bool_)
        self._mod.legal_mask(self._states, out, self._nchunks, *self._b.extra)
        return out

    @staticmethod
    def _out(out: np.ndarray | None, shape: tuple[int, ...], dtype) -> np.ndarray:
        if out is None:
            return np.empty(shape, dtype=dtype)
        if not isinstance(out, np.ndarray) or out.shape != shape or out.dtype != dtype or not out.flags.c_contiguous:
            got = (getattr(out, "shape", None), getattr(out, "dtype", type(out).__name__))
            raise ValueError(f"out must be a C-contiguous {np.dtype(dtype).name} array of shape {shape}, not {got}")
        return out

    def legal_action_ids(self) -> tuple[np.ndarray, np.ndarray]:
        """The legal actions as a padded list: ``(ids, counts)``, ``ids[i, :counts[i]]`` ascending
        (int32[B, max_legal], the rest -1) — far smaller than the mask for Gygès."""
        ids = np.empty((self.batch_size, self._mod.MAX_LEGAL), dtype=np.int32)
        counts = np.empty(self.batch_size, dtype=np.int32)
        self._mod.legal_ids(self._states, ids, counts, self._nchunks, *self._b.extra)
        return ids, counts

    def sample_random_actions(self, rng_seed: int | None = None) -> np.ndarray:
        """One uniformly random legal action per game (int32[B]), drawn in compiled code without
        building the legal-action lists or masks where the game allows it.

        Without ``rng_seed`` the draws continue each game's random stream (started by
        :meth:`reset`); with it they come from fresh streams of that seed (the same seed and
        positions give the same actions). Either way the result does not depend on the number
        of threads.
        """
        rng = self._rng
        if rng_seed is not None:
            rng = np.empty(self.batch_size, dtype=np.uint64)
            _common.seed_streams(rng, np.uint64(int(rng_seed) % (1 << 64)))
        out = np.empty(self.batch_size, dtype=np.int32)
        self._mod.sample(self._states, rng, out, self._nchunks, *self._b.extra)
        return out

    def step_random(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One uniformly random legal step of every game: ``step(sample_random_actions(), validate=False)``
        in one compiled call, which draws each game's action and plays it in one parallel pass
        over the games (the same draws from the same streams, so the same actions, positions and
        rewards). Returns ``(actions, rewards, terminated)``: the actions played (int32[B]) and
        :meth:`step`'s two arrays; finished games are already reset.
        """
        actions = np.empty(self.batch_size, dtype=np.int32)
        rewards = np.zeros((self.batch_size, self.num_players), dtype=np.float32)
        terminated = np.empty(self.batch_size, dtype=np.bool_)
        self._b.before_step(self._states)
        self._b.step_random(self._states, self._rng, self._template, actions, rewards, terminated)
        return actions, rewards, terminated

    def play_random(self, num_steps: int) -> tuple[np.ndarray, np.ndarray]:
        """``num_steps`` uniformly random steps of every game in one compiled call.

        Exactly ``num_steps`` rounds of ``step(sample_random_actions())`` (same draws, same
        positions afterwards), but each game is played on while it is in the cache and the
        threads never wait for each other: the fast path for random rollouts. Returns
        ``(reward_sum, finished)``: float64[B, num_players] rewards summed over the steps, and
        int32[B] games finished (and reset) per row.
        """
        if not isinstance(num_steps, (int, np.integer)) or isinstance(num_steps, bool) or num_steps < 0:
            raise ValueError(f"num_steps must be an int >= 0, not {num_steps!r}")
        reward_sum = np.zeros((self.batch_size, self.num_players), dtype=np.float64)
        finished = np.zeros(self.batch_size, dtype=np.int32)
        if num_steps:
            self._b.play(self._states, self._rng, self._template, int(num_steps), reward_sum, finished)
        return reward_sum, finished

    def observation(self, out: np.ndarray | None = None) -> np.ndarray:
        """float32[B, *observation_shape]: each game seen by its player to decide, with the planes of
        ``State.observation_tensor`` (see :mod:`.observe`). ``out`` as for :meth:`legal_action_mask`
        (RINGS: 90 MB at B = 1024, ten times faster to refill than to allocate)."""
        out = self._out(out, (self.batch_size, *self._obs.shape), np.float32)
        self._obs.encode(self._states, out, self._nchunks)
        return out

    @property
    def observation_shape(self) -> tuple[int, ...]:
        """The shape of one game's observation."""
        return tuple(self._obs.shape)

    # -- one game, for people and tests ------------------------------------
    def position(self, i: int) -> str:
        """The position string of game i (as :meth:`ringgames.protocol.State.position` writes it)."""
        return self._b.position(self._states[self._index(i)])

    def state(self, i: int) -> State:
        """A protocol state of game i's position (without history: Gygès forgets earlier repetitions)."""
        return self.game.state_from_position(self.position(i))

    def _index(self, i: int) -> int:
        if not isinstance(i, (int, np.integer)) or not -self.batch_size <= i < self.batch_size:
            raise IndexError(f"game index {i!r} outside 0..{self.batch_size - 1}")
        return int(i) % self.batch_size


def make(game: str, batch_size: int, **kwargs) -> BatchedEnv:
    """``BatchedEnv(game, batch_size, **kwargs)`` (pgx's spelling)."""
    return BatchedEnv(game, batch_size, **kwargs)
