"""The linters are part of the tests: ``ruff check`` (rules in pyproject.toml) on the code and the tests,
and ``mypy`` on the package (strict on the protocol, the games and the record format)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

from .conftest import REPO


def run_tool(module: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``python -m module args`` from the venv of these tests, in the repository root."""
    if importlib.util.find_spec(module) is None:
        reason = f"{module} is not installed (pip install -e '.[test]')"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return subprocess.run([sys.executable, "-m", module, *args], cwd=REPO, capture_output=True, text=True,
                          timeout=600)


def test_ruff_finds_nothing():
    r = run_tool("ruff", "check", "--no-cache", "src", "tests")
    assert r.returncode == 0, f"ruff check found problems:\n{r.stdout[-20000:]}\n{r.stderr[-2000:]}"


def test_mypy_finds_nothing():
    # the files, the strict modules and the exceptions are configured in [tool.mypy] of pyproject.toml
    r = run_tool("mypy")
    assert r.returncode == 0, f"mypy found problems:\n{r.stdout[-20000:]}\n{r.stderr[-2000:]}"
    assert "Success: no issues found" in r.stdout


def test_mypy_is_strict_on_the_rules():
    """The configuration really holds the games to mypy's strict flags: an unannotated function is reported."""
    probe = REPO / "src" / "ringgames" / "games" / "_mypy_probe.py"
    probe.write_text("def unannotated(x):\n    return x\n")
    try:
        r = run_tool("mypy", str(probe.relative_to(REPO)))
    finally:
        probe.unlink()
    assert r.returncode == 1 and "_mypy_probe.py:1: error: Function is missing a type annotation" in r.stdout, r.stdout
