"""POST /api/analysis: an evaluation and a best line for a position of each game, alternatives, bad input, limits."""

from __future__ import annotations

import random
import threading
import time

import pytest
from fastapi.testclient import TestClient

from ringgames import load_game
from ringgames.server.api import MAX_ANALYSIS_SECONDS
from ringgames.server.app import create_app
from ringgames.server.limits import Limits

YINSH = "e5 f6 e4 f5 e3 f4 e2 f3 e6 f7".split()  # the rings placed: the first ring move is next
CASES = [
    ({"game": "yinsh", "moves": YINSH, "depth": 2}, 2),
    ({"game": "gyges", "moves": ["123321", "321123"], "depth": 2}, 2),
    ({"game": "rings", "players": 3, "moves": ["K12"], "iterations": 300}, 3),
]


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    db = tmp_path_factory.mktemp("analysis") / "a.sqlite3"
    app = create_app(f"sqlite:///{db}", ai_workers=1, ai_delay=0, limits=Limits(analysis_rate="1000/minute"))
    with TestClient(app) as c:
        yield c


def legal_in_sequence(body: dict, line: list[str], position: str) -> None:
    g = load_game(body["game"], body.get("variant"), body.get("players"))
    s = g.state_from_position(position)
    for a in line:
        assert not s.is_terminal()
        s.play(a)  # raises on an illegal action


@pytest.mark.parametrize(("body", "seats"), CASES, ids=[c[0]["game"] for c in CASES])
def test_eval_pv_alternatives(api, body, seats):
    r = api.post("/api/analysis", json={**body, "seconds": 4})
    assert r.status_code == 200, r.text
    d = r.json()
    assert len(d["eval"]) == seats and all(0 <= v <= 1 for v in d["eval"])
    if seats == 2:
        assert d["eval"][0] + d["eval"][1] == pytest.approx(1, abs=1e-3)
        assert d["search"] == "alphabeta" and d["depth"] == 2
    else:
        assert d["search"] == "mcts" and d["iterations"] == 300
    assert d["pv"] and len(d["pv_positions"]) == len(d["pv"]) == len(d["pv_seats"])
    legal_in_sequence(body, d["pv"], d["position"])
    assert d["alternatives"], d
    moves = [d["pv"][0]] + [a["move"] for a in d["alternatives"]]
    assert len(set(moves)) == len(moves)  # each alternative is another action
    for alt in d["alternatives"]:
        assert alt["pv"][0] == alt["move"] and len(alt["eval"]) == seats
        legal_in_sequence(body, alt["pv"], d["position"])
    # seeded and depth-limited: the same answer again
    again = api.post("/api/analysis", json={**body, "seconds": 4}).json()
    assert (again["pv"], again["eval"], again["alternatives"]) == (d["pv"], d["eval"], d["alternatives"])


def test_position_string(api):
    s = load_game("yinsh").new_initial_state()
    for m in YINSH:
        s.play(m)
    r = api.post("/api/analysis", json={"game": "yinsh", "position": s.position(), "depth": 1, "seconds": 2})
    assert r.status_code == 200, r.text
    assert r.json()["position"] == s.position() and r.json()["to_move"] == 0


@pytest.mark.parametrize(("body", "status", "code", "words"), [
    ({"game": "yinsh", "position": "not a position"}, 422, "bad_position", "position"),
    ({"game": "yinsh", "moves": ["e5", "e5"]}, 422, "illegal_action", "moves[1]"),
    ({"game": "yinsh", "moves": ["zz99"]}, 422, "illegal_action", "moves[0]"),
    ({"game": "chess"}, 422, "unknown_game", "chess"),
    ({"game": "yinsh", "variant": "huge"}, 422, "unknown_game", "huge"),
    ({"game": "gyges", "moves": ["123321", "321123"], "seconds": MAX_ANALYSIS_SECONDS + 1}, 400, "bad_request", "seconds"),
    ({"game": "gyges", "seconds": 0}, 400, "bad_request", "seconds"),
    ({"game": "gyges", "seconds": True}, 400, "bad_request", "seconds"),
    ({"game": "yinsh", "depth": 99}, 400, "bad_request", "depth"),
    ({"game": "yinsh", "colour": "red"}, 400, "bad_request", "colour"),
])
def test_bad_input_names_the_problem(api, body, status, code, words):
    r = api.post("/api/analysis", json=body)
    assert r.status_code == status, r.text
    assert r.json()["error"] == code and words in r.json()["message"], r.json()


