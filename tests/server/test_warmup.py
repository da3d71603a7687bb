"""The kernels are compiled before the site accepts requests, not inside the first move."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from ringgames.jit import JIT_ENABLED

SCRIPT = textwrap.dedent("""
    import json, sys
    from ringgames.games.gyges import kernel as G
    from ringgames.games.rings import kernel as R
    from ringgames.games.yinsh import kernel as Y

    def compiled(mod):  # how many of the module's kernels have a compiled (or cache-loaded) signature
        return sum(1 for v in vars(mod).values() if hasattr(v, "signatures") and v.signatures)

    before = {m.__name__: compiled(m) for m in (Y, G, R)}
    from fastapi.testclient import TestClient
    from ringgames.server.app import create_app
    app = create_app("sqlite:///" + sys.argv[1], ai_workers=1)
    with TestClient(app):  # the lifespan's start-up: what runs before the first request is served
        after = {m.__name__: compiled(m) for m in (Y, G, R)}
    print(json.dumps({"before": before, "after": after}))
""")


def test_the_kernels_are_compiled_at_start_up(tmp_path):
    assert JIT_ENABLED, "numba is part of the core install; RINGGAMES_NO_JIT must not be set for this test"
    r = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "w.sqlite3")], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert set(got["before"].values()) == {0}  # imported, nothing compiled yet
    for name, n in got["after"].items():
        assert n >= 3, f"{name}: only {n} kernels compiled at start-up"
