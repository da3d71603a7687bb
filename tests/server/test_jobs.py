"""The computer-move queue in Redis (server/jobs.py): ``ringgames worker`` processes run the jobs; a worker killed in
the middle of a job loses nothing (another runs it again), a job that fails twice is reported, and a server started
with ``redis_url`` plays its computer seats through the queue."""

import asyncio
import os
import signal
import subprocess
import sys

import pytest
from fastapi.testclient import TestClient

from ringgames import load_game
from ringgames.ai.agents import make_agent
from ringgames.server.app import create_app
from ringgames.server.computer import ComputerFailed
from ringgames.server.jobs import PREFIX, RedisComputers

from .aio import run
from .conftest import wait_for

redis = pytest.importorskip("redis", reason="the redis extra is not installed (pip install -e '.[redis]')")


def start_worker(url: str, name: str, log) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "ringgames", "worker", "--redis", url, "--lanes", "deep,quick",
                             "--name", name, "--lease", "1"], stdout=log, stderr=subprocess.STDOUT)


def stop(p: subprocess.Popen) -> None:
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(15)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(5)


def test_the_ai_queue_survives_a_workers_death(redis_url, tmp_path):
    s = load_game("yinsh").new_initial_state()
    rnd = make_agent("random:seed=2")
    for _ in range(12):
        s.apply_action(rnd.choose(s))
    me, text = s.current_player(), s.serialize()
    r = redis.Redis.from_url(redis_url)
    log = open(tmp_path / "workers.log", "ab")
    a = start_worker(redis_url, "a", log)
    b = None
    try:
        async def scenario():
            nonlocal b
            comp = RedisComputers(redis_url, lease=1.0, job_timeout=120)
            await comp.start()
            try:
                first = await comp.choose("g", me, "random", text, "deep")  # worker a is up (and warm)
                assert comp.answers[-1]["worker"] == "a" and first in s.legal_actions()
                job = asyncio.create_task(comp.choose("g", me, "alphabeta:time=3", text, "deep"))
                for _ in range(400):
                    if r.llen(PREFIX + "proc:a"):
                        break
                    await asyncio.sleep(0.05)
                assert r.llen(PREFIX + "proc:a") == 1 and r.llen(PREFIX + "q:deep") == 0  # a runs it
                await asyncio.sleep(0.5)  # mid-search
                a.kill()  # SIGKILL: no goodbye, its lease runs out
                a.wait(10)
                b = start_worker(redis_url, "b", log)
                action = await asyncio.wait_for(job, 120)
                answer = dict(comp.answers[-1])
                # an agent that fails: tried once more, then reported
                with pytest.raises(ComputerFailed, match="depth"):
                    await asyncio.wait_for(comp.choose("g", me, "alphabeta:depth=99", text, "quick"), 60)
                return action, answer
            finally:
                await comp.close()

        action, answer = run(scenario())
        assert action in s.legal_actions()
        assert answer["worker"] == "b" and answer["attempts"] == 2
        assert r.llen(PREFIX + "proc:a") == 0 and b"a" not in r.smembers(PREFIX + "workers")

        # a server with the queue plays its computer seats through it
        app = create_app(f"sqlite:///{tmp_path / 'q.sqlite3'}", ai_workers=1, ai_delay=0, redis_url=redis_url, computer_queue=True)
        with TestClient(app) as c:
            d = c.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "computer", "level": 1}]}).json()
            assert c.post(f"/api/games/{d['id']}/actions", json={"action": d["legal"][0], "ply": 0}).status_code == 200
            wait_for(lambda: c.get(f"/api/games/{d['id']}").json()["ply"] >= 2, timeout=60)
            assert c.app.state.hub.computers.answers[-1]["worker"] == "b"
            assert c.app.state.hub.computers.pids("quick") == []  # no process of the server's own thinks
    finally:
        stop(a)
        if b is not None:
            stop(b)
        log.close()
        print((tmp_path / "workers.log").read_text()[-3000:])


def test_worker_refuses_unknown_lanes(redis_url):
    r = subprocess.run([sys.executable, "-m", "ringgames", "worker", "--redis", redis_url, "--lanes", "fast"],
                       capture_output=True, text=True, timeout=60, env={**os.environ})
    assert r.returncode == 2 and "lanes are quick, deep, bot" in r.stderr
