"""``ringgames serve`` leaves no process behind: on SIGTERM it stops its computer players (also while they think),
and when it is killed outright (SIGKILL) they notice that their parent is gone and end themselves."""

import os
import signal
import time
from pathlib import Path

import httpx
import pytest

from ringgames.server.testing import ServerProcess

from .conftest import wait_for


def group_processes(pgid: int) -> list[tuple[int, int, str]]:
    """(pid, parent pid, command) of the live (not zombie) processes of process group ``pgid`` (from /proc)."""
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
            cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:120]
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) ": state, ppid, pgrp, ...
        if fields[0] != "Z" and int(fields[2]) == pgid:
            out.append((int(d.name), int(fields[1]), cmd))
    return out


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_no_computer_player_outlives_the_server(tmp_path, sig):
    srv = ServerProcess(f"sqlite:///{tmp_path / 's.sqlite3'}", ai_delay=0, ai_workers=2, log=tmp_path / "server.log").start()
    pid = srv.proc.pid  # the server leads its own process group (start_new_session): its children stay in it
    try:
        c = httpx.Client(base_url=srv.url, timeout=10)
        level3 = {"kind": "computer", "level": 3}
        games = [c.post("/api/games", json={"game": "yinsh", "seats": [level3, {"kind": "me"}]}).json()["id"],
                 c.post("/api/games", json={"game": "yinsh", "seats": [level3, level3]}).json()["id"]]
        # the computers are at work: the pools' processes (and multiprocessing's resource tracker) run
        wait_for(lambda: len([p for p in group_processes(pid) if p[0] != pid]) >= 3, timeout=60)
        wait_for(lambda: all(c.get(f"/api/games/{g}").json()["ply"] >= 1 for g in games), timeout=120)
        assert any(p[1] == pid for p in group_processes(pid))
        os.kill(pid, sig)  # the server alone, not its group
        srv.proc.wait(20)
        deadline = time.time() + 8
        while time.time() < deadline and group_processes(pid):
            time.sleep(0.1)
        assert group_processes(pid) == [], group_processes(pid)
    finally:
        srv.kill()
        for p, *_ in group_processes(pid):
            os.kill(p, signal.SIGKILL)
