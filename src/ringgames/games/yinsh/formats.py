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
from typing import Any

from ...protocol import RingGamesError, State
from ...records import Record, RecordError, Turn, register_format

__all__ = ["parse_boardspace", "parse_gipf", "to_gipf"]

# -- boardspace.net ------------------------------------------------------------------
_PROP = re.compile(r"([A-Z][A-Z0-9]*)((?:\[(?:[^\]\\]|\\.)*\])+)")
_PT = r"([A-Ka-k])\s*(\d{1,2})"


def _detect_boardspace(text: str) -> bool:
    return bool(re.search(r"GM\[24\]", text)) or bool(re.search(r";\s*P[01]\[\s*\d*\s*Start\s+White", text, re.I))


def _pt(c: str, r: str) -> str:
    return f"{c.lower()}{int(r)}"


def parse_boardspace(text: str, source: str = "<string>") -> list[Record]:
    """Read a boardspace.net YINSH file (2005 and modern formats).

    Handles ``place``/``drop board``/``pick board`` move sequences, one-command
    robot ``move``s, ``remove`` of rows and rings, ``Pass``, ``Resign``, ``Done``,
    no-op ``pick wr``/``drop wr`` pairs and timing nodes. Raises RecordError naming
    the node for a command it cannot read.
    """
    body = text.strip()
    if body.startswith("("):
        body = body[1:]
    nodes = body.split(";")
    if nodes and not nodes[0].strip():
        nodes = nodes[1:]  # the root node is node 0
    tags: dict[str, str] = {}
    variant = "standard"
    events: list[tuple[str, int, str]] = []  # (where, player, token)
    pending: dict[str, Any] | None = None  # a human move being built: origin, dest, where, player

    def flush() -> None:
        nonlocal pending
        if pending is not None:
            if pending["dest"] is None:
                raise RecordError(f"{source}: {pending['where']}: ring picked up at {pending['origin']} but never dropped")
            events.append((pending["where"], pending["player"], f"{pending['origin']}-{pending['dest']}"))
            pending = None

    for n, node in enumerate(nodes, 0):
        for key, vals in _PROP.findall(node):
            for val in re.findall(r"\[((?:[^\]\\]|\\.)*)\]", vals):
                where = f"node {n}"
                if key == "SU":
                    v = val.strip().lower()
                    if "blitz" in v:
                        variant = "blitz"
                    elif v != "yinsh":
                        raise RecordError(f"{source}: {where}: unknown boardspace game type SU[{val}]")
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
                m = re.match(r'id\s+"(.*)"$', cmd)
                if m:
                    tags["White" if player == 0 else "Black"] = m.group(1)
                    continue
                cmd = re.sub(r"^\d+\s+", "", cmd)  # sequence number
                where = f"node {n} ({cmd})"
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
                raise RecordError(f"{source}: {where}: unknown boardspace command {cmd!r}")
    flush()
    if not events and "White" not in tags:
        raise RecordError(f"{source}: no YINSH game found (no P0/P1 nodes)")
    rec = Record(game="yinsh", source=source, format="boardspace")
    rec.tags = {"Game": "yinsh", "Variant": variant, "Players": "2", **tags}
    for where, player, tok in events:
        if rec.turns and rec.turns[-1].player == player and tok != "resign" and rec.turns[-1].tokens[-1] != "resign":
            rec.turns[-1].tokens.append(tok)
        else:
            rec.turns.append(Turn([tok], where=where, player=player))
    return [rec]


# -- GIPF notation -------------------------------------------------------------------
_GIPF_TOKEN = re.compile(r"^(\d+)\.(\S*)$")
_REMOVAL = re.compile(r"x([a-k]\d{1,2})(?:-([a-k]\d{1,2}))?", re.I)


def _detect_gipf(text: str) -> bool:
    return bool(re.match(r"^\s*1\.\s*[a-kA-K]\d{1,2}\b", text))


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
            raise RecordError(f"{source}: {raw!r}: expected a numbered move like '11.h7-g7'")
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
                        raise RecordError(f"{source}: {where}: cannot read removal {part!r}")
                    for a, b in items:
                        if b:
                            tokens.append(f"x{a}-{b}".lower())
                            state.play(tokens[-1])
                        else:
                            if state.phase == "row":  # short form: the row is implied
                                rows = state.legal_actions()
                                if len(rows) != 1:
                                    raise RecordError(
                                        f"{source}: {where}: removal {part!r} omits the row but there are {len(rows)} to choose from"
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
            raise RecordError(f"{source}: {where} ({content}): {exc}") from None
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
