"""The game engines (one subpackage per game)."""
