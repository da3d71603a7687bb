"""The rules and the AI work without the play site's packages (the ``server`` extra) and without Ray
(the ``ray`` extra); ``serve``, ``import`` and ``worker``, and ``--ray``, then say which extra to install. A fresh
interpreter blocks those packages' imports."""

import json
import subprocess
import sys
import textwrap

import pytest

SERVER_MODULES = ["fastapi", "starlette", "uvicorn", "sqlalchemy", "alembic", "multipart", "python_multipart",
                  "orjson", "swagger_ui", "limits", "websockets", "httpx", "argon2", "itsdangerous", "openskill"]
RAY_MODULES = ["ray"]  # the ray extra (--ray of match, strength, selfplay)

BLOCKER = textwrap.dedent(f"""
    import sys

    BLOCKED = set({SERVER_MODULES + RAY_MODULES!r})

    class Blocker:
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in BLOCKED:
                raise ModuleNotFoundError(f"No module named {{name!r}} (blocked by the test)", name=name)
            return None

    sys.meta_path.insert(0, Blocker())
""")


def run_blocked(code: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", BLOCKER + textwrap.dedent(code), *args],
                          capture_output=True, text=True, timeout=600)


def test_the_blocker_blocks():
    r = run_blocked("import fastapi")
    assert r.returncode == 1 and "No module named 'fastapi' (blocked by the test)" in r.stderr


def test_rules_ai_perft_and_replay_work_without_the_server_packages(tmp_path):
    r = run_blocked("""
        import json, sys
        import ringgames
        from ringgames.ai.agents import make_agent
        from ringgames.cli import main
        from ringgames.records import Record, load_file, save_file

        out = {}
        for name in ringgames.GAMES:
            s = ringgames.load_game(name).new_initial_state()
            for spec in ("random:seed=1", "greedy:seed=1", "mcts:iterations=20,seed=1", "alphabeta:depth=1,seed=1"):
                a = make_agent(spec).choose(s)
                assert a in s.legal_actions(), (name, spec, a)
            out[name] = len(s.legal_actions())
        s = ringgames.load_game("yinsh").new_initial_state()
        for m in "e3 a5 b5 c6 d6 e4 h7 g2 g3 g8".split():
            s.play(m)
        path = sys.argv[1] + "/g.rgn"
        save_file(path, [Record.from_state(s)])
        for argv in (["perft", "yinsh", "2"], ["replay", "--json", path]):
            try:
                main(argv, standalone_mode=False)
            except SystemExit as exc:
                assert not exc.code, (argv, exc.code)
        blocked = sorted(m for m in sys.modules if m.partition(".")[0] in BLOCKED)
        print(json.dumps({"legal": out, "server_modules_imported": blocked}))
    """, str(tmp_path))
    assert r.returncode == 0, r.stderr[-3000:]
    lines = r.stdout.strip().splitlines()
    result = json.loads(lines[-1])
    assert result == {"legal": {"yinsh": 85, "gyges": result["legal"]["gyges"], "rings": result["legal"]["rings"]},
                      "server_modules_imported": []}
    assert lines[0] == "7140"  # perft yinsh 2: 85 * 84 ring placements
    replayed = json.loads(lines[1])
    assert replayed["ring_moves"] == 0 and replayed["winner"] == "none"


@pytest.mark.parametrize("argv", [["serve", "--port", "1"], ["import", "nothing.rgn"],
                                  ["worker", "--redis", "redis://127.0.0.1:1/0"]])
def test_serve_import_and_worker_name_the_extra_to_install(argv):
    r = run_blocked("""
        from ringgames.cli import main
        main()
    """, *argv)
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert "Traceback" not in r.stderr
    assert "pip install 'ringgames[server]'" in r.stderr and "missing: fastapi, uvicorn, SQLAlchemy" in r.stderr


@pytest.mark.parametrize("argv", [
    ["match", "yinsh", "random", "random", "-n", "1", "--ray"],
    ["match", "yinsh", "random", "random", "-n", "1", "--ray=10.0.0.1:6379"],
    ["strength", "--game", "yinsh", "--levels", "1", "-n", "1", "--ray"],
    ["selfplay", "yinsh", "--agent", "random", "-n", "1", "--out", "nowhere", "--ray"],
])
def test_ray_option_names_the_extra_to_install(argv):
    r = run_blocked("""
        from ringgames.cli import main
        main()
    """, *argv)
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert "Traceback" not in r.stderr
    assert "--ray needs the optional package 'ray'" in r.stderr and "pip install 'ringgames[ray]'" in r.stderr


def test_pip_install_ringgames_installs_no_server_package():
    """The installed metadata: the core requirements are the rules' and the AI's; the site's are in ``server``."""
    import re
    from importlib.metadata import requires

    reqs = requires("ringgames") or []
    core = {re.split(r"[\s\[<>=!~;]", r, maxsplit=1)[0].lower() for r in reqs if "extra ==" not in r}
    server = {re.split(r"[\s\[<>=!~;]", r, maxsplit=1)[0].lower() for r in reqs if re.search(r"extra == .server.", r)}
    assert core == {"click", "tqdm", "numpy", "numba"}
    assert {"fastapi", "uvicorn", "sqlalchemy", "alembic", "python-multipart", "orjson", "swagger-ui-py", "babel", "jinja2", "limits",
            "argon2-cffi", "itsdangerous", "openskill"} <= server


def test_ray_is_an_extra_of_its_own():
    """``pyproject.toml`` (the installed metadata may be an older checkout's): Ray only in ``ray``."""
    import tomllib
    from pathlib import Path

    project = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())["project"]
    assert project["optional-dependencies"]["ray"] == ["ray>=2.9,<3"]
    assert not any(r.startswith("ray") for r in project["dependencies"])
