"""YINSH (Kris Burm, 2003): an exact engine. Rules: ``shared/rules/yinsh.md``."""

from .state import NUM_ACTIONS, YinshGame, YinshState, action_string, transform_action

__all__ = ["YinshGame", "YinshState", "NUM_ACTIONS", "action_string", "transform_action"]
