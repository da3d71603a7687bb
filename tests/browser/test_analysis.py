"""The analysis board (issue 30): the eval bar and best line the API gives for the same position, stepping through
the line on the board, the link from a game at its shown move; and /docs rendering every API operation."""

from __future__ import annotations

import re
from urllib.parse import quote

import httpx
import pytest

import ringgames

from .conftest import SHOTS, shot

CASES = {
    "yinsh": ({"game": "yinsh", "moves": "e5 f6 e4 f5 e3 f4 e2 f3 e6 f7".split()}, "depth=2"),
    "gyges": ({"game": "gyges", "moves": ["123321", "321123"]}, "depth=2"),
    "rings": ({"game": "rings", "players": 3, "moves": ["K12"]}, "iterations=300"),
}


def position_of(body):
    s = ringgames.load_game(body["game"], None, body.get("players")).new_initial_state()
    for m in body["moves"]:
        s.play(m)
    return s.position()


@pytest.mark.parametrize("game", list(CASES))
def test_board_shows_the_eval_and_line_the_api_gives(server, page_factory, game):
    body, limit = CASES[game]
    pos = position_of(body)
    page = page_factory()
    players = f"&players={body['players']}" if "players" in body else ""
    page.goto(f"{server.url}/analysis?game={game}{players}&position={quote(pos)}&{limit}&seconds=4")
    page.wait_for_function("() => board && board._last")
    assert page.evaluate("() => board._last[0]") == pos
    page.click("#analyse")
    page.wait_for_selector("#pv li button.move")
    k, v = limit.split("=")
    api = httpx.post(f"{server.url}/api/analysis", json={"game": game, "players": body.get("players"), "position": pos,
                                                          "seconds": 4, k: int(v)}, timeout=60).json()
    shown_pv = [b.inner_text() for b in page.locator("#pv li button.move").all()]
    assert shown_pv == api["pv"] and shown_pv
    # the bar: one segment per seat, as wide as the API's value; and the values in words
    segs = page.locator("#evalbar .seg").all()
    assert len(segs) == len(api["eval"]) == (3 if game == "rings" else 2)
    total = sum(api["eval"])
    for i, s in enumerate(segs):
        width = page.evaluate("(e) => parseFloat(e.style.width)", s.element_handle())
        assert width == pytest.approx(100 * api["eval"][i] / total, abs=0.06)
        text = page.inner_text(f'#evaltext [data-seat="{i}"]')
        assert re.search(rf"\b{round(api['eval'][i] * 100)}\s?%", text), (text, api["eval"])
    alts = [a.inner_text().split()[0] for a in page.locator("#alts li b").all()]
    assert alts == [a["move"] for a in api["alternatives"]] and alts
    # stepping through the line: each action's position on the board, the action marked
    for i in range(len(api["pv"])):
        page.click("#l-next")
        assert page.evaluate("() => board._last[0]") == api["pv_positions"][i]
        assert page.locator("#pv li.current button").inner_text() == api["pv"][i]
    page.click("#l-start")
    assert page.evaluate("() => board._last[0]") == pos
    page.locator("#pv li button.move").last.click()
    assert page.evaluate("() => board._last[0]") == api["pv_positions"][-1]
    shot(page, f"analysis-{game}")
    assert page.errors == []


