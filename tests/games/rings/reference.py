"""A slow, pure-Python RINGS engine kept ONLY as a test oracle for the compiled kernel.

It was the first implementation of the rules (incremental bookkeeping in flat
lists); the differential tests check that the kernel-backed RingsState agrees
with it on legal actions, successor positions, scores and results.

Original docstring: RINGS rules: the game and its state, with incremental bookkeeping.

A turn is (place P | pass), then, while a conversion is legal for the mover,
(convert C | end); when no conversion is legal the turn ends by itself (that is
not a ply). After N consecutive pass turns (N = players still in the game) the
game ends once the last of those turns is complete; a pass turn with
conversions still counts as a pass.

Bookkeeping (flat lists, ``S = players + 1`` entries per circle; entry
``players`` is "nobody", the owner of stones left by resigned players):

* ``owner[pt]``: -1 empty, a seat, or ``players`` (nobody);
* ``cnt[c*S+p]``: stones of p on circle c; ``emp[c]``: empty points of c;
* ``inf[c*S+p]``: influence of seat p on c (stones + p's rings among c's neighbours);
  ``tot[c]``: the seats' total influence on c (nobody has none);
* ``ring[c]``: the ring owner or -1; ``safe[pt]``: how many of its owner's rings hold pt;
* ``uns[c*S+p]``: p's unsafe stones on c; ``uns_tot[c]``: all seats' unsafe stones on c;
* ``maj[c]``: the seat with majority on c or -1 (at most one seat can have it);
  ``score[p]``: circles where p has majority;
* ``conv[c]``: the seat for which c is convertible (majority and an unsafe
  opponent stone) or -1; ``conv_count[p]``: how many.

Each change of a point's owner updates its 1–3 circles in O(players) time.
"""

from __future__ import annotations

from itertools import compress

from ringgames.games.rings.board import (
    CIRCLE_NAMES,
    CIRCLE_NEIGHBOURS,
    CIRCLE_POINTS,
    LETTERS,
    NUM_CIRCLES,
    NUM_POINTS,
    POINT_CIRCLES,
    POINT_COORDS,
)
from ringgames.games.rings.notation import (
    CONVERT0,
    END,
    NUM_ACTIONS,
    PASS,
    SEAT_LETTERS,
    SEAT_NAMES,
    action_to_string,
    format_position,
    parse_action,
    parse_position,
)
from ringgames.protocol import TERMINAL, Game, NotationError, Outcome, State

__all__ = ["ReferenceRingsGame", "ReferenceRingsState"]

_PC = POINT_CIRCLES
_CP = CIRCLE_POINTS
_NB = CIRCLE_NEIGHBOURS
_ALL_POINTS = range(NUM_POINTS)
_ALL_CIRCLES = range(NUM_CIRCLES)


class ReferenceRingsGame(Game):
    """RINGS for 2–6 players. Seats in turn order: red, blue, green, yellow, purple, orange.

    >>> g = ReferenceRingsGame(players=3)
    >>> g.seat_names
    ('red', 'blue', 'green')
    >>> s = g.new_initial_state()
    >>> len(s.legal_actions()), s.action_to_string(s.legal_actions()[-1])
    (217, 'pass')
    """

    name = "rings"
    title = "RINGS"
    variants = ("standard",)
    player_range = (2, 6)
    zero_sum = True

    @property
    def seat_names(self) -> tuple[str, ...]:
        return SEAT_NAMES[: self.num_players]

    @property
    def num_distinct_actions(self) -> int:
        return NUM_ACTIONS

    def new_initial_state(self) -> ReferenceRingsState:
        return ReferenceRingsState(self)

    def state_from_position(self, position: str) -> ReferenceRingsState:
        owner, mover, phase, passes, resigned = parse_position(position, self.num_players)
        n = self.num_players
        if len(resigned) >= n:
            raise NotationError("resigned: every player has resigned; at least one must remain")
        for p in resigned:
            if p in owner:
                raise NotationError(f"resigned player {SEAT_LETTERS[p]} still has stones (write them as x)")
        if n in owner and not resigned:
            raise NotationError("stones of nobody (x) but no resigned player")
        if mover in resigned and len(resigned) < n - 1:
            raise NotationError(f"the player to move ({SEAT_LETTERS[mover]}) has resigned")
        active = n - len(resigned)
        if passes > active:
            raise NotationError(f"passes: {passes} is more than the {active} players in the game")
        s = ReferenceRingsState(self, owner=owner, start_resigned=resigned)
        s._mover = mover
        s._phase = phase
        s._passes = passes
        if phase and passes >= active:
            raise NotationError("the game is over (passes), so no turn can be in its convert phase")
        if phase and not s._conv_count[mover]:
            raise NotationError(
                f"phase {position.split()[2]!r}, but {SEAT_NAMES[mover]} has no legal conversion (the turn would have ended)"
            )
        s._start = s.position()
        return s

    def perft_benchmark(self) -> tuple[ReferenceRingsState, int]:
        """The empty board at depth 3 (10,077,912 nodes with 2 players; about half a second)."""
        return self.new_initial_state(), 3


