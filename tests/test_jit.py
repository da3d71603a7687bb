"""``jit.drop_stale_cache``: cached kernel code is dropped when a compiled-in module changes."""

from __future__ import annotations

import pytest

from ringgames import jit


@pytest.mark.skipif(not jit.JIT_ENABLED, reason="numba not installed: nothing is cached")
def test_cache_is_dropped_only_when_a_dependency_changes(tmp_path):
    mod, dep = tmp_path / "kernel.py", tmp_path / "board.py"
    mod.write_text("x = 1\n")
    dep.write_text("TABLE = [1, 2]\n")
    cache = tmp_path / "__pycache__"
    cache.mkdir()

    def fake_cache():
        for name in ("kernel.search-10.py311.nbi", "kernel.search-10.py311.1.nbc", "other.f-1.py311.nbi"):
            (cache / name).write_text("")

    fake_cache()
    jit.drop_stale_cache(str(mod), str(dep))  # first time: no record of the dependency, so drop
    assert sorted(p.name for p in cache.glob("*.nb?")) == ["other.f-1.py311.nbi"]
    fake_cache()
    jit.drop_stale_cache(str(mod), str(dep))  # unchanged dependency: keep
    assert len(list(cache.glob("kernel.*.nb?"))) == 2
    dep.write_text("TABLE = [1, 3]\n")
    jit.drop_stale_cache(str(mod), str(dep))  # changed: drop this module's files only
    assert sorted(p.name for p in cache.glob("*.nb?")) == ["other.f-1.py311.nbi"]
