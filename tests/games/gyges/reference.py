"""A slow, pure-Python Gygès engine kept ONLY as a test oracle for the compiled kernel.

It was the first implementation of the rules (``games/gyges/movegen.py`` and
``state.py`` before the kernel); the differential tests check that the
kernel-backed GygesState agrees with it on legal actions, successor positions,
results (goal, repetition) and notation.

Move generation works on a flat board: ``board`` is a list of 36 ints (0 empty,
else the piece's rings), ``side`` 0 for South and 1 for North, ``replace`` False
in the beginner variant. A move lifts its piece, then walks segments of exactly
as many steps as the rings of the piece it last landed on (its own rings
first); every step but the last of a segment enters an empty square; no link is
used twice in the whole move (``used`` bitmask). The search explores each
(bounce square, used links) state once.
"""

from __future__ import annotations

import random

from ringgames.games.gyges.board import (
    ARRANGEMENTS,
    GOAL,
    GOAL_ROW,
    MOVE_BASE,
    NEIGHBORS,
    NO_DROP,
    NSQ,
    NUM_ACTIONS,
    NUM_ARRANGEMENTS,
    PASS,
    ROW,
    SIZE,
    decode_move,
    encode_move,
)
from ringgames.games.gyges.notation import (
    SIDE_NAMES,
    SQUARE_NAMES,
    format_position,
    move_string,
    parse_arrangement,
    parse_move_syntax,
    parse_position,
)
from ringgames.protocol import TERMINAL, Game, IllegalActionError, NotationError, Outcome, State

_NEIGH = NEIGHBORS
_ROW = ROW


def _walk(board, cur, rem, used, goal_row, ends, reps, seen):
    """One segment of ``rem`` steps from ``cur`` (loops unrolled per length), then bounces recursively."""
    if rem == 1:
        if _ROW[cur] == goal_row:
            ends.add(GOAL)
        for n1, b1 in _NEIGH[cur]:
            if used & b1:
                continue
            u1 = used | b1
            p = board[n1]
            if p == 0:
                ends.add(n1)
            else:
                reps.add(n1)
                k = (u1 << 6) | n1
                if k not in seen:
                    seen.add(k)
                    _walk(board, n1, p, u1, goal_row, ends, reps, seen)
    elif rem == 2:
        for n1, b1 in _NEIGH[cur]:
            if used & b1 or board[n1]:
                continue
            u1 = used | b1
            if _ROW[n1] == goal_row:
                ends.add(GOAL)
            for n2, b2 in _NEIGH[n1]:
                if u1 & b2:
                    continue
                u2 = u1 | b2
                p = board[n2]
                if p == 0:
                    ends.add(n2)
                else:
                    reps.add(n2)
                    k = (u2 << 6) | n2
                    if k not in seen:
                        seen.add(k)
                        _walk(board, n2, p, u2, goal_row, ends, reps, seen)
    else:
        for n1, b1 in _NEIGH[cur]:
            if used & b1 or board[n1]:
                continue
            u1 = used | b1
            for n2, b2 in _NEIGH[n1]:
                if u1 & b2 or board[n2]:
                    continue
                u2 = u1 | b2
                if _ROW[n2] == goal_row:
                    ends.add(GOAL)
                for n3, b3 in _NEIGH[n2]:
                    if u2 & b3:
                        continue
                    u3 = u2 | b3
                    p = board[n3]
                    if p == 0:
                        ends.add(n3)
                    else:
                        reps.add(n3)
                        k = (u3 << 6) | n3
                        if k not in seen:
                            seen.add(k)
                            _walk(board, n3, p, u3, goal_row, ends, reps, seen)


def drop_squares(board, side: int) -> list[int]:
    """Empty squares where a displaced piece may go; ``board`` has the mover lifted.

    South: rows up to the highest occupied row; North: rows down to the lowest.
    """
    if side == 0:
        i = NSQ - 1
        while i >= 0 and not board[i]:
            i -= 1
        hi = (_ROW[i] + 1) * SIZE if i >= 0 else NSQ
        return [j for j in range(hi) if not board[j]]
    i = 0
    while i < NSQ and not board[i]:
        i += 1
    lo = _ROW[i] * SIZE if i < NSQ else 0
    return [j for j in range(lo, NSQ) if not board[j]]


