"""Without the ``rl`` extra the core imports cleanly and each adapter names the extra."""

from __future__ import annotations

import subprocess
import sys

BLOCK = "import sys\nfor m in ('pyspiel', 'open_spiel', 'pettingzoo', 'gymnasium', 'pyarrow', 'PIL'):\n    sys.modules[m] = None\n"


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", BLOCK + code], capture_output=True, text=True, timeout=120, check=False)


def test_core_and_light_modules_import_without_the_extra():
    r = _run("import ringgames, ringgames.rl, ringgames.rl.selfplay, ringgames.envs, ringgames.cli\n"
             "print(ringgames.envs.register_gymnasium())")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False"


def test_each_adapter_names_the_extra():
    for module, package in [("ringgames.openspiel", "pyspiel"), ("ringgames.envs.yinsh_v0", "pettingzoo"),
                            ("ringgames.envs.single", "pettingzoo")]:
        r = _run(f"import {module}")
        assert r.returncode == 1
        last = r.stderr.strip().splitlines()[-1]
        assert last.startswith("ImportError:") and f"'{package}'" in last
        assert "pip install 'ringgames[rl]'" in last
    r = _run("from ringgames.rl.selfplay import load\nload('.')")
    assert r.returncode == 1 and "self-play data needs the optional package 'pyarrow'" in r.stderr
