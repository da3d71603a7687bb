"""The research adapters' tests need the ``rl`` extra (``scripts/test`` installs it).

On CI (env CI set) a missing package is an error; elsewhere its tests are skipped with the reason.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest


def need(module: str) -> ModuleType:
    """Import ``module`` or skip (fail on CI) naming the extra."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        reason = f"{module} is missing ({exc}): pip install -e '.[rl]'"
        if os.environ.get("CI"):
            pytest.fail(f"research adapter tests cannot run on CI: {reason}")
        pytest.skip(reason, allow_module_level=True)