class ReferenceRingsState(State):
    """A RINGS position with its history. See the module docs for the bookkeeping."""

    def __init__(self, game: ReferenceRingsGame, owner=None, start_resigned=()):
        self.game = game
        n = self._n = game.num_players
        self._S = n + 1
        self._history: list[int] = []
        self._resigned: list[int] = []
        self._agreed = False
        self._start_resigned: list[int] = list(start_resigned)
        self._start: str | None = None
        self._mover = 0
        self._phase = 0  # 0 place, 1 convert after placing, 2 convert after passing
        self._passes = 0
        self._undo: list[tuple] = []
        self._resign_undo: list[tuple] = []
        self._owner = [-1] * NUM_POINTS if owner is None else list(owner)
        self._rebuild()

    # -- bookkeeping -------------------------------------------------------
    def _out(self) -> list[int]:
        return self._start_resigned + self._resigned

    def _rebuild(self) -> None:
        """Recompute every derived array from ``_owner`` and the resigned seats."""
        n, S = self._n, self._S
        out = set(self._out())
        owner = self._owner
        for pt in _ALL_POINTS:
            if 0 <= owner[pt] < n and owner[pt] in out:
                owner[pt] = n
        self._active = [p not in out for p in range(n)]
        self._num_active = n - len(out)
        self._empty = [1 if o < 0 else 0 for o in owner]
        cnt = self._cnt = [0] * (NUM_CIRCLES * S)
        emp = self._emp = [0] * NUM_CIRCLES
        for c in _ALL_CIRCLES:
            for pt in _CP[c]:
                o = owner[pt]
                if o < 0:
                    emp[c] += 1
                else:
                    cnt[c * S + o] += 1
        ring = self._ring = [-1] * NUM_CIRCLES
        safe = self._safe = [0] * NUM_POINTS
        inf = self._inf = list(cnt)
        for c in _ALL_CIRCLES:
            inf[c * S + n] = 0
        for c in _ALL_CIRCLES:
            o = owner[_CP[c][0]]
            if 0 <= o < n and cnt[c * S + o] == 6:
                ring[c] = o
                for pt in _CP[c]:
                    safe[pt] += 1
                for d in _NB[c]:
                    inf[d * S + o] += 1
        self._tot = [sum(inf[c * S : c * S + n]) for c in _ALL_CIRCLES]
        uns = self._uns = [0] * (NUM_CIRCLES * S)
        for pt in _ALL_POINTS:
            o = owner[pt]
            if 0 <= o < n and not safe[pt]:
                for c in _PC[pt]:
                    uns[c * S + o] += 1
        self._uns_tot = [sum(uns[c * S : c * S + n]) for c in _ALL_CIRCLES]
        self._maj = [-1] * NUM_CIRCLES
        self._conv = [-1] * NUM_CIRCLES
        self._score = [0] * n
        self._conv_count = [0] * n
        for c in _ALL_CIRCLES:
            self._refresh(c)

    def _refresh(self, c: int) -> None:
        """Recompute who has majority on circle c and whether c is convertible."""
        S = self._S
        b = c * S
        inf = self._inf
        thr = self._tot[c] + self._emp[c]
        m = self._maj[c]
        if m < 0 or 2 * inf[b + m] <= thr:
            new = -1
            for p in range(self._n):
                if 2 * inf[b + p] > thr:
                    new = p
                    break
            if new != m:
                if m >= 0:
                    self._score[m] -= 1
                if new >= 0:
                    self._score[new] += 1
                self._maj[c] = new
                m = new
        v = m if m >= 0 and self._uns_tot[c] > self._uns[b + m] else -1
        o = self._conv[c]
        if v != o:
            if o >= 0:
                self._conv_count[o] -= 1
            if v >= 0:
                self._conv_count[v] += 1
            self._conv[c] = v

    def _set_owner(self, pt: int, new: int) -> None:
        """Change the owner of an unsafe point (or an empty one) and update its circles."""
        owner = self._owner
        old = owner[pt]
        owner[pt] = new
        self._empty[pt] = 1 if new < 0 else 0
        n, S = self._n, self._S
        cnt, inf, tot, emp, uns, uns_tot = self._cnt, self._inf, self._tot, self._emp, self._uns, self._uns_tot
        for c in _PC[pt]:
            b = c * S
            if old < 0:
                emp[c] -= 1
            else:
                cnt[b + old] -= 1
                if old < n:
                    inf[b + old] -= 1
                    tot[c] -= 1
                    uns[b + old] -= 1
                    uns_tot[c] -= 1
            if new < 0:
                emp[c] += 1
            else:
                cnt[b + new] += 1
                if new < n:
                    inf[b + new] += 1
                    tot[c] += 1
                    uns[b + new] += 1
                    uns_tot[c] += 1
            self._refresh(c)

    def _add_ring(self, c: int, p: int) -> None:
        self._ring[c] = p
        S = self._S
        inf, tot, safe, uns, uns_tot = self._inf, self._tot, self._safe, self._uns, self._uns_tot
        for d in _NB[c]:
            inf[d * S + p] += 1
            tot[d] += 1
            self._refresh(d)
        for pt in _CP[c]:
            safe[pt] += 1
            if safe[pt] == 1:
                for e in _PC[pt]:
                    uns[e * S + p] -= 1
                    uns_tot[e] -= 1
                    self._refresh(e)

    def _remove_ring(self, c: int) -> None:
        p = self._ring[c]
        self._ring[c] = -1
        S = self._S
        inf, tot, safe, uns, uns_tot = self._inf, self._tot, self._safe, self._uns, self._uns_tot
        for d in _NB[c]:
            inf[d * S + p] -= 1
            tot[d] -= 1
            self._refresh(d)
        for pt in _CP[c]:
            safe[pt] -= 1
            if safe[pt] == 0:
                for e in _PC[pt]:
                    uns[e * S + p] += 1
                    uns_tot[e] += 1
                    self._refresh(e)

    def _new_rings(self, pts, p: int) -> list[int]:
        """Form the rings of p that the points ``pts`` (just given to p) complete."""
        S = self._S
        cnt, ring = self._cnt, self._ring
        formed = []
        for pt in pts:
            for c in _PC[pt]:
                if cnt[c * S + p] == 6 and ring[c] < 0:
                    self._add_ring(c, p)
                    formed.append(c)
        return formed

    def _convertible_points(self, c: int, p: int) -> list[int]:
        """The stones a conversion of c by p flips: unsafe stones of the other seats."""
        owner, safe, n = self._owner, self._safe, self._n
        return [pt for pt in _CP[c] if owner[pt] != p and 0 <= owner[pt] < n and not safe[pt]]

    def _end_turn(self) -> None:
        self._passes = self._passes + 1 if self._phase == 2 else 0
        self._phase = 0
        p = self._mover
        active = self._active
        n = self._n
        for _ in range(n):
            p = (p + 1) % n
            if active[p]:
                break
        self._mover = p

    def _over(self) -> bool:
        return self._agreed or self._num_active <= 1 or self._passes >= self._num_active

    # -- protocol ----------------------------------------------------------
    @property
    def history(self) -> list[int]:
        return self._history

    def active_players(self) -> list[int]:
        out = self._out()
        return [p for p in range(self._n) if p not in out]

    def is_terminal(self) -> bool:
        return self._over()

    def current_player(self) -> int:
        return TERMINAL if self._over() else self._mover

    def legal_actions(self) -> list[int]:
        if self._over():
            return []
        if self._phase == 0:
            acts = list(compress(_ALL_POINTS, self._empty))
            acts.append(PASS)
            return acts
        p = self._mover
        acts = [CONVERT0 + c for c, v in enumerate(self._conv) if v == p]
        acts.append(END)
        return acts

    def apply_action(self, action: int) -> None:
        p = self._mover
        rec = (p, self._phase, self._passes)
        if action < PASS:
            self._set_owner(action, p)
            self._phase = 1
            self._undo.append(rec + ((action,), (-1,), self._new_rings((action,), p)))
        elif action == PASS:
            self._phase = 2
            self._undo.append(rec + ((), (), ()))
        elif action == END:
            self._undo.append(rec + ((), (), ()))
            self._end_turn()
            self._history.append(action)
            return
        else:
            c = action - CONVERT0
            pts = self._convertible_points(c, p)
            olds = tuple(self._owner[pt] for pt in pts)
            for pt in pts:
                self._set_owner(pt, p)
            self._undo.append(rec + (tuple(pts), olds, self._new_rings(pts, p)))
        self._history.append(action)
        if not self._conv_count[p]:
            self._end_turn()

    def _undo_action(self, action: int) -> None:
        self._history.pop()
        mover, phase, passes, pts, olds, rings = self._undo.pop()
        for c in reversed(rings):
            self._remove_ring(c)
        for pt, o in zip(pts, olds, strict=True):
            self._set_owner(pt, o)
        self._mover, self._phase, self._passes = mover, phase, passes

    def clone(self) -> ReferenceRingsState:
        s = ReferenceRingsState.__new__(ReferenceRingsState)
        s.__dict__.update(self.__dict__)
        for k in (
            "_history", "_resigned", "_start_resigned", "_undo", "_resign_undo", "_owner", "_empty", "_active",
            "_cnt", "_emp", "_ring", "_safe", "_inf", "_tot", "_uns", "_uns_tot", "_maj", "_conv",
            "_score", "_conv_count",
        ):  # fmt: skip
            s.__dict__[k] = list(self.__dict__[k])
        return s

    def _rules_outcome(self) -> Outcome | None:
        act = self.active_players()
        if len(act) <= 1:
            return Outcome(tuple(act), "resign")
        if self._passes >= self._num_active:
            best = max(self._score[p] for p in act)
            return Outcome(tuple(p for p in act if self._score[p] == best), "passes")
        return None

    def action_to_string(self, action: int) -> str:
        return action_to_string(action)

    def _parse_action(self, text: str) -> int:
        return parse_action(text)

    def position(self) -> str:
        return format_position(self._owner, self._n, self._mover, self._phase, self._passes, self._out())

    # -- resignation -------------------------------------------------------
    def _after_resign(self) -> None:
        """The resigned seat's stones become nobody's; its turn passes on; the pass count restarts."""
        who = self._resigned[-1]
        self._resign_undo.append((list(self._owner), self._mover, self._phase, self._passes))
        self._rebuild()
        self._passes = 0
        if self._num_active <= 1:
            return
        if self._mover == who:
            self._phase = 0
            self._end_turn()
            self._passes = 0
        elif self._phase and not self._conv_count[self._mover]:
            self._end_turn()

    def _after_resign_undo(self) -> None:
        owner, self._mover, self._phase, self._passes = self._resign_undo.pop()
        self._owner = list(owner)  # clones share the saved list
        self._rebuild()

    # -- helpers for people and programs --------------------------------------
    def scores(self) -> list[int]:
        """Circles on which each seat has majority, in seat order."""
        return list(self._score)

    def summary(self) -> dict:
        return {"scores": self.scores(), "winners": list(self.winners())}

    def record_omits(self, action: int) -> bool:
        return action == END

    def implicit_turn_end(self) -> int | None:
        return END if not self._over() and self._phase else None

    def owner(self, point: int) -> int:
        """-1 (empty), a seat, or ``num_players`` for a stone of nobody."""
        return self._owner[point]

    def ring_owner(self, circle: int) -> int:
        """The seat whose ring circle is, or -1."""
        return self._ring[circle]

    def majority(self, circle: int) -> int:
        """The seat with majority on circle, or -1."""
        return self._maj[circle]

    def influence(self, player: int, circle: int) -> int:
        """Stones of player on circle plus player's rings among its neighbours."""
        return self._inf[circle * self._S + player]

    def is_safe(self, point: int) -> bool:
        """True if the stone on point lies in a ring of its owner."""
        return self._safe[point] > 0

    def phase(self) -> str:
        return ("place", "convert", "pass-convert")[self._phase]

    def pass_count(self) -> int:
        return self._passes

    def convertible_circles(self) -> list[int]:
        """Circles the player to move may convert now (empty outside the convert phase)."""
        if self._over() or not self._phase:
            return []
        return [c for c in _ALL_CIRCLES if self._conv[c] == self._mover]

    def convert_all(self) -> list[int]:
        """Convert every circle possible (the order-independent closure); returns the actions applied.

        Only in the convert phase; the turn then ends by itself (no ``end`` needed).
        """
        done = []
        p = self._mover
        while not self._over() and self._phase and self._mover == p:
            c = next(c for c in _ALL_CIRCLES if self._conv[c] == p)
            self.apply_action(CONVERT0 + c)
            done.append(CONVERT0 + c)
        return done

    def render(self) -> str:
        """A terminal drawing: stones (R B G ...), rings (r*) and circle control (r) at circle centres."""
        n = self._n
        width = 3 * len(LETTERS) + 1
        grid = [[" "] * width for _ in range(23)]
        for pt, (c, t) in enumerate(POINT_COORDS):
            o = self._owner[pt]
            grid[t - 1][3 * c + 1] = "." if o < 0 else "#" if o == n else SEAT_LETTERS[o].upper()
        for ci, pts in enumerate(_CP):
            c, t = POINT_COORDS[pts[0]]
            row = grid[t]  # centre row t+1
            if self._ring[ci] >= 0:
                row[3 * c + 2], row[3 * c + 3] = SEAT_LETTERS[self._ring[ci]], "*"
            elif self._maj[ci] >= 0:
                row[3 * c + 2] = SEAT_LETTERS[self._maj[ci]]
        head = "    " + "".join(f" {ch} " for ch in LETTERS)
        lines = [head]
        for r, row in enumerate(grid, 1):
            lines.append(f"{r:>3} " + "".join(row).rstrip())
        lines.append(head)
        names = self.game.seat_names
        out = self._out()
        lines.append(
            "stones: "
            + " ".join(f"{SEAT_LETTERS[p].upper()}={names[p]}" for p in range(n))
            + "  # = nobody's   circle centres: r = majority, r* = ring"
        )
        lines.append(
            "scores: "
            + "  ".join(f"{names[p]} {self._score[p]}" + (" (resigned)" if p in out else "") for p in range(n))
        )
        o = self.outcome()
        if o is not None:
            lines.append(f"game over ({o.reason}): " + self.result_string())
        else:
            me = names[self._mover]
            if self._phase == 0:
                lines.append(f"{me} to move: place a stone (e.g. K12) or pass   [passes in a row: {self._passes}]")
            else:
                cs = " ".join("x" + CIRCLE_NAMES[c] for c in self.convertible_circles())
                lines.append(f"{me} may convert: {cs}  (or end)")
        return "\n".join(lines)