def piece_targets(board, s: int, side: int, replace: bool):
    """``(ends, reps, drops)`` for the piece on ``s`` (the board is restored afterwards).

    ``ends``: empty end squares, plus GOAL for a win; ``reps``: occupied squares
    where the move may end with a replace (empty when ``replace`` is False);
    ``drops``: where the displaced piece may go.
    """
    v = board[s]
    board[s] = 0
    ends: set[int] = set()
    reps: set[int] = set()
    _walk(board, s, v, 0, GOAL_ROW[side], ends, reps, set())
    drops = drop_squares(board, side) if (reps and replace) else []
    board[s] = v
    if not replace or not drops:
        reps = set()
    return ends, reps, drops


def movable_starts(board, side: int, replace: bool) -> list[tuple[int, set, set, list]]:
    """The pieces that may move: the nearest non-empty row with a legal move (next-row fallback).

    Returns ``[(start, ends, reps, drops), ...]`` for that row, or ``[]`` if no piece can move.
    """
    rows = range(SIZE) if side == 0 else range(SIZE - 1, -1, -1)
    for r in rows:
        out = []
        for s in range(r * SIZE, r * SIZE + SIZE):
            if board[s]:
                ends, reps, drops = piece_targets(board, s, side, replace)
                if ends or reps:
                    out.append((s, ends, reps, drops))
        if out:
            return out
    return []


def generate(board, side: int, replace: bool) -> list[int]:
    """Legal move action ids, sorted ascending (empty if the side cannot move)."""
    out: list[int] = []
    for s, ends, reps, drops in movable_starts(board, side, replace):
        base = MOVE_BASE + s * 37 * 37
        for e in ends:
            out.append(base + e * 37 + NO_DROP)
        for e in reps:
            b2 = base + e * 37
            out.extend([b2 + d for d in drops])
    out.sort()
    return out


def segments(board, cur: int, rem: int, used: int, goal_row: int):
    """Every way to walk one segment of ``rem`` steps: yields ``(landing, used_after)``.

    ``landing`` is GOAL for a step into the opponent's goal. ``board`` has the mover lifted.
    """
    if rem == 1 and _ROW[cur] == goal_row:
        yield GOAL, used
    for nb, bit in _NEIGH[cur]:
        if used & bit:
            continue
        if rem > 1:
            if board[nb] == 0:
                yield from segments(board, nb, rem - 1, used | bit, goal_row)
        else:
            yield nb, used | bit


#: The position the spec's perft values start from.
REFERENCE_POSITION = "321123/000000/000000/000000/000000/321123 S"

# Phases
SETUP_SOUTH, SETUP_NORTH, PLAY = 0, 1, 2

_rng = random.Random(0x6C5E5)
#: Zobrist keys: ZOBRIST[square][rings] (index 0 unused = 0) and the side to move.
ZOBRIST = tuple((0, _rng.getrandbits(64), _rng.getrandbits(64), _rng.getrandbits(64)) for _ in range(NSQ))
ZOBRIST_NORTH = _rng.getrandbits(64)
del _rng


def board_key(board, side: int) -> int:
    k = ZOBRIST_NORTH if side else 0
    for i, v in enumerate(board):
        if v:
            k ^= ZOBRIST[i][v]
    return k


def successor_key(board, side: int, key: int, action: int) -> int:
    """The Zobrist key of the position after ``action`` (a move or PASS), without applying it."""
    key ^= ZOBRIST_NORTH
    if action == PASS:
        return key
    x = action - MOVE_BASE
    se, d = divmod(x, 37)
    s, e = divmod(se, 37)
    v = board[s]
    z = ZOBRIST
    key ^= z[s][v]
    if e == GOAL:
        return key
    w = board[e] if e != s else 0
    key ^= z[e][v]
    if w:
        key ^= z[e][w]
        if d != NO_DROP:
            key ^= z[d][w]
    return key


