"""The rules of each game, one package per game, with no I/O and no imports from AI, server or CLI."""
