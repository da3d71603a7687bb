"""Turn-level tactics shared by the agents: wins within a turn and immediate dangers.

A *turn* is the run of consecutive decisions by one player (a YINSH move,
then its row and ring choices; a RINGS placement, then its conversions). Every
function here works through the game protocol only, with
``apply_action``/``undo_action`` (the state is always restored).

>>> from ringgames import load_game
>>> s = load_game("yinsh").new_initial_state()
>>> winning_action(s) is None, hands_win(s, 0, s.legal_actions()[0])
(True, False)
"""

from __future__ import annotations

from ..protocol import State
from .evaluation import get_win_filter

__all__ = ["is_win_for", "is_loss_for", "winning_action", "wins_within_turn", "hands_win", "safe_actions"]


def is_win_for(state: State, player: int) -> bool:
    """The game is over and ``player`` is among the winners (not a draw among everybody)."""
    out = state.outcome()
    return out is not None and player in out.winners and not out.is_draw(state.num_players)


def is_loss_for(state: State, player: int) -> bool:
    """The game is over and somebody else won (``player`` is not among the winners)."""
    out = state.outcome()
    return out is not None and player not in out.winners and not out.is_draw(state.num_players)


def wins_within_turn(state: State, player: int, budget: list[int]) -> bool:
    """True if ``player`` (to move) can reach a won terminal without handing over the turn.

    ``budget`` is a one-element list of nodes left (shared, decremented): when it
    runs out the answer is False (not proven).
    """
    if state.is_terminal():
        return is_win_for(state, player)
    if state.current_player() != player or budget[0] <= 0:
        return False
    may = get_win_filter(state.game.name)
    if may is not None and not may(state):
        return False
    for a in state.legal_actions():
        budget[0] -= 1
        state.apply_action(a)
        try:
            if is_win_for(state, player) or (
                not state.is_terminal() and state.current_player() == player and wins_within_turn(state, player, budget)
            ):
                return True
        finally:
            state.undo_action()
        if budget[0] <= 0:
            return False
    return False


def winning_action(state: State, budget: int = 4000) -> int | None:
    """An action that starts a won turn for the player to move (None if none is found)."""
    if state.is_terminal():
        return None
    me = state.current_player()
    may = get_win_filter(state.game.name)
    if may is not None and not may(state):
        return None
    left = [budget]
    for a in state.legal_actions():
        state.apply_action(a)
        try:
            if is_win_for(state, me) or (
                not state.is_terminal() and state.current_player() == me and wins_within_turn(state, me, left)
            ):
                return a
        finally:
            state.undo_action()
    return None


def _turn_can_be_safe(state: State, me: int, budget: list[int]) -> bool:
    """After some of ``me``'s decisions: can ``me`` finish the turn without the next player winning at once?"""
    if state.is_terminal():
        return not is_loss_for(state, me)
    p = state.current_player()
    if p != me:
        return not wins_within_turn(state, p, budget)
    if budget[0] <= 0:
        return True  # unknown: assume safe
    for a in state.legal_actions():
        budget[0] -= 1
        state.apply_action(a)
        try:
            if _turn_can_be_safe(state, me, budget):
                return True
        finally:
            state.undo_action()
    return False


def hands_win(state: State, me: int, action: int, budget: int = 4000) -> bool:
    """True if after ``action`` every way to finish ``me``'s turn lets the next player win in their turn."""
    state.apply_action(action)
    try:
        return not _turn_can_be_safe(state, me, [budget])
    finally:
        state.undo_action()


def safe_actions(state: State, actions: list[int] | None = None, budget: int = 20000) -> list[int]:
    """The actions that do not hand the next player an immediate win (all of them if none is safe)."""
    me = state.current_player()
    actions = state.legal_actions() if actions is None else actions
    per = max(50, budget // max(1, len(actions)))
    safe = [a for a in actions if not hands_win(state, me, a, per)]
    return safe or list(actions)
