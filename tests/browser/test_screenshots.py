"""Screenshots of each board state (issue 30), in headless Chromium, into the test artefacts
(``test-artifacts/screenshots/states-*.png``): each game's opening, a middle game with the last move marked, a YINSH
row and ring removal, a Gygès bounce path with a replaced piece, a RINGS conversion, a game over, the analysis board
and the lobby with its TV game.

The games are real: a boardspace YINSH game (imported) and seeded random Gygès and RINGS games (played by the
rules engine, imported as .rgn records); each state is the game's replay at the ply that shows it, and the test
checks that the board marks what the picture is of.

With ``RINGGAMES_README_IMAGES=1`` the README's pictures (``docs/img/*.png``, each under 150 KB) are written too::

    RINGGAMES_README_IMAGES=1 python -m pytest tests/browser/test_screenshots.py
"""

import os
import random
import re

import httpx
import pytest

import ringgames
from ringgames.records import Record

from .conftest import REPO, SHOTS

README_IMAGES = REPO / "docs" / "img"
MAX_README_BYTES = 150_000
#: the README's pictures: state name -> file name in docs/img
README = {"lobby": "lobby.png", "yinsh-middle": "yinsh-middle.png", "yinsh-removal": "yinsh-removal.png",
          "gyges-bounce": "gyges-bounce.png", "rings-conversion": "rings-conversion.png", "analysis": "analysis.png"}


def save(target, name, **kw):
    """A screenshot of ``target`` (a page or a locator) into the artefacts, and into docs/img when asked for."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"states-{name}.png"
    target.screenshot(path=str(path), **kw)
    assert path.stat().st_size > 5_000, path  # a picture, not an empty frame
    if os.environ.get("RINGGAMES_README_IMAGES") and name in README:
        README_IMAGES.mkdir(parents=True, exist_ok=True)
        out = README_IMAGES / README[name]
        out.write_bytes(path.read_bytes())
        assert out.stat().st_size < MAX_README_BYTES, (out, out.stat().st_size)


def import_text(server, name, text):
    r = httpx.post(f"{server.url}/api/import", files=[("files", (name, text.encode(), "text/plain"))], timeout=60)
    assert r.status_code == 200, r.text
    return r.json()["results"][0]["id"]


def random_game(game, players, seed):
    """A finished game of seeded random moves, and its history entries."""
    s = ringgames.load_game(game, None, players).new_initial_state()
    rng = random.Random(seed)
    while not s.is_terminal():
        s.apply_action(rng.choice(s.legal_actions()))
    return s, list(s.history_entries())


def turn_end(texts_seats, k):
    """The ply after the turn that holds move ``k`` (a turn: the trailing moves of one seat)."""
    end = k
    while end + 1 < len(texts_seats) and texts_seats[end + 1][1] == texts_seats[k][1]:
        end += 1
    return end + 1


def replay_at(page, server, gid, ply):
    """The game's page as a replay after ``ply`` plies."""
    page.goto(f"{server.url}/game/{gid}?replay&lang=en")
    page.wait_for_selector("#replaybar", state="visible")
    page.evaluate(f"() => {{ replay.i = {ply}; render(); }}")
    page.wait_for_function(f"() => board._last && board._last[0] === replay.positions[{ply}]")


def marks(page):
    got = page.evaluate("() => [...document.querySelectorAll('#board [data-last]')].map(e => [e.dataset.last, e.dataset.at])")
    out: dict[str, list[str]] = {}
    for kind, at in got:
        out.setdefault(kind, []).append(at)
    return out


@pytest.fixture(scope="module")
def yinsh_game(server, boardspace_files):
    """A boardspace YINSH game (imported): its id and (text, seat) per move."""
    f = boardspace_files[0]
    r = httpx.post(f"{server.url}/api/import", files=[("files", (f.name, f.read_bytes(), "text/plain"))], timeout=60).json()
    gid = r["results"][0]["id"]
    moves = httpx.get(f"{server.url}/api/games/{gid}").json()["moves"]
    return gid, [(m["text"], m["seat"]) for m in moves]