def test_analyse_link_from_a_finished_game_opens_the_shown_move(server, page_factory):
    r = httpx.post(f"{server.url}/api/games", json={"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "me"}]}).json()
    gid, tok = r["id"], ".".join(r["tokens"].values())
    moves = "e5 f6 e4 f5 e3 f4 e2 f3 e6 f7 e5-c5".split()
    for ply, m in enumerate(moves):
        a = httpx.post(f"{server.url}/api/games/{gid}/actions", json={"action": m, "ply": ply}, headers={"X-Seat-Token": tok})
        assert a.status_code == 200, a.text
    httpx.post(f"{server.url}/api/games/{gid}/resign", json={}, headers={"X-Seat-Token": tok}).raise_for_status()
    positions = httpx.get(f"{server.url}/api/games/{gid}/positions").json()["positions"]
    page = page_factory()
    page.goto(f"{server.url}/game/{gid}?replay")
    page.wait_for_selector("#replaybar", state="visible")
    page.click("#r-last")
    for _ in range(3):
        page.click("#r-prev")
    link = page.locator("#analyse-link")
    assert link.is_visible()
    shown = len(moves) - 2  # the resignation is the last ply: last, then three back
    assert link.get_attribute("href").endswith(f"from={gid}&ply={shown}")
    link.click()
    page.wait_for_function("() => board && board._last")
    assert page.evaluate("() => board._last[0]") == positions[shown]
    assert page.input_value("#position") == positions[shown]
    page.click("#g-next")
    assert page.evaluate("() => board._last[0]") == positions[shown + 1]
    page.click("#analyse")
    page.wait_for_selector("#pv li button.move", timeout=30000)
    # and the archive lists the game with a link to the analysis board
    page.goto(f"{server.url}/archive")
    page.wait_for_selector(f'a[data-analyse="{gid}"]')
    assert page.errors == []


def test_analysis_page_in_each_language_has_no_english_left(server, page_factory):
    page = page_factory()
    for lang in ["ru", "sr", "sr-Latn", "cs"]:
        page.goto(f"{server.url}/analysis?game=gyges&lang={lang}")
        page.wait_for_function("() => board && board._last")
        text = page.inner_text("main")
        for english in ["Analyse", "Best line", "Other moves", "Thinking time", "Set up a position", "Show on the board"]:
            assert english not in text, (lang, english)
    assert page.errors == []


def test_docs_renders_every_operation(server, page_factory):
    spec = httpx.get(f"{server.url}/openapi.json").json()
    ops = {(m.upper(), p) for p, o in spec["paths"].items() for m in o}
    page = page_factory()
    page.goto(f"{server.url}/docs")
    page.wait_for_selector(".opblock", timeout=30000)
    page.wait_for_function(f"() => document.querySelectorAll('.opblock').length >= {len(ops)}", timeout=30000)
    rendered = page.evaluate("""() => [...document.querySelectorAll('.opblock')].map(b => [
        b.querySelector('.opblock-summary-method').textContent.trim(),
        (b.querySelector('.opblock-summary-path') || {}).getAttribute('data-path')])""")
    assert len(rendered) == len(ops)
    assert {(m, p) for m, p in rendered} == ops
    assert page.errors == []


def test_analyse_this_game_draws_the_graph_with_mistakes_to_click(server, page_factory, boardspace_files):
    f = boardspace_files[4]  # a game with a large drop (at ply 54, by the quick search)
    r = httpx.post(f"{server.url}/api/import", files=[("files", (f.name, f.read_bytes(), "text/plain"))], timeout=60).json()
    gid = r["results"][0]["id"]
    positions = httpx.get(f"{server.url}/api/games/{gid}/positions").json()["positions"]
    page = page_factory()
    page.goto(f"{server.url}/analysis?from={gid}")
    page.wait_for_selector("#analyse-game", state="visible")
    page.click("#analyse-game")
    page.wait_for_function("() => GA && GA.status === 'done'", timeout=180000)
    ga = httpx.get(f"{server.url}/api/games/{gid}/analysis").json()
    assert ga["status"] == "done" and ga["total"] == len(positions)
    points = page.get_attribute("#graph polyline.graph-line", "points").split()
    assert len(points) == len(positions)
    marks = page.locator("#graph circle.graph-mistake").all()
    assert [int(m.get_attribute("data-ply")) for m in marks] == [m["ply"] for m in ga["mistakes"]]
    assert marks, "a real game with no large drop at all"
    ply = int(marks[0].get_attribute("data-ply"))
    marks[0].click()
    assert page.evaluate("() => board._last[0]") == positions[ply]
    assert f" {ply} " in page.inner_text("#g-ply")  # "Replay: after ply 41 of 55"
    page.locator("#graph").screenshot(path=str(SHOTS / "analysis-graph.png"))
    assert page.errors == []
