"""The move list (issue 30): one line per turn in the game's notation, RINGS passes compressed, clickable, the shown
move marked; the board, players card and scores follow the selected move; replay by keyboard."""

import random
import re

import httpx

import ringgames
from ringgames.records import Record

from .conftest import game_state

TURN = re.compile(r"^(\d+)\. (.*)$")


def import_file(url, name, data):
    r = httpx.post(f"{url}/api/import", files=[("files", (name, data, "text/plain"))], timeout=60).json()
    res = r["results"][0]
    assert res["ok"] or res.get("duplicate"), res
    return res["id"]


def record_turns(url, gid):
    """The turn lines of the game's .rgn record: (number, actions)."""
    text = httpx.get(f"{url}/api/games/{gid}/record").text
    return [(int(m.group(1)), m.group(2)) for line in text.splitlines() if (m := TURN.match(line))]


def test_yinsh_moves_by_turn_clickable_with_the_players_card_at_that_move(server, page_factory, boardspace_files):
    f = boardspace_files[3]
    gid = import_file(server.url, f.name, f.read_bytes())
    page = page_factory()
    page.goto(f"{server.url}/game/{gid}")
    page.wait_for_function("() => S && S.moves.length > 0")
    turns = record_turns(server.url, gid)
    lines = [li.inner_text() for li in page.locator("#moves li").all()]
    assert lines == [f"{n}. {actions}" for n, actions in turns]
    assert any(len(actions.split()) > 1 for _, actions in turns)  # turns with a row and a ring: one line each
    # the last move is marked while the game is shown as it stands
    st = game_state(page)
    assert page.locator("#moves button.mv.current").get_attribute("data-ply") == str(len(st["moves"]) - 1)
    # click a ring move inside a turn with a removal: that position, and the card at that move
    n, actions = next((n, a) for n, a in turns if re.match(r"[a-k]\d+-[a-k]\d+ x", a))
    line = page.locator(f'#moves li[data-turn="{n}"]')
    button = line.locator("button.mv").first
    ply = int(button.get_attribute("data-ply"))
    button.click()
    page.wait_for_selector("#replaybar", state="visible")
    assert page.inner_text("#r-ply").startswith(f"{ply + 1}/")
    positions = page.evaluate("() => replay.positions")
    assert page.evaluate("() => board._last[0]") == positions[ply + 1]
    assert page.locator("#moves button.mv.current").get_attribute("data-ply") == str(ply)
    assert "here" in line.get_attribute("class")
    summaries = page.evaluate("() => replay.summaries")
    want = summaries[ply + 1]
    card = page.inner_text("#summary")
    assert f"rings removed by white: {want['rings_removed_white']}" in card and f"rings removed by black: {want['rings_removed_black']}" in card
    final = st["summary"]
    assert want != final or ply + 1 == len(positions) - 1
    to_move = page.evaluate("() => replay.toMove")[ply + 1]
    assert page.locator("#seats .seat.to-move").get_attribute("data-seat") == str(to_move)
    # the same move after the ring: its removal
    second = line.locator("button.mv").nth(1)
    second.click()
    assert page.locator("#moves button.mv.current").get_attribute("data-ply") == str(ply + 1)
    assert page.errors == []


def test_replay_by_keyboard(server, page_factory, boardspace_files):
    f = boardspace_files[4]
    gid = import_file(server.url, f.name, f.read_bytes())
    page = page_factory()
    page.goto(f"{server.url}/game/{gid}")
    page.wait_for_function("() => S && S.moves.length > 0")
    n = len(game_state(page)["moves"])
    page.keyboard.press("ArrowLeft")  # from the game as it stands: one move back
    page.wait_for_selector("#replaybar", state="visible")
    assert page.inner_text("#r-ply") == f"{n - 1}/{n}"
    page.keyboard.press("Home")
    assert page.inner_text("#r-ply") == f"0/{n}"
    assert page.locator("#moves button.mv.current").count() == 0 and page.locator(".ring").count() == 0
    for i in range(1, 4):
        page.keyboard.press("ArrowRight")
        assert page.inner_text("#r-ply") == f"{i}/{n}"
        assert page.locator("#moves button.mv.current").get_attribute("data-ply") == str(i - 1)
    page.keyboard.press("ArrowLeft")
    assert page.inner_text("#r-ply") == f"2/{n}"
    page.keyboard.press("End")
    assert page.inner_text("#r-ply") == f"{n}/{n}"
    page.keyboard.press("ArrowRight")  # nothing after the end
    assert page.inner_text("#r-ply") == f"{n}/{n}"
    assert page.evaluate("() => board._last[0]") == game_state(page)["position"]
    # typing in the chat does not step the replay
    page.click("#chattext")
    page.keyboard.press("Home")
    assert page.inner_text("#r-ply") == f"{n}/{n}"
    page.click("#title")
    page.keyboard.press("Escape")
    assert page.locator("#replaybar").is_hidden()
    assert page.errors == []