class ReferenceGygesState(State):
    """A Gygès position with its history. Build it with :class:`ReferenceGygesGame`."""

    def __init__(self, game: ReferenceGygesGame, board=None, side: int = 0, phase: int = SETUP_SOUTH, start: str | None = None):
        self.game = game
        self._replace = game.variant != "beginner"
        self._board = list(board) if board is not None else [0] * NSQ
        self._side = side
        self._phase = phase
        self._winner: int | None = None
        self._history: list[int] = []
        self._undo: list[tuple] = []
        self._key = board_key(self._board, side)
        self._keys: list[int] = []
        self._counts: dict[int, int] = {}
        if phase == PLAY:
            self._keys.append(self._key)
            self._counts[self._key] = 1
        self._resigned: list[int] = []
        self._agreed = False
        self._start = start
        self._legal: list[int] | None = None

    # -- protocol --------------------------------------------------------
    @property
    def history(self) -> list[int]:
        return self._history

    def current_player(self) -> int:
        if self.outcome() is not None:
            return TERMINAL
        return self._side

    def _rules_outcome(self) -> Outcome | None:
        if self._winner is not None:
            return Outcome((self._winner,), "goal")
        if self._phase == PLAY and self._counts.get(self._key, 0) >= 3:
            return Outcome((), "repetition")
        return None

    def legal_actions(self) -> list[int]:
        if self.outcome() is not None:
            return []
        if self._phase != PLAY:
            return list(range(NUM_ARRANGEMENTS))
        if self._legal is None:
            self._legal = generate(self._board, self._side, self._replace) or [PASS]
        return list(self._legal)

    def is_legal(self, action: int) -> bool:
        return action in self.legal_actions()

    def apply_action(self, action: int) -> None:
        self._legal = None
        b = self._board
        key = self._key
        if action >= MOVE_BASE and action != PASS:
            x = action - MOVE_BASE
            se, d = divmod(x, 37)
            s, e = divmod(se, 37)
            z = ZOBRIST
            v = b[s]
            b[s] = 0
            key ^= z[s][v]
            if e == GOAL:
                w = 0
                self._winner = self._side
            else:
                w = b[e]
                if w:
                    key ^= z[e][w]
                    if d != NO_DROP:
                        b[d] = w
                        key ^= z[d][w]
                b[e] = v
                key ^= z[e][v]
            self._undo.append((s, e, d, v, w, self._key))
        elif action == PASS:
            self._undo.append((self._key,))
        else:
            digits = ARRANGEMENTS[action]
            base = 0 if self._phase == SETUP_SOUTH else (SIZE - 1) * SIZE
            for c in range(SIZE):
                v = ord(digits[c]) - 48
                b[base + c] = v
                key ^= ZOBRIST[base + c][v]
            self._undo.append((self._key, self._phase))
            self._phase += 1
        key ^= ZOBRIST_NORTH
        self._side ^= 1
        self._key = key
        if self._phase == PLAY:
            self._keys.append(key)
            self._counts[key] = self._counts.get(key, 0) + 1
        self._history.append(action)

    def _undo_action(self, action: int) -> None:
        self._legal = None
        entry = self._undo.pop()
        self._history.pop()
        if self._phase == PLAY:
            k = self._keys.pop()
            n = self._counts[k] - 1
            if n:
                self._counts[k] = n
            else:
                del self._counts[k]
        self._side ^= 1
        b = self._board
        if len(entry) == 6:
            s, e, d, v, w, prev = entry
            if e == GOAL:
                self._winner = None
            else:
                if d != NO_DROP:
                    b[d] = 0
                b[e] = w
            b[s] = v
            self._key = prev
        elif len(entry) == 1:
            self._key = entry[0]
        else:
            self._key, self._phase = entry
            base = 0 if self._phase == SETUP_SOUTH else (SIZE - 1) * SIZE
            for c in range(SIZE):
                b[base + c] = 0

    def clone(self) -> ReferenceGygesState:
        c = object.__new__(ReferenceGygesState)
        c.__dict__.update(self.__dict__)
        c._board = self._board[:]
        c._history = self._history[:]
        c._undo = self._undo[:]
        c._keys = self._keys[:]
        c._counts = dict(self._counts)
        c._resigned = self._resigned[:]
        return c

    def position(self) -> str:
        return format_position(self._board, self._side)

    # -- notation --------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        if action < MOVE_BASE:
            return ARRANGEMENTS[action]
        if action == PASS:
            return "pass"
        s, e, d = decode_move(action)
        landings = self._canonical_landings(s, e, d)
        if landings is None:  # not realisable here: plain start-end form
            landings = [s] if e == GOAL else [s, e]
        return move_string(landings, e == GOAL, None if d == NO_DROP else d)

    def _canonical_landings(self, s: int, e: int, d: int) -> list[int] | None:
        """Fewest bounces, ties broken by the square names in order; None if no path."""
        b = self._board[:]
        v = b[s]
        if not v:
            return None
        b[s] = 0
        goal_row = GOAL_ROW[self._side]
        names = SQUARE_NAMES

        def rank(seq):
            return [names[x] for x in seq]

        layer = {(s, 0, v): (s,)}
        while layer:
            cands = []
            nxt: dict = {}
            for (cur, used, rem), seq in layer.items():
                for land, u in segments(b, cur, rem, used, goal_row):
                    if land == GOAL:
                        if e == GOAL:
                            cands.append(seq)
                        continue
                    p = b[land]
                    if p == 0:
                        if land == e and d == NO_DROP:
                            cands.append(seq + (land,))
                        continue
                    nseq = seq + (land,)
                    if land == e and d != NO_DROP:
                        cands.append(nseq)
                    st = (land, u, p)
                    old = nxt.get(st)
                    if old is None or rank(nseq) < rank(old):
                        nxt[st] = nseq
            if cands:
                return list(min(cands, key=rank))
            layer = nxt
        return None

    def _movable_info(self) -> tuple[set[int], int | None]:
        starts = {decode_move(a)[0] for a in self.legal_actions() if MOVE_BASE <= a < PASS}
        row = ROW[next(iter(starts))] if starts else None
        return starts, row

    def _parse_action(self, text: str) -> int:
        t = text.strip().lower()
        side = SIDE_NAMES[self._side]
        if t == "pass":
            if self._phase != PLAY:
                raise IllegalActionError(f"{side} must place a piece set first (an arrangement such as 321123)")
            if self.outcome() is None and self.legal_actions() != [PASS]:
                raise IllegalActionError(f"{side} has a legal move, so cannot pass")
            return PASS
        if t.isdigit():
            a = parse_arrangement(t)
            if self._phase == PLAY:
                raise IllegalActionError(f"the setup is over; {t} is an arrangement, not a move")
            return a
        if self._phase != PLAY:
            row = 1 if self._phase == SETUP_SOUTH else 6
            raise IllegalActionError(
                f"{side} must first place a piece set on row {row}: six digits such as 321123, not {text.strip()!r}"
            )
        landings, wins, drop = parse_move_syntax(t)
        s = landings[0]
        b = self._board[:]
        v = b[s]
        if not v:
            raise IllegalActionError(f"{SQUARE_NAMES[s]} is empty")
        starts, row = self._movable_info()
        if s not in starts:
            where = f"row {row + 1}" if row is not None else "none"
            raise IllegalActionError(f"{SQUARE_NAMES[s]} is not on {side}'s movable row ({where})")
        b[s] = 0
        goal_row = GOAL_ROW[self._side]
        shown = move_string(landings, wins, drop)
        # bounce squares must hold a piece; the end square must be empty unless replacing
        bounces = landings[1:] if wins else landings[1:-1]
        for x in bounces:
            if not b[x]:
                raise IllegalActionError(f"{shown}: no piece to bounce off on {SQUARE_NAMES[x]}")
        end = None if wins else landings[-1]
        if end is not None:
            if drop is None and b[end]:
                hint = ""
                if self._replace:
                    drops = drop_squares(b, self._side)
                    if drops:
                        x = SQUARE_NAMES[drops[0]]
                        hint = f"; e.g. {shown}({x}) replaces it and drops the displaced piece on {x}"
                raise IllegalActionError(f"{shown}: {SQUARE_NAMES[end]} is occupied: bounce on it or replace it{hint}")
            if drop is not None:
                if not b[end]:
                    raise IllegalActionError(f"{shown}: {SQUARE_NAMES[end]} is empty, there is nothing to replace")
                if not self._replace:
                    raise IllegalActionError(f"{shown}: replace is not allowed in the {self.game.variant} variant")
        # follow the landing sequence through every step path
        states = {0}
        cur, rem = s, v
        for x in landings[1:]:
            new = set()
            for used in states:
                for land, u in segments(b, cur, rem, used, goal_row):
                    if land == x:
                        new.add(u)
            if not new:
                raise IllegalActionError(f"no legal path {shown}")
            states, cur, rem = new, x, b[x]
        if wins:
            if not any(land == GOAL for used in states for land, _ in segments(b, cur, rem, used, goal_row)):
                raise IllegalActionError(f"no legal path {shown}")
            return encode_move(s, GOAL, NO_DROP)
        if drop is not None:
            drops = drop_squares(b, self._side)
            if drop not in drops:
                if drop == end:
                    why = "the moving piece stays there"
                elif b[drop]:
                    why = "it is occupied"
                else:
                    opp = SIDE_NAMES[1 - self._side]
                    why = f"it is beyond {opp}'s nearest non-empty row"
                raise IllegalActionError(f"{shown}: cannot drop the displaced piece on {SQUARE_NAMES[drop]}: {why}")
            return encode_move(s, end, drop)
        return encode_move(s, end, NO_DROP)

    # -- people ----------------------------------------------------------
    def input_choices(self, text: str) -> list[str]:
        """Legal action strings consistent with the partial input (step-by-step entry).

        ``c1`` lists the moves of the piece on c1, ``c1-b1`` those through or onto b1
        (ending on b1 needs a drop square: ``c1-b1(a4)``); plain moves come before replaces.
        A complete landing sequence that is not canonical (``c1-b1-c2``) gives the
        canonical string of the move it realises. An impossible input gives [].
        """
        t = text.strip().lower()
        if self.is_terminal():
            return []
        strings = [self.action_to_string(a) for a in self.legal_actions()]
        out = [x for x in strings if x.lower().startswith(t)]
        if not out and self._phase == PLAY:
            try:
                out = [self.action_to_string(self.string_to_action(t))]
            except (NotationError, IllegalActionError):
                out = []
        return sorted(out, key=lambda x: "(" in x)

    def render(self) -> str:
        """The board for a terminal: row 6 at the top, both goals, the side to move."""
        b = self._board
        files = "   a  b  c  d  e  f"
        lines = ["        [ North's goal: South wins here ]", files]
        for r in range(SIZE - 1, -1, -1):
            cells = "  ".join(str(b[r * SIZE + c]) if b[r * SIZE + c] else "." for c in range(SIZE))
            lines.append(f"{r + 1}  {cells}  {r + 1}")
        lines.append(files)
        lines.append("        [ South's goal: North wins here ]")
        out = self.outcome()
        if out is not None:
            lines.append(f"game over: {self.result_string()} ({out.reason})")
        elif self._phase != PLAY:
            row = 1 if self._phase == SETUP_SOUTH else 6
            lines.append(f"{SIDE_NAMES[self._side]} to place a set on row {row} (e.g. 321123)")
        else:
            _, row = self._movable_info()
            extra = f", movable row {row + 1}" if row is not None else ", no move: pass"
            lines.append(f"{SIDE_NAMES[self._side]} to move{extra}")
        return "\n".join(lines)

    def summary(self) -> dict:
        n = sum(1 for a in self._history if a >= MOVE_BASE)
        return {"moves": n}

    # -- search ----------------------------------------------------------
    def hash_key(self) -> int:
        """The incremental Zobrist key of the position (board and side to move)."""
        return self._key

    def successor_keys(self) -> dict[int, int]:
        """Distinct successor positions of the current play position: key -> first action."""
        b, side, key = self._board, self._side, self._key
        out: dict[int, int] = {}
        for a in generate(b, side, self._replace) or [PASS]:
            k = successor_key(b, side, key, a)
            if k not in out:
                out[k] = a
        return out

    def perft(self, depth: int) -> int:
        """Nodes at ``depth`` plies; children are distinct successor positions; repetition is ignored."""
        if depth == 0:
            return 1
        if self._agreed or self._resigned:
            return 0
        return self._perft(depth)

    def _perft(self, depth: int) -> int:
        if self._winner is not None:
            return 0
        if self._phase != PLAY:
            if depth == 1:
                return NUM_ARRANGEMENTS
            total = 0
            for a in range(NUM_ARRANGEMENTS):
                self.apply_action(a)
                total += self._perft(depth - 1)
                self._undo_action(a)
            return total
        children = self.successor_keys()
        if depth == 1:
            return len(children)
        total = 0
        for a in children.values():
            self.apply_action(a)
            total += self._perft(depth - 1) if depth > 1 else 1
            self._undo_action(a)
        return total


