"""ringgames: exact engines, AI and play for YINSH, Gygès and RINGS.

>>> import ringgames
>>> game = ringgames.load_game("yinsh")
>>> state = game.new_initial_state()
>>> len(state.legal_actions())
85
>>> ringgames.deserialize_state(state.serialize()).position() == state.position()
True
"""

from __future__ import annotations

import importlib
import json

from .protocol import (
    AGREED_DRAW,
    RESIGN,
    TERMINAL,
    Game,
    HistoryEntry,
    IllegalActionError,
    NotationError,
    Outcome,
    Reason,
    RingGamesError,
    State,
    Symmetry,
    apply_strings,
)

__version__ = "0.1.0"

#: Registered games: name -> "module:Class". Imported lazily.
GAMES: dict[str, str] = {
    "yinsh": "ringgames.games.yinsh:YinshGame",
    "gyges": "ringgames.games.gyges:GygesGame",
    "rings": "ringgames.games.rings:RingsGame",
}

_ALIASES = {"gygès": "gyges", "gygès".upper().lower(): "gyges"}


def game_class(name: str) -> type[Game]:
    """The :class:`Game` subclass registered as ``name`` (raises ValueError if unknown)."""
    key = _ALIASES.get(name.lower(), name.lower())
    if key not in GAMES:
        raise ValueError(f"unknown game {name!r}; choose one of {', '.join(sorted(GAMES))}")
    module, cls = GAMES[key].split(":")
    return getattr(importlib.import_module(module), cls)


def load_game(name: str, variant: str | None = None, players: int | str | None = None) -> Game:
    """A :class:`Game` by registry name, e.g. ``load_game("yinsh", variant="blitz")``.

    Raises ValueError for an unknown game, variant or player count.
    """
    cls = game_class(name)
    return cls(variant=variant, players=None if players is None else int(players))


def deserialize_state(text: str) -> State:
    """Inverse of :meth:`State.serialize`. Raises NotationError for bad input."""
    try:
        data = json.loads(text)
        game = load_game(data["game"], data["params"].get("variant"), data["params"].get("players"))
        start = data.get("start")
        state = game.new_initial_state() if start is None else game.state_from_position(start)
        resigned = iter(data.get("resigned", []))  # the format before resign entries carried the seat
        for a in data["history"]:
            if isinstance(a, str) and a.startswith("resign:"):
                state.resign(int(a[7:]))
            elif a == "resign":
                state.resign(next(resigned))
            elif a == "draw":
                state.agree_draw()
            else:
                state.play(int(a))
    except (KeyError, TypeError, ValueError, StopIteration) as exc:
        raise NotationError(f"cannot deserialize state: {exc}") from None
    return state


__all__ = [
    "AGREED_DRAW",
    "GAMES",
    "RESIGN",
    "TERMINAL",
    "Game",
    "HistoryEntry",
    "IllegalActionError",
    "NotationError",
    "Outcome",
    "Reason",
    "RingGamesError",
    "State",
    "Symmetry",
    "apply_strings",
    "deserialize_state",
    "game_class",
    "load_game",
]
