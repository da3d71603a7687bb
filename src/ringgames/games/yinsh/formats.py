"""YINSH record importers: boardspace.net SGF-like files and the official GIPF notation.

Rules source: ``shared/rules/yinsh.md``, section *Records*. Both importers
produce :class:`ringgames.records.Record` objects in the project's notation; the
generic :meth:`Record.replay` then checks every action against the rules.
Importing registers them with :mod:`ringgames.records` (done automatically by
:func:`ringgames.records.loads`).

>>> recs = parse_gipf("1.e3 2.a5 3.b5 4.c6 5.d6 6.e4 7.h7 8.g2 9.g3 10.g8 11.h7-g7")
>>> [t.tokens for t in recs[0].turns][-1]
['h7-g7']
>>> recs[0].replay().pool
50
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ...protocol import RingGamesError, State
from ...records import Record, RecordError, Turn, register_format
from ...textbounds import excerpt, shorten

__all__ = ["parse_boardspace", "parse_gipf", "to_gipf", "SgfNode", "parse_sgf"]


# -- SGF --------------------------------------------------------------------------------
# sgfmill (the maintained Python SGF library) was considered: its tokenizer accepts only
# letters in property names (FF[4]: PropIdent = UcLetter+), so boardspace's P0[...] and P1[...]
# do not parse with it. This is a small tokenizer of the same grammar with digits allowed:
#   Collection = GameTree+ ; GameTree = "(" Node+ GameTree* ")" ; Node = ";" Property*
#   Property = PropIdent PropValue+ ; PropIdent = [A-Z][A-Z0-9]* ; PropValue = "[" text "]"
# where "\" escapes the next character inside a value (an escaped line break is removed).
@dataclass
class SgfNode:
    """One SGF node: its number (the root node is 0, in file order), line, and properties in order."""

    number: int
    line: int
    props: list[tuple[str, list[str]]] = field(default_factory=list)


def _sgf_unescape(raw: str) -> str:
    if "\\" not in raw:
        return raw
    return re.sub(r"\\(\r\n|\n\r|[\s\S])", lambda m: "" if m.group(1) in ("\r\n", "\n\r", "\n", "\r") else m.group(1), raw)


# one token, after optional white space: a delimiter, a property name, a value, an unclosed '[' or anything else;
# possessive quantifiers keep it linear (no backtracking on a 10 MB value without its ']')
_TOKEN = re.compile(
    r"[ \t\r\n\f\v]*+(?:([;()])|([A-Z][A-Z0-9]*+)|\[([^\]\\]*+(?:\\[\s\S][^\]\\]*+)*+)\]|(\[)|([\s\S]))?"
)


def parse_sgf(text: str, source: str = "<string>") -> list[list[SgfNode]]:
    """The game trees of an SGF collection, each as the nodes of its main line (first variations).

    Nodes are numbered in file order, the root node being 0. Raises RecordError
    naming the source, node and line for anything outside the grammar, and for a
    file that ends inside a node or before a game tree's ``)`` (a truncated file).
    """
    games: list[list[SgfNode]] = []
    i = text.find("(")
    if i < 0 or text[:i].strip():
        raise RecordError(f"{source}: not an SGF file (it must start with '(')")
    number = 0
    line, line_pos = 1, 0  # the line of line_pos, advanced at each node (linear in all)
    # one entry per open game tree: [on the main line, a child tree was read, nodes read]
    stack: list[list[Any]] = []
    main: list[SgfNode] = []
    node: SgfNode | None = None
    ident: str | None = None  # the property whose values are being read
    values: list[str] = []

    def here(pos: int) -> str:
        where = f"node {node.number}, " if node is not None else ""
        return f"{source}: {where}line {1 + text.count(chr(10), 0, pos)}"

    while True:
        m = _TOKEN.match(text, i)
        assert m is not None  # the last alternative takes any character; at the end, only white space matches
        delim, name, value, unclosed, other = m.groups()
        start, i = m.end() - 1, m.end()
        if value is not None:
            if ident is None:
                raise RecordError(f"{here(start)}: a value without a property name")
            values.append(_sgf_unescape(value))
            continue
        if unclosed is not None:
            what = f"the value of {shorten(ident, 20)}" if ident else "a value"
            raise RecordError(f"{here(start)}: the file ends inside {what} ({excerpt(text[start:], 40)}): truncated")
        if ident is not None:
            assert node is not None
            if not values:
                raise RecordError(f"{here(start)}: property {shorten(ident, 20)} without a [value]")
            node.props.append((ident, values))
            ident, values = None, []
        if m.lastindex is None:
            break  # the end of the text (only white space was left)
        if delim == "(":
            if not stack:
                main = []
                stack.append([True, False, 0])
            else:
                top = stack[-1]
                if top[2] == 0:
                    raise RecordError(f"{here(start)}: a game tree must start with a node (';')")
                stack.append([top[0] and not top[1], False, 0])
                top[1] = True
            node = None
        elif delim == ")":
            if not stack:
                raise RecordError(f"{here(start)}: ')' without a matching '('")
            if stack[-1][2] == 0:
                raise RecordError(f"{here(start)}: a game tree without nodes")
            stack.pop()
            if not stack:
                games.append(main)
            node = None
        elif delim == ";":
            if not stack:
                raise RecordError(f"{here(start)}: a node outside a game tree ('(' missing)")
            if stack[-1][1]:
                raise RecordError(f"{here(start)}: a node after a variation (nodes must come first)")
            line += text.count("\n", line_pos, start)
            line_pos = start
            node = SgfNode(number, line)
            number += 1
            stack[-1][2] += 1
            if stack[-1][0]:
                main.append(node)
        elif name is not None:
            if node is None:
                raise RecordError(f"{here(start - len(name) + 1)}: a property outside a node (';' missing)")
            ident = name
        else:
            raise RecordError(
                f"{here(start)}: unexpected {excerpt(other)} (SGF has '(', ';', properties like P0[...], ')')"
            )
    if stack:
        last = f"node {number - 1}" if number else "the start"
        raise RecordError(f"{source}: {last}: the file ends before the game's closing ')': truncated")
    if not games:
        raise RecordError(f"{source}: no SGF game tree")
    return games


# -- boardspace.net ------------------------------------------------------------------
_PT = r"([A-Ka-k])\s*([0-9]{1,2})"


def _detect_boardspace(text: str) -> bool:
    return bool(re.search(r"GM\[24\]", text)) or bool(re.search(r";\s*P[01]\[\s*[0-9]*\s*Start\s+White", text, re.I))


def _pt(c: str, r: str) -> str:
    return f"{c.lower()}{int(r)}"


def parse_boardspace(text: str, source: str = "<string>") -> list[Record]:
    """Read a boardspace.net YINSH file (2005 and modern formats).

    Handles ``place``/``drop board``/``pick board`` move sequences, one-command
    robot ``move``s, ``remove`` of rows and rings, ``Pass``, ``Resign``, ``Done``,
    no-op ``pick wr``/``drop wr`` pairs and timing nodes. The file is read with a
    real SGF tokenizer (:func:`parse_sgf`): ``;`` or an escaped ``\\]`` inside a
    value is data. Raises RecordError naming the node for a command it cannot
    read, and for a truncated file. One record per game tree.
    """
    return [_boardspace_record(nodes, source) for nodes in parse_sgf(text, source)]


def _boardspace_record(nodes: list[SgfNode], source: str) -> Record:
    tags: dict[str, str] = {}
    variant = "standard"
    events: list[tuple[str, int, str]] = []  # (where, player, token)
    pending: dict[str, Any] | None = None  # a human move being built: origin, dest, where, player

    def flush() -> None:
        nonlocal pending
        if pending is not None:
            if pending["dest"] is None:
                raise RecordError(f"{source}: {pending['where']}: ring picked up at {pending['origin']} but never dropped")
            # the drop node made the move: errors name it
            events.append((pending["dest_where"], pending["player"], f"{pending['origin']}-{pending['dest']}"))
            pending = None

    for node in nodes:
        n = node.number
        for key, vals in node.props:
            for val in vals:
                where = f"node {n}"
                if key == "SU":
                    v = val.strip().lower()
                    if "blitz" in v:
                        variant = "blitz"
                    elif v != "yinsh":
                        raise RecordError(f"{source}: {where}: unknown boardspace game type SU[{shorten(val, 40)}]")
                    continue
                if key in ("GM", "VV", "TM", "CM", "TC", "FF", "AP"):
                    continue
                if key == "DT":
                    tags["Date"] = val.strip()
                    continue
                if key == "GN":
                    tags["Event"] = val.strip()
                    continue
                if key == "RE":
                    tags["BoardspaceResult"] = val.strip()
                    continue
                if key not in ("P0", "P1"):
                    continue
                player = int(key[1])
                cmd = val.strip()
                m = re.match(r'id\s+"(.*)"$', cmd, re.DOTALL)
                if m:
                    tags["White" if player == 0 else "Black"] = m.group(1)
                    continue
                cmd = re.sub(r"^[0-9]+\s+", "", cmd)  # sequence number
                where = f"node {n} ({shorten(cmd, 40)})"
                low = cmd.lower()
                if low.startswith("time") or low.startswith("start") or low in ("done", "", "edit"):
                    continue
                if re.match(r"^(pick|drop)\s+[wb]r$", low):
                    continue  # picking up a ring from the reserve and putting it back
                m = re.match(r"^place\s+([wb])r\s+" + _PT + "$", cmd, re.I)
                if m:
                    flush()
                    events.append((where, player, _pt(m.group(2), m.group(3))))
                    continue
                m = re.match(r"^place\s+([wb])\s+" + _PT + "$", cmd, re.I)
                if m:
                    flush()
                    pending = {"origin": _pt(m.group(2), m.group(3)), "dest": None, "where": where, "player": player}
                    continue
                m = re.match(r"^drop\s+board\s+" + _PT + "$", cmd, re.I)
                if m:
                    if pending is None:
                        raise RecordError(f"{source}: {where}: drop without a ring in hand")
                    pending["dest"] = _pt(m.group(1), m.group(2))
                    pending["dest_where"] = where
                    continue
                m = re.match(r"^pick\s+board\s+" + _PT + "$", cmd, re.I)
                if m:
                    p = _pt(m.group(1), m.group(2))
                    if pending is None or p not in (pending["origin"], pending["dest"]):
                        raise RecordError(f"{source}: {where}: pick of {p} does not take back the ring just moved")
                    pending["dest"] = None
                    continue
                m = re.match(r"^move\s+" + _PT + r"\s+" + _PT + "$", cmd, re.I)
                if m:
                    flush()
                    events.append((where, player, f"{_pt(m.group(1), m.group(2))}-{_pt(m.group(3), m.group(4))}"))
                    continue
                m = re.match(r"^remove\s+([wb])\s+" + _PT + r"\s+" + _PT + "$", cmd, re.I)
                if m:
                    flush()
                    events.append((where, player, f"x{_pt(m.group(2), m.group(3))}-{_pt(m.group(4), m.group(5))}"))
                    continue
                m = re.match(r"^remove\s+([wb])r\s+" + _PT + "$", cmd, re.I)
                if m:
                    flush()
                    events.append((where, player, f"x{_pt(m.group(2), m.group(3))}"))
                    continue
                if low == "pass":
                    flush()
                    events.append((where, player, "pass"))
                    continue
                if low == "resign":
                    flush()
                    events.append((where, player, "resign"))
                    continue
                raise RecordError(f"{source}: node {n} ({excerpt(cmd)}): unknown boardspace command")
    flush()
    if not events and "White" not in tags:
        raise RecordError(f"{source}: no YINSH game found (no P0/P1 nodes)")
    rec = Record(game="yinsh", source=source, format="boardspace")
    rec.tags = {"Game": "yinsh", "Variant": variant, "Players": "2", **tags}
    for where, player, tok in events:
        last = rec.turns[-1] if rec.turns else None
        if last is not None and last.player == player and tok != "resign" and last.tokens[-1] != "resign":
            last.tokens.append(tok)
            assert last.wheres is not None
            last.wheres.append(where)
        else:
            rec.turns.append(Turn([tok], where=where, player=player, wheres=[where]))
    return rec


# -- GIPF notation -------------------------------------------------------------------
_GIPF_TOKEN = re.compile(r"^([0-9]{1,6})\.(\S*)$")
_REMOVAL = re.compile(r"x([a-k][0-9]{1,2})(?:-([a-k][0-9]{1,2}))?", re.I)


def _detect_gipf(text: str) -> bool:
    return bool(re.match(r"^\s*1\.\s*[a-kA-K][0-9]{1,2}\b", text))


def parse_gipf(text: str, source: str = "<string>", variant: str = "standard") -> list[Record]:
    """Read a game in the official GIPF notation (``1.e3 2.a5 ... 11.h7-g7 ... i8-f5;xg5-g9xa5``).

    The short form (``i8-f5;xa5``, row omitted) is resolved against the position:
    the row must then be the only one the player can remove. Raises RecordError
    naming the move number. Lines starting with ``[`` are tags (``[Variant "blitz"]``).
    """
    from ... import load_game
    from .state import YinshState

    tags = {}
    for tag in re.finditer(r'^\s*\[\s*(\w+)\s+"([^"]*)"\s*\]\s*$', text, re.M):
        tags[tag.group(1)] = tag.group(2)
    variant = tags.get("Variant", variant)
    body = re.sub(r'^\s*\[.*\]\s*$', "", text, flags=re.M)
    body = re.sub(r"\{[^}]*\}", " ", body)  # comments
    state = load_game("yinsh", variant).new_initial_state()
    assert isinstance(state, YinshState)
    rec = Record(game="yinsh", source=source, format="gipf")
    rec.tags = {"Game": "yinsh", "Variant": state.game.variant, "Players": "2", **{k: v for k, v in tags.items() if k not in ("Game", "Variant", "Players")}}
    expected = 1
    for raw in body.split():
        m = _GIPF_TOKEN.match(raw)
        if not m:
            raise RecordError(f"{source}: {excerpt(raw)}: expected a numbered move like '11.h7-g7'")
        num, content = int(m.group(1)), m.group(2)
        if num != expected:
            raise RecordError(f"{source}: move {num}: expected move number {expected}")
        expected += 1
        player = (num - 1) % 2
        where = f"move {num}"
        tokens: list[str] = []
        try:
            for part in filter(None, content.split(";")):
                if part.lower().startswith("x"):
                    items = _REMOVAL.findall(part)
                    if "".join(f"x{a}" + (f"-{b}" if b else "") for a, b in items).lower() != part.lower():
                        raise RecordError(f"{source}: {where}: cannot read removal {excerpt(part)}")
                    for a, b in items:
                        if b:
                            tokens.append(f"x{a}-{b}".lower())
                            state.play(tokens[-1])
                        else:
                            if state.phase == "row":  # short form: the row is implied
                                rows = state.legal_actions()
                                if len(rows) != 1:
                                    raise RecordError(
                                        f"{source}: {where}: removal {excerpt(part)} omits the row but there are {len(rows)} to choose from"
                                    )
                                tokens.append(state.action_to_string(rows[0]))
                                state.apply_action(rows[0])
                            tokens.append(f"x{a}".lower())
                            state.play(tokens[-1])
                else:
                    tokens.append(part.lower())
                    state.play(tokens[-1])
        except RingGamesError as exc:
            if isinstance(exc, RecordError):
                raise
            raise RecordError(f"{source}: {where} ({shorten(content)}): {shorten(str(exc), 200)}") from None
        rec.turns.append(Turn(tokens, where=where, player=player))
    return [rec]


def to_gipf(state: State) -> str:
    """The game of ``state`` in GIPF notation (long form, one numbered turn per player turn)."""
    rec = Record.from_state(state)
    out = []
    for i, turn in enumerate(rec.turns, 1):
        parts: list[str] = []
        for tok in turn.tokens:
            if tok.startswith("x") and parts and parts[-1].startswith("x"):
                parts[-1] += tok
            else:
                parts.append(tok)
        out.append(f"{i}.{';'.join(parts)}")
    return " ".join(out)


register_format("boardspace", _detect_boardspace, parse_boardspace)
register_format("gipf", _detect_gipf, parse_gipf)
