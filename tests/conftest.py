"""Shared test fixtures. Real game data is read from ../shared (beside the checkout), never copied."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def shared() -> Path:
    """The ../shared folder; fails loudly when it is missing."""
    if not (SHARED / "rules").is_dir():
        pytest.fail(f"shared data folder not found at {SHARED} (tests need ../shared beside the checkout)")
    return SHARED