def test_yinsh_states(server, page_factory, yinsh_game):
    gid, moves = yinsh_game
    page = page_factory(width=700, height=900)
    replay_at(page, server, gid, 10)  # the opening: the ten rings placed
    assert page.locator("#board .ring").count() == 10
    save(page.locator("#board"), "yinsh-opening")
    # the middle game: a ring move that flipped markers
    for i, (t, _) in enumerate(moves):
        if i > 20 and re.fullmatch(r"[a-k]\d+-[a-k]\d+", t):
            replay_at(page, server, gid, i + 1)
            if marks(page).get("flip"):
                break
    else:
        raise AssertionError("no ring move flipped a marker")
    assert marks(page)["from"] and marks(page)["to"]
    save(page.locator("#board"), "yinsh-middle")
    # a row and a ring removed (the turn that made the row)
    k = next(i for i, (t, _) in enumerate(moves) if re.fullmatch(r"x[a-k]\d+-[a-k]\d+", t))
    replay_at(page, server, gid, turn_end(moves, k))
    got = marks(page)
    assert len(got["row"]) == 5 and len(got["ring"]) == 1, got
    save(page.locator("#board"), "yinsh-removal")
    # game over: the final position and who won
    page.goto(f"{server.url}/game/{gid}?lang=en")
    page.wait_for_function("() => S && S.to_move === null")
    assert page.locator("#board .side-ring").count() >= 3
    save(page, "yinsh-game-over", full_page=True)
    assert page.errors == []


def test_gyges_states(server, page_factory):
    s, entries = random_game("gyges", 2, 2)
    gid = import_text(server, "gyges.rgn", Record.from_state(s, {"South": "Ann", "North": "Bob"}).dumps())
    page = page_factory(width=700, height=900)
    replay_at(page, server, gid, 4)  # the opening: both sets arranged, a move each
    assert page.locator("#board .gring").count() == 24
    save(page.locator("#board"), "gyges-opening")
    # a bounce path that ends replacing the piece it landed on
    k = next(i for i, e in enumerate(entries) if len(e.text.split("(")[0].split("-")) >= 3 and "(" in e.text)
    replay_at(page, server, gid, k + 1)
    got = marks(page)
    assert got["bounce"] and got["drop"], (entries[k].text, got)
    save(page.locator("#board"), "gyges-bounce")
    page.goto(f"{server.url}/game/{gid}?lang=en")
    page.wait_for_function("() => S && S.to_move === null")
    save(page, "gyges-game-over", full_page=True)
    assert page.errors == []


def test_rings_states(server, page_factory):
    s, entries = random_game("rings", 3, 7)
    gid = import_text(server, "rings.rgn", Record.from_state(s, {"Red": "Ann", "Blue": "Bob", "Green": "Cy"}).dumps())
    page = page_factory(width=700, height=900)
    replay_at(page, server, gid, 9)  # the opening: three turns each
    assert page.locator("#board .stone").count() == sum(bool(re.fullmatch(r"[A-X]\d+", e.text)) for e in entries[:9])
    save(page.locator("#board"), "rings-opening")
    k = next(i for i, e in enumerate(entries) if e.text.startswith("x"))
    replay_at(page, server, gid, turn_end([(e.text, e.seat) for e in entries], k))
    got = marks(page)
    assert got["circle"] and got["converted"], got
    save(page.locator("#board"), "rings-conversion")
    page.goto(f"{server.url}/game/{gid}?lang=en")
    page.wait_for_function("() => S && S.to_move === null")
    save(page, "rings-game-over", full_page=True)
    assert page.errors == []


def test_analysis_board(server, page_factory, yinsh_game):
    gid, moves = yinsh_game
    page = page_factory(width=900, height=760)
    page.goto(f"{server.url}/analysis?from={gid}&ply=30&depth=2&seconds=4&lang=en")
    page.wait_for_function("() => board && board._last")
    page.click("#analyse")
    page.wait_for_selector("#pv li button.move")
    assert page.locator("#evalbar .seg").count() == 2
    save(page, "analysis")
    assert page.errors == []


def test_lobby_with_its_tv_game(server, page_factory, yinsh_game):
    _, moves = yinsh_game
    page = page_factory(width=960, height=1180, device_scale_factor=0.8)
    page.goto(f"{server.url}/archive?lang=en")
    body = {"game": "yinsh", "seats": [{"kind": "me", "name": "Ann"}, {"kind": "me", "name": "Bob"}]}
    gid = page.evaluate("async (b) => (await api('/api/games', {method: 'POST', json: b})).id", body)
    for ply, (text, _) in enumerate(moves[:24]):  # the boardspace game's first moves, on the TV
        page.evaluate("async ([g, a, p]) => api(`/api/games/${g}/actions`, {method: 'POST', json: {action: a, ply: p}})", [gid, text, ply])
    page.goto(f"{server.url}/?lang=en")
    page.wait_for_function(f"() => document.getElementById('tv-board').dataset.game === '{gid}'")
    page.wait_for_selector("#mini-rings [data-pt]")
    save(page, "lobby")
    page.evaluate(f"() => api('/api/games/{gid}/resign', {{method: 'POST', json: {{}}}})")  # off the TV again
    assert page.errors == []
