"""Computer players, written once against the game protocol."""

from .agents import Agent, RandomAgent, make_agent

__all__ = ["Agent", "RandomAgent", "make_agent"]
