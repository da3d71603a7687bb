"""The Python examples of the adapters' documentation run as written."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

from .conftest import need

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _examples() -> list[str]:
    """The ```python blocks of the sections "Adapters" and "Self-play data" of docs/research.md."""
    full = (DOCS / "research.md").read_text()
    parts = []
    for title in ("## Adapters", "## Self-play data"):
        start = full.index(title)
        end = full.find("\n## ", start + 1)
        parts.append(full[start:] if end < 0 else full[start:end])
    text = "\n".join(parts)
    return re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)


EXAMPLES = _examples()


def test_there_are_examples_for_each_adapter_and_the_data():
    joined = "\n".join(EXAMPLES)
    for needle in ("pyspiel.load_game", "rings_v0.env", "gymnasium.make", "selfplay.load"):
        assert needle in joined


@pytest.mark.parametrize("code", EXAMPLES, ids=[f"example{i}" for i in range(len(EXAMPLES))])
def test_example_runs(code, capsys, tmp_path):
    for module in ("pyspiel", "pettingzoo", "gymnasium", "pyarrow"):
        need(module)
    script = tmp_path / "example.py"
    script.write_text(code)
    runpy.run_path(str(script), run_name="__docs__")
    assert capsys.readouterr().out.strip()  # each example prints what it shows