def test_rings_passes_are_compressed(server, page_factory):
    s = ringgames.load_game("rings", None, 3).new_initial_state()
    rng = random.Random(11)
    while not s.is_terminal():
        s.apply_action(rng.choice(s.legal_actions()))
    text = Record.from_state(s, {"Red": "Ann", "Blue": "Bob", "Green": "Cy"}).dumps()
    gid = import_file(server.url, "rings.rgn", text.encode())
    turns = record_turns(server.url, gid)
    want, k = [], 0
    while k < len(turns):
        j = k
        while turns[k][1] == "pass" and j + 1 < len(turns) and turns[j + 1][1] == "pass":
            j += 1
        want.append(f"{turns[k][0]}–{turns[j][0]}. pass ×{j - k + 1}" if j > k else f"{turns[k][0]}. {turns[k][1]}")
        k = j + 1
    assert any("×" in w for w in want)
    page = page_factory()
    page.goto(f"{server.url}/game/{gid}")
    page.wait_for_function("() => S && S.moves.length > 0")
    assert [li.inner_text() for li in page.locator("#moves li").all()] == want
    assert len(want) < len(turns) < len(s.history)
    # a compressed line is one click: the position after its last pass
    line = page.locator("#moves li", has_text="×").first
    line.locator("button.mv").click()
    ply = int(line.locator("button.mv").get_attribute("data-ply"))
    page.wait_for_selector("#replaybar", state="visible")
    assert page.inner_text("#r-ply").startswith(f"{ply + 1}/")
    scores = page.evaluate("() => replay.summaries")[ply + 1]["scores"]
    assert page.inner_text('[data-summary="scores"]') == "Points: " + " · ".join(
        f"{c} {v}" for c, v in zip(("Red", "Blue", "Green"), scores, strict=True))
    assert page.errors == []
    # in another language a pass is a word of that language, single or compressed; the notation stays
    ru = page_factory()
    ru.goto(f"{server.url}/?lang=ru")
    ru.goto(f"{server.url}/game/{gid}")
    ru.wait_for_function("() => S && S.moves.length > 0")
    assert [li.inner_text() for li in ru.locator("#moves li").all()] == [w.replace("pass", "пас") for w in want]
    assert any("пас ×" in w for w in [li.inner_text() for li in ru.locator("#moves li").all()])


def test_the_shown_move_stays_in_sight_in_the_list(server, page_factory, boardspace_files):
    f = boardspace_files[3]
    gid = import_file(server.url, f.name, f.read_bytes())
    page = page_factory()
    page.goto(f"{server.url}/game/{gid}")
    page.wait_for_function("() => S && S.moves.length > 30")
    inside = ("() => { const b = document.getElementById('moves').getBoundingClientRect(), "
              "c = document.querySelector('#moves button.mv.current').getBoundingClientRect(); "
              "return c.top >= b.top && c.bottom <= b.bottom; }")
    assert page.evaluate(inside)  # the last move, at the end of the list
    page.keyboard.press("Home")
    page.wait_for_selector("#replaybar", state="visible")
    for _ in range(25):
        page.keyboard.press("ArrowRight")
    assert page.evaluate(inside)
    page.locator("#moves button.mv").nth(3).click()
    assert page.evaluate(inside)
    assert page.errors == []