class ReferenceGygesGame(Game):
    """Gygès: ``variant`` ``standard`` or ``beginner`` (alias ``no-replace``: no replace)."""

    name = "gyges"
    title = "Gygès"
    variants = ("standard", "beginner")
    variant_aliases = {"no-replace": "beginner", "noreplace": "beginner"}

    @property
    def seat_names(self) -> tuple[str, ...]:
        return ("south", "north")

    @property
    def num_distinct_actions(self) -> int:
        return NUM_ACTIONS

    def new_initial_state(self) -> ReferenceGygesState:
        return ReferenceGygesState(self)

    def state_from_position(self, position: str) -> ReferenceGygesState:
        """A state from a position string (see :mod:`.notation`).

        Besides game positions (12 pieces: four of each), the setup positions are
        accepted: an empty board with South to move, or South's set on row 1 with
        North to move; and a won position (11 pieces: the 12th is in the goal of
        the side to move, whose opponent has won).
        """
        board, side = parse_position(position)
        counts = [board.count(v) for v in range(4)]
        n = NSQ - counts[0]
        norm = format_position(board, side)
        if n == 0:
            if side != 0:
                raise NotationError("an empty board is South's setup: the side to move must be S")
            return ReferenceGygesState(self, board, 0, SETUP_SOUTH, start=norm)
        if n == 6:
            row1 = "".join(map(str, board[:SIZE]))
            if row1 not in ARRANGEMENTS or side != 1:
                raise NotationError(
                    "a position with 6 pieces is North's setup: South's set (two 1s, two 2s, two 3s) on row 1, N to move"
                )
            return ReferenceGygesState(self, board, 1, SETUP_NORTH, start=norm)
        if n == 12:
            for v in (1, 2, 3):
                if counts[v] != 4:
                    raise NotationError(f"position has {counts[v]} pieces with {v} ring(s); a game has four of each")
            return ReferenceGygesState(self, board, side, PLAY, start=norm)
        if n == 11:
            if sorted(counts[1:]) != [3, 4, 4]:
                raise NotationError(f"position has {counts[1]}/{counts[2]}/{counts[3]} pieces with 1/2/3 rings; expected four of each")
            st = ReferenceGygesState(self, board, side, PLAY, start=norm)
            st._winner = 1 - side
            return st
        raise NotationError(
            f"position has {n} pieces; a game position has 12 (four each of 1, 2 and 3 rings), a setup position 0 or 6"
        )

    def perft_start(self) -> ReferenceGygesState:
        """perft starts after the setup, from ``321123/000000/000000/000000/000000/321123 S`` (as the spec says)."""
        return self.state_from_position(REFERENCE_POSITION)

    def perft_benchmark(self) -> tuple[State, int]:
        return self.state_from_position(REFERENCE_POSITION), 2
