"""Game records: one format for all games (``.rgn``), plus importers.

The ``.rgn`` format is PGN-like::

    [Game "yinsh"]
    [Variant "standard"]
    [Players "2"]
    [White "alice"]
    [Black "bob"]
    [Date "2026.11.30"]
    [Result "white"]
    [Termination "rings"]

    1. e3
    2. a5
    ...
    h7-g7 xg5-g9 xa5   ; a comment runs to the end of the line

* Tag pairs ``[Key "value"]`` come first, one per line. Inside a value ``\\"``
  is a quote and ``\\\\`` a backslash (as in PGN); ``\\n`` and ``\\r`` are a
  line feed and a carriage return, and ``\\uXXXX`` any other line-breaking
  character, so that every value (a player named ``a;b`` or ``x]"y``) is one
  line and reads back exactly. ``;`` after the closing ``]`` starts a comment.
  ``Game`` is required; ``Variant`` and ``Players`` default to the game's
  defaults; ``Position`` gives a start position string.
* Then one **turn** per line: the actions one player takes in a row, in the
  game's notation, separated by spaces. A move number such as ``12.`` may lead
  a line; ``;`` starts a comment, which the reader keeps with the turn
  (:attr:`Turn.comment`) and :meth:`Record.dumps` writes back. Games played on a
  clock carry ``[TimeControl "300+3"]`` (seconds + increment, or ``"3d"``: days per
  move) and per turn a comment ``time=2.350 left=301.650`` (seconds the turn took,
  seconds left after it; :func:`turn_times` reads it). ``resign`` (optionally
  ``resign <seat>``) and ``draw`` (agreed) are special lines.
* Where the rules wait for a decision that ends the turn (RINGS' ``end``) a
  line ends its turn implicitly. ``...`` as the last token of the last line
  says that the turn is **not** ended (a record saved in the middle of a turn).
* Several games may follow one another in one file; each starts with its tags.

Other formats (boardspace.net YINSH files, the official GIPF notation) register
an importer with :func:`register_format`; :func:`load_file` detects the format
from the content.

>>> from ringgames import load_game
>>> s = load_game("yinsh").new_initial_state()
>>> for a in ["e3", "a5"]: _ = s.play(a)
>>> rec = Record.from_state(s, {"White": "alice"})
>>> print(rec.dumps())  # doctest: +NORMALIZE_WHITESPACE
[Game "yinsh"]
[Variant "standard"]
[Players "2"]
[White "alice"]
[Result "none"]
<BLANKLINE>
1. e3
2. a5
<BLANKLINE>
>>> loads(rec.dumps())[0].replay().position() == s.position()
True
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .protocol import AGREED_DRAW, RESIGN, Game, IllegalActionError, NotationError, RingGamesError, State
from .textbounds import ascii_int, excerpt, shorten

__all__ = [
    "RecordError",
    "Turn",
    "Record",
    "loads",
    "load_file",
    "save_file",
    "register_format",
    "detect_format",
    "TURN_GOES_ON",
]

#: last token of a record's last line: the turn is not ended (see the module docstring)
TURN_GOES_ON = "..."


class RecordError(RingGamesError, ValueError):
    """A record that cannot be read or replayed; the message names source, place and reason."""


@dataclass
class Turn:
    """One turn of a record: tokens in notation, where they came from, and (optionally) who played.

    ``wheres`` optionally names the place of each token (importers that merge
    several nodes into one turn), so that an error names the bad one.
    """

    tokens: list[str]
    where: str = ""
    player: int | None = None
    wheres: list[str] | None = None
    #: the comment of the turn's line (after ``;``), kept by the reader and written back by ``dumps``
    comment: str | None = None


def turn_times(turn: Turn) -> tuple[float, float] | None:
    """``(seconds the turn took, seconds left after it)`` from a ``time=S left=S`` comment, or None."""
    m = re.search(r"(?:^|\s)time=([0-9]+(?:\.[0-9]+)?)\s+left=([0-9]+(?:\.[0-9]+)?)(?:\s|$)", turn.comment or "")
    return (float(m.group(1)), float(m.group(2))) if m else None


def times_comment(spent_ms: int, left_ms: int) -> str:
    """The comment :func:`turn_times` reads: ``time=2.350 left=301.650``."""
    return f"time={spent_ms / 1000:.3f} left={left_ms / 1000:.3f}"


@dataclass
class Record:
    """A game record: tags plus turns. ``replay()`` turns it into a :class:`State`."""

    game: str
    tags: dict[str, str] = field(default_factory=dict)
    turns: list[Turn] = field(default_factory=list)
    source: str = "<string>"
    format: str = "rgn"

    # -- building --------------------------------------------------------
    @classmethod
    def from_state(cls, state: State, tags: dict[str, str] | None = None,
                   times: Sequence[tuple[int | None, int | None]] | None = None) -> Record:
        """A record of ``state``'s history; one turn per run of actions by one player. ``times``: per history
        entry, the milliseconds its seat's clock ran for it and had left after it (None: no clock); each turn
        then gets the comment ``time=S left=S`` (the sum of its entries, what was left after its last)."""
        game = state.game
        params = game.params()
        head = {"Game": game.name, "Variant": params.get("variant", ""), "Players": params.get("players", "")}
        start = state._start_position()
        if start is not None:
            head["Position"] = start
        head.update(tags or {})
        head["Result"] = state.result_string()
        out = state.outcome()
        if out is not None:
            head["Termination"] = out.reason
        turns: list[Turn] = []
        cur: Turn | None = None
        hist = state.history
        spent: dict[int, list[tuple[int, int]]] = {}  # id(turn) -> the entries' times

        def note(turn: Turn, i: int) -> None:
            t = times[i] if times is not None and i < len(times) else None
            if t is not None and t[0] is not None and t[1] is not None:
                spent.setdefault(id(turn), []).append((t[0], t[1]))

        for i, (e, s) in enumerate(state.replay_history()):
            if e.action == RESIGN:
                tok = "resign" if e.seat == e.to_move else f"resign {game.seat_names[e.seat]}"
                turns.append(Turn([tok]))
                note(turns[-1], i)
                cur = None
                continue
            if e.action == AGREED_DRAW:
                turns.append(Turn(["draw"]))
                cur = None
                continue
            p = e.seat
            # an omitted action (RINGS' turn end) is written after all when a resignation or draw follows
            # at once (a line before a resign/draw line implies no end, see replay) or when it would open
            # a line of its own (the turn went on after another player's resignation)
            omit = (
                s.record_omits(e.action)
                and not (i + 1 < len(hist) and hist[i + 1] in (RESIGN, AGREED_DRAW))
                and not (cur is None or cur.player != p)
            )
            if cur is None or cur.player != p:
                cur = Turn([], player=p)
                turns.append(cur)
            if not omit:
                cur.tokens.append(e.text)
            note(cur, i)
        for t in turns:
            if id(t) in spent:
                t.comment = times_comment(sum(x for x, _ in spent[id(t)]), spent[id(t)][-1][1])
        turns = [t for t in turns if t.tokens]
        # saved in the middle of a turn that replay would end implicitly: say that it goes on
        if (
            turns
            and turns[-1].player is not None
            and not s.is_terminal()
            and s.current_player() == turns[-1].player
            and s.implicit_turn_end() is not None
        ):
            turns[-1].tokens.append(TURN_GOES_ON)
        return cls(game.name, head, turns, source="<state>")

    # -- replay ----------------------------------------------------------
    def make_game(self) -> Game:
        """The game the tags name (``Game``, ``Variant``, ``Players``); RecordError if there is none."""
        from . import load_game

        try:
            return load_game(self.game, self.tags.get("Variant") or None, self.tags.get("Players") or None)
        except ValueError as exc:
            raise RecordError(f"{self.source}: {exc}") from None

    def replay(self, *, stop_on_error: bool = True) -> State:
        """Replay the turns; raises :class:`RecordError` naming source, place, move and reason."""
        game = self.make_game()
        try:
            start = self.tags.get("Position")
            state = game.new_initial_state() if not start else game.state_from_position(start)
        except NotationError as exc:
            raise RecordError(f"{self.source}: bad Position tag: {shorten(str(exc), 200)}") from None
        for n, turn in enumerate(self.turns, 1):
            line_player = None
            tokens = turn.tokens
            goes_on = bool(tokens) and tokens[-1] == TURN_GOES_ON
            if goes_on:
                tokens = tokens[:-1]
            for i, tok in enumerate(turn.tokens):
                if tok == TURN_GOES_ON:
                    if i != len(turn.tokens) - 1 or n != len(self.turns) or not tokens:
                        raise RecordError(
                            f"{self._where(turn, n, i)}: {TURN_GOES_ON!r} (turn not ended) may only end the last line,"
                            " after its actions"
                        )
                    continue
                low = tok.lower()
                try:
                    if low.startswith("resign"):
                        parts = low.split()
                        if len(parts) > 1:
                            seat = _seat_index(game, parts[1])
                        elif turn.player is not None:
                            seat = turn.player
                        else:
                            seat = state.current_player()
                        state.resign(seat)
                        continue
                    if low == "draw":
                        state.agree_draw()
                        continue
                    if state.is_terminal():
                        raise IllegalActionError(f"the game is already over ({state.result_string()})")
                    p = state.current_player()
                    if line_player is None:
                        line_player = p
                        if turn.player is not None and turn.player != p:
                            raise IllegalActionError(
                                f"it is {game.seat_names[p]}'s turn, not {game.seat_names[turn.player]}'s"
                            )
                    elif p != line_player:
                        raise IllegalActionError(
                            f"{excerpt(tok)} is {game.seat_names[p]}'s action, but this turn is"
                            f" {game.seat_names[line_player]}'s"
                        )
                    state.play(tok)
                except RingGamesError as exc:
                    msg = f"{self._where(turn, n, i)}: {excerpt(tok)}: {shorten(str(exc), 200)}"
                    if isinstance(exc, IllegalActionError) and exc.legal and len(exc.legal) <= 40:
                        msg += f" (legal: {' '.join(exc.legal)})"
                    raise RecordError(msg) from None
            if goes_on and (state.is_terminal() or line_player is None or state.current_player() != line_player
                            or state.implicit_turn_end() is None):
                raise RecordError(
                    f"{self._where(turn, n, len(turn.tokens) - 1)}: {TURN_GOES_ON!r} (turn not ended) only follows a turn"
                    " that would otherwise end here (RINGS: a conversion still possible)"
                )
            if not state.is_terminal() and line_player is not None and state.current_player() == line_player:
                nxt = self.turns[n].tokens[0].lower() if n < len(self.turns) and self.turns[n].tokens else ""
                # a resignation (or draw) may interrupt a turn: the line before it then ends its turn only if it says so
                end = None if goes_on or nxt.startswith("resign") or nxt == "draw" else state.implicit_turn_end()
                if end is not None:
                    state.apply_action(end)
        return state

    def _where(self, turn: Turn, n: int, i: int) -> str:
        """Source, place (the token's own node where known) and turn, for an error about token ``i``."""
        place = turn.wheres[i] if turn.wheres and i < len(turn.wheres) else turn.where
        text = " ".join(turn.tokens[:40]) + (" \u2026" if len(turn.tokens) > 40 else "")  # whatever the length
        return f"{self.source}: {place + ', ' if place else ''}turn {n} ({shorten(text)})"

    # -- text ------------------------------------------------------------
    def dumps(self) -> str:
        """The record as ``.rgn`` text. RecordError for a tag name that could not be read back."""
        for k in self.tags:
            if not _TAG_NAME.fullmatch(k):
                raise RecordError(f"{self.source}: tag name {excerpt(k)} is not a letter followed by letters, digits or _")
        lines = [f'[{k} "{_escape(v)}"]' for k, v in self.tags.items()]
        lines.append("")
        for i, t in enumerate(self.turns, 1):
            comment = " ".join((t.comment or "").split())  # one line
            lines.append(f"{i}. {' '.join(t.tokens)}" + (f" ; {comment}" if comment else ""))
        return "\n".join(lines) + "\n"

    def __repr__(self) -> str:
        return f"<Record {self.game} {self.source} {len(self.turns)} turns>"


def _seat_index(game: Game, name: str) -> int:
    names = [s.lower() for s in game.seat_names]
    if name.lower() in names:
        return names.index(name.lower())
    seat = ascii_int(name, limit=game.num_players - 1)
    if seat is not None:
        return seat
    raise NotationError(f"unknown seat {excerpt(name)} (seats: {', '.join(game.seat_names)})")


# characters that end a line for str.splitlines(): escaped in tag values so that a value stays on its line
_LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r"}
_UNESCAPES = {"n": "\n", "r": "\r"}
_TAG_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def _escape(v: str) -> str:
    r"""A tag value for writing between quotes: ``\"``, ``\\``, ``\n``, ``\r``, ``\uXXXX`` (other line breaks)."""
    return "".join(_ESCAPES.get(c) or (f"\\u{ord(c):04x}" if c in _LINE_BREAKS else c) for c in v)


def _unescape(v: str) -> str:
    """The inverse of :func:`_escape`; any other escaped character stands for itself."""

    def one(m: re.Match[str]) -> str:
        e = m.group(1)
        return chr(int(e[1:], 16)) if len(e) == 5 else _UNESCAPES.get(e, e)

    return re.sub(r"\\(u[0-9a-fA-F]{4}|.)", one, v, flags=re.DOTALL)


_TAG = re.compile(r'^\[\s*([A-Za-z][A-Za-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"\s*\]\s*(?:;.*)?$', re.DOTALL)
_MOVENO = re.compile(r"^[0-9]+\.+$")


def _parse_rgn(text: str, source: str) -> list[Record]:
    records: list[Record] = []
    cur: Record | None = None
    in_tags = False
    for lineno, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        line = stripped if stripped.startswith("[") else raw.split(";", 1)[0].strip()
        if not line:
            continue
        if line.startswith("["):
            m = _TAG.match(line)
            if not m:
                raise RecordError(f"{source}: line {lineno}: malformed tag {excerpt(stripped)}")
            if not in_tags:
                cur = Record(game="", source=source)
                records.append(cur)
                in_tags = True
            key, val = m.group(1), _unescape(m.group(2))
            assert cur is not None  # made at the first tag line
            cur.tags[key] = val
            if key == "Game":
                cur.game = val.lower()
            continue
        in_tags = False
        comment = raw.split(";", 1)[1].strip() if ";" in raw else None
        if cur is None:
            raise RecordError(f"{source}: line {lineno}: moves before any [Game \"...\"] tag")
        tokens = line.split()
        if tokens and _MOVENO.match(tokens[0]):
            tokens = tokens[1:]
        elif tokens and re.match(r"^[0-9]+\.", tokens[0]):
            tokens[0] = re.sub(r"^[0-9]+\.+", "", tokens[0])
        if not tokens:
            continue
        if tokens[0].lower() == "resign":
            tokens = [" ".join(tokens)]
        cur.turns.append(Turn(tokens, where=f"line {lineno}", comment=comment or None))
    for r in records:
        if not r.game:
            raise RecordError(f"{source}: a game has no [Game \"...\"] tag")
    return records


# -- formats --------------------------------------------------------------
Parser = Callable[[str, str], list[Record]]
_FORMATS: list[tuple[str, Callable[[str], bool], Parser]] = [
    ("rgn", lambda text: bool(re.search(r'^\s*\[\s*Game\s+"', text, re.M)), _parse_rgn),
]
_LOADED_PLUGINS = False


def register_format(name: str, detect: Callable[[str], bool], parse: Parser) -> None:
    """Add an importer: ``detect(text)`` says if it applies, ``parse(text, source)`` returns records."""
    _FORMATS.append((name, detect, parse))


def _load_plugins() -> None:
    global _LOADED_PLUGINS
    if not _LOADED_PLUGINS:
        _LOADED_PLUGINS = True
        import importlib

        from . import GAMES

        for spec in GAMES.values():
            mod = spec.split(":")[0] + ".formats"
            try:
                importlib.import_module(mod)
            except ModuleNotFoundError as exc:
                if exc.name is None or not mod.startswith(exc.name):
                    raise  # a real import error inside an importer


def detect_format(text: str) -> str | None:
    """The name of the format of ``text``, or None if no importer recognises it."""
    _load_plugins()
    for name, detect, _ in _FORMATS:
        if detect(text):
            return name
    return None


def loads(text: str, source: str = "<string>") -> list[Record]:
    """Parse records from text in any registered format (detected). Raises RecordError."""
    _load_plugins()
    for name, detect, parse in _FORMATS:
        if detect(text):
            recs = parse(text, source)
            for r in recs:
                r.format = name
            return recs
    raise RecordError(f"{source}: unknown record format (not .rgn, boardspace or GIPF notation)")


def load_file(path: str | Path) -> list[Record]:
    """Read records from a file; raises RecordError (file name included) for unreadable input."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise RecordError(f"{p}: cannot read: {exc.strerror}") from None
    return loads(text, str(p))


def save_file(path: str | Path, records: list[Record]) -> None:
    """Write records as ``.rgn`` text."""
    Path(path).write_text("\n".join(r.dumps() for r in records), encoding="utf-8")