def test_game_over(api):
    s, rng = load_game("gyges").new_initial_state(), random.Random(1)
    while not s.is_terminal():
        s.apply_action(rng.choice(s.legal_actions()))
    r = api.post("/api/analysis", json={"game": "gyges", "position": s.position()})
    assert r.status_code == 422 and r.json()["error"] == "game_over", r.text


def test_rate_limited(tmp_path):
    app = create_app(f"sqlite:///{tmp_path / 'r.sqlite3'}", ai_workers=1, ai_delay=0, limits=Limits(analysis_rate="2/minute"))
    with TestClient(app) as c:
        codes = [c.post("/api/analysis", json={"game": "chess"}).status_code for _ in range(3)]
    assert codes == [422, 422, 429]


def test_analyse_this_game(api):
    r = api.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "me"}]})
    gid, tok = r.json()["id"], ".".join(r.json()["tokens"].values())
    for ply, m in enumerate(YINSH + ["e5-c5", "f6-h6"]):
        assert api.post(f"/api/games/{gid}/actions", json={"action": m, "ply": ply}, headers={"X-Seat-Token": tok}).status_code == 200
    assert api.post(f"/api/games/{gid}/resign", json={}, headers={"X-Seat-Token": tok}).status_code == 200
    assert api.get(f"/api/games/{gid}/analysis").json()["status"] == "none"
    first = api.post(f"/api/games/{gid}/analysis")
    assert first.status_code == 200 and first.json()["status"] in ("running", "done") and first.json()["total"] == 14
    deadline = time.time() + 120
    while (d := api.get(f"/api/games/{gid}/analysis").json())["status"] == "running" and time.time() < deadline:
        time.sleep(0.2)
    assert d["status"] == "done" and d["done"] == d["total"] == 14
    assert all(len(e) == 2 and 0 <= e[0] <= 1 for e in d["evals"])
    assert d["evals"][-1] == [0.0, 1.0]  # white (to move) resigned: black won
    assert api.post(f"/api/games/{gid}/analysis").json()["status"] == "done"  # not computed twice
    assert api.get("/api/games/000000000000/analysis").status_code == 404


def test_mistakes():
    from ringgames.ai.analysis import mistakes

    evals = [[0.5, 0.5], [0.55, 0.45], [0.2, 0.8], [0.25, 0.75], None]
    assert mistakes(evals, [None, 0, 0, 1, 0]) == [{"ply": 2, "seat": 0, "drop": 0.35}]


def test_a_forced_action_is_played_not_called_even():
    """A position with one legal action (here the only row to remove) is evaluated
    after it, not as 50/50; the line starts with it."""
    from ringgames.ai.analysis import analyse_state

    s, rng = load_game("yinsh").new_initial_state(), random.Random(0)  # a row to remove, the only one, at ply 49
    while not s.is_terminal() and len(s.legal_actions()) != 1:
        s.apply_action(rng.choice(s.legal_actions()))
    assert not s.is_terminal(), "seed 0 must reach a position with a single legal action"
    only = s.action_to_string(s.legal_actions()[0])
    r = analyse_state(s, 2.0, depth=1)
    assert r["pv"][0] == only and r["alternatives"] == []
    assert r["eval"] != [0.5, 0.5] or r["score"] == 0


def test_live_games_computer_moves_do_not_wait_for_an_analysis(api):
    """The analysis has its own worker: a computer move is played while a 5-second analysis runs."""
    def computer_game():
        r = api.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "computer", "level": 0}, {"kind": "me"}]})
        assert r.status_code == 201, r.text
        return r.json()["id"]

    def first_move_seconds(gid, limit):
        t0 = time.time()
        while api.get(f"/api/games/{gid}").json()["ply"] < 1:
            assert time.time() - t0 < limit, "the computer did not move"
            time.sleep(0.05)
        return time.time() - t0

    first_move_seconds(computer_game(), 60)  # both workers started and warm
    api.post("/api/analysis", json={"game": "gyges", "moves": ["123321", "321123"], "depth": 1, "seconds": 1})
    result = {}
    long = threading.Thread(target=lambda: result.update(r=api.post("/api/analysis", json={"game": "gyges", "moves": ["123321", "321123"], "seconds": 5})))
    long.start()
    time.sleep(0.5)  # the analysis is running
    assert long.is_alive()
    took = first_move_seconds(computer_game(), 4.0)
    assert long.is_alive(), f"the analysis ended before the computer moved ({took:.1f} s)"
    long.join(30)
    assert result["r"].status_code == 200 and result["r"].json()["search"] == "alphabeta"
