"""The game page's other features in headless Chromium: draw, resign, play again, chat,
RINGS "convert all", Gygès free setup, the archive's upload form and a phone-sized screen."""

import re

import ringgames
from ringgames.records import Record

from .conftest import SHOTS, game_state, open_create_form, shot

NASTY_NAME = '<img src=x onerror=window.__pwned=1>Ann'
NASTY_CHAT = '<script>window.__pwned=2</script><b onmouseover="alert(3)">hi</b>'


def watch_dialogs(page):
    """Record every dialog; dismiss it unless the test set ``page.accept_dialogs``."""
    page.dialogs = []
    page.accept_dialogs = False
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.accept() if page.accept_dialogs else d.dismiss()))


def two_humans(page_factory, server, game="yinsh", name="Ann", friend="Bob", setup=None):
    """Ann creates a game with an invite seat; Bob opens the link in a second browser context."""
    ann = page_factory()
    watch_dialogs(ann)
    open_create_form(ann, server.url + "/")
    ann.fill("#myname", name)
    ann.select_option("#game", game)
    if setup:
        ann.select_option("#setup", setup)
    ann.select_option("#kind-1", "invite")
    ann.click("#create-btn")
    ann.wait_for_url(re.compile(r"/game/\w+$"))
    link = ann.locator('a[data-invite="1"]').get_attribute("href")
    bob = page_factory()
    watch_dialogs(bob)
    bob.goto(server.url + "/archive")
    bob.evaluate("n => localStorage.setItem('rg_name', n)", friend)
    bob.goto(link)
    bob.wait_for_function("() => S && MINE.length === 1 && MINE[0] === 1")
    ann.wait_for_function("() => S.status === 'live'")
    return ann, bob


def play_legal(page, action):
    """Play an action through the "all legal actions" list (the board clicks are tested elsewhere)."""
    st = game_state(page)
    ply = st["ply"]
    assert action in st["legal"], (action, st["legal"])
    page.select_option("#legal", action)
    page.click("#legal-play")
    page.wait_for_function(f"() => S.ply > {ply}")


def test_draw_offer_accepted_and_chat_is_text(server, page_factory):
    ann, bob = two_humans(page_factory, server, name=NASTY_NAME, friend="<i>Bob</i>")
    ann.locator('[data-pt="e5"]').first.click()
    bob.wait_for_function("() => S.ply === 1")
    # chat both ways; markup in names and messages stays text
    ann.fill("#chattext", NASTY_CHAT)
    ann.click("#chatform button")
    line = bob.locator("#chatlog .chatline").last
    line.wait_for()
    assert line.inner_text() == f"{NASTY_NAME}: {NASTY_CHAT}"
    bob.fill("#chattext", "good luck")
    bob.press("#chattext", "Enter")
    ann.wait_for_function("() => document.querySelector('#chatlog').innerText.includes('<i>Bob</i>: good luck')")
    assert bob.input_value("#chattext") == ""
    assert f"{NASTY_NAME} (you)" in ann.inner_text("#seats") and "<i>Bob</i> (you)" in bob.inner_text("#seats")
    for p in (ann, bob):
        assert p.locator("#chatlog img, #chatlog script, #chatlog b[onmouseover], #seats img, #seats i").count() == 0
    # a declined offer is gone from both pages
    assert bob.locator("#draw-accept").is_hidden()
    ann.click("#draw-offer")
    bob.wait_for_selector("#draw-accept", state="visible")
    bob.click("#draw-decline")
    for p in (ann, bob):
        p.wait_for_selector("#draw-offer", state="visible")
        assert p.inner_text("#result") == "" and p.locator("#draw-accept").is_hidden()
    # the draw: Ann offers, Bob sees the offer and accepts
    ann.click("#draw-offer")
    bob.wait_for_selector("#draw-accept", state="visible")
    assert bob.inner_text("#result") == f"Draw offered by {NASTY_NAME}"
    assert ann.locator("#draw-offer").is_hidden() and ann.locator("#draw-accept").is_hidden()
    assert ann.locator("#draw-decline").is_visible()
    bob.click("#draw-accept")
    for p in (ann, bob):
        p.wait_for_function("() => S.to_move === null")
        assert p.inner_text("#turn").startswith("Game over: draw")
        assert game_state(p)["result"] == "draw"
        assert p.locator("#moves li").last.inner_text().endswith("draw agreed")
        assert p.locator("#resign").is_hidden() and p.locator("#draw-offer").is_hidden()
        assert p.locator("#again").is_visible()
    for p in (ann, bob):
        assert p.evaluate("window.__pwned") is None
        assert p.dialogs == [] and p.errors == []
    shot(ann, "draw-ann")
    shot(bob, "draw-bob")


def test_resign_then_play_again_brings_both_players_to_the_new_game(server, page_factory):
    ann, bob = two_humans(page_factory, server, game="gyges", setup="preset")
    old = ann.url
    watcher = page_factory()
    watcher.goto(old)
    watcher.wait_for_function("() => S && S.status === 'live'")
    ann.click('button[data-action="321123"]')
    bob.wait_for_function("() => S.ply === 1")
    # a dismissed confirmation resigns nothing
    bob.click("#resign")
    assert bob.dialogs == ["Resign this game?"]
    bob.wait_for_timeout(300)
    assert game_state(bob)["to_move"] == 1
    bob.accept_dialogs = True
    bob.click("#resign")
    for p in (ann, bob, watcher):
        p.wait_for_function("() => S.to_move === null")
        assert p.inner_text("#turn") == "Game over: Ann (south) wins by resignation."
    assert bob.locator("#moves li").last.inner_text() == "2. resigns"  # South set up, North resigned
    assert bob.locator("#moves li").last.locator(".sw").get_attribute("title") == "north"
    assert watcher.locator("#again").is_hidden()
    # Bob asks for another game: he lands in a new one, in the other seat (colours swap), with the same setup mode
    bob.click("#again")
    bob.wait_for_url(lambda u: u != old and "/game/" in u)
    bob.wait_for_function("() => S && S.ply === 0 && MINE.length === 1 && MINE[0] === 0")
    new = bob.url
    st = game_state(bob)
    assert st["game"] == "gyges" and st["setup"] == "preset" and [s["kind"] for s in st["seats"]] == ["human", "human"]
    # Ann's page (still on the old game) now offers to join it; so does nobody's spectator page
    ann.wait_for_function("() => document.querySelector('#again').textContent.includes('join the new game')")
    assert ann.inner_text("#result") == "A new game with the same players has been started, with the colours swapped."
    watcher.wait_for_selector("#next-game a")
    assert watcher.locator("#next-game a").get_attribute("href") == "/game/" + new.split("/game/")[1]
    ann.click("#again")
    ann.wait_for_url(new)
    ann.wait_for_function("() => S && MINE.length === 1 && MINE[0] === 1")
    assert game_state(ann)["seats"][0]["name"] == "Bob" and game_state(ann)["seats"][1]["name"] == "Ann"
    bob.wait_for_function("() => S.seats.every(s => s.joined)")
    assert ann.locator('a[data-invite]').count() == 0
    # and they play it: South (Bob now) sets up first
    bob.click('button[data-action="123321"]')
    ann.wait_for_function("() => S.ply === 1 && S.to_move === 1")
    assert ann.errors == [] and bob.errors == [] and watcher.errors == []
    shot(bob, "rematch-bob")


def test_rings_convert_all(server, page_factory):
    page = page_factory()
    open_create_form(page, server.url + "/")
    page.select_option("#game", "rings")
    page.select_option("#players", "2")
    page.select_option("#kind-1", "me")
    page.click("#create-btn")
    page.wait_for_url(re.compile(r"/game/\w+$"))
    page.wait_for_function("() => S && MINE.length === 2")
    script = ["L13", "J14", "M9", "K12", "M15", "M11", "O14", "O10", "O12", "J12", "L15", "N10", "K10", "L11", "J10", "L9"]
    page.locator("details summary").first.click()
    for a in script:
        play_legal(page, a)
    # the engine: converting everything possible, whatever the order (the rules say the result is the same)
    s = ringgames.load_game("rings", None, 2).state_from_position(game_state(page)["position"])
    n = 0
    while conv := [a for a in s.legal_actions() if s.action_to_string(a).startswith("x")]:
        s.apply_action(conv[-1])
        n += 1
    assert n >= 2
    mover = game_state(page)["to_move"]
    before = game_state(page)["ply"]
    page.click("#convert-all")
    page.wait_for_function(f"() => S.to_move !== {mover}", timeout=30000)
    st = game_state(page)
    assert st["ply"] == before + n
    assert all(m["text"].startswith("x") for m in st["moves"][before:])
    assert st["position"] == s.position()
    assert page.locator("#convert-all").count() == 0
    assert page.errors == []
    shot(page, "rings-convert-all")


def test_gyges_free_setup_by_clicking_then_first_move(server, page_factory):
    south, north = two_humans(page_factory, server, game="gyges", setup="free")
    assert game_state(south)["setup"] == "free"
    place = south.locator("#setup-place")
    assert place.is_disabled()
    assert north.locator(".pt.target").count() == 0  # not North's turn
    # South: each click gives the next size still in the set: a1 1 -> 2 -> 3, b1 1, c1 1 -> 2, d1 1 (the last),
    # e1 2 (no 1 left), f1 3 (no 1 or 2 left)
    for sq, clicks in [("a1", 3), ("b1", 1), ("c1", 2), ("d1", 1), ("e1", 1), ("f1", 1)]:
        for _ in range(clicks):
            south.locator(f'[data-pt="{sq}"]').click()
    assert south.locator('[data-pt="a1"] circle.gring.pending').count() == 3
    # f1: 1 and 2 are used up, so the first click already gives a 3
    assert south.locator('[data-pt="f1"] circle.gring.pending').count() == 3
    assert place.inner_text() == "place 312123" and place.is_enabled()
    assert game_state(south)["ply"] == 0  # nothing sent yet
    place.click()
    north.wait_for_function("() => S.ply === 1")
    assert game_state(north)["position"].startswith("312123/")
    # North: its home row is row 6
    assert south.locator(".pt.target").count() == 0
    for sq in ["a6", "b6", "c6", "d6", "e6", "f6"]:
        north.locator(f'[data-pt="{sq}"]').click()
    assert north.locator('[data-pt="f6"] circle.gring.pending').count() == 3
    assert north.inner_text("#setup-place") == "place 112233"
    north.locator('[data-pt="a6"]').click()  # no 2 or 3 left for a6: it is emptied
    assert north.locator("#setup-place").is_disabled()
    north.locator('[data-pt="a6"]').click()
    north.click("#setup-place")
    south.wait_for_function("() => S.ply === 2")
    assert game_state(south)["position"].split()[0] == "312123/000000/000000/000000/000000/112233"
    # the first move, by clicking a piece and its end square
    st = game_state(south)
    action = next(a for a in st["legal"] if re.fullmatch(r"[a-f]1-[a-f][1-6]", a))
    start, end = action.split("-")
    south.locator(f'[data-pt="{start}"]').click()
    south.locator(f'[data-pt="{end}"].target').click()
    north.wait_for_function("() => S.ply === 3")
    assert game_state(north)["moves"][-1]["text"] == action
    assert south.errors == [] and north.errors == []
    shot(south, "gyges-free-setup")


def test_archive_upload_good_and_bad_files(server, page_factory, tmp_path):
    from playwright.sync_api import expect  # here: without playwright the fixture skips (or fails on CI)

    g = ringgames.load_game("yinsh")
    s = g.new_initial_state()
    for i in range(7):
        s.apply_action(s.legal_actions()[i * 5])
    good = tmp_path / "upload-good.rgn"
    good.write_text(Record.from_state(s, {"White": "Uma <b>", "Black": "Vic"}).dumps())
    bad = tmp_path / "upload-bad.rgn"
    bad.write_text('[Game "yinsh"]\n\n1. e5\n2. e5\n')
    page = page_factory()
    page.goto(server.url + "/archive")
    page.click("#upload button")  # no file chosen
    assert page.locator("#results li.err").inner_text() == "choose one or more files first"
    # the bad file alone: its reason, nothing imported
    page.set_input_files("#files", [str(bad)])
    page.click("#upload button")
    err = page.locator("#results li.err")
    expect(err).to_have_text("upload-bad.rgn: line 4, turn 2 (e5): 'e5': 'e5' is not legal here (black to play)")
    assert page.locator("#results li").count() == 1
    # both together: the good one is imported, the bad one reported
    page.set_input_files("#files", [str(bad), str(good)])
    page.click("#upload button")
    page.wait_for_function("() => document.querySelectorAll('#results li').length === 2 && document.querySelector('#results li a')")
    assert "upload-bad.rgn" in page.locator("#results li.err").inner_text()
    assert page.locator("#results li a").inner_text() == "upload-good.rgn: imported (yinsh, 7 plies, result unfinished)"
    gid = page.locator("#results li a").get_attribute("href").split("/game/")[1].split("?")[0]
    row = page.locator(f'#games a[data-game="{gid}"]')
    row.wait_for()
    assert "Uma <b> – Vic" in page.locator("#games tr", has=page.locator(f'a[data-game="{gid}"]')).inner_text()
    shot_page = SHOTS / "archive-upload-page.png"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shot_page), full_page=True)
    row.click()
    page.wait_for_selector("#replaybar", state="visible")
    assert page.inner_text("#r-ply") == "0/7"
    page.click("#r-last")
    assert page.locator(".ring").count() == 7
    r = g.new_initial_state()
    texts = []
    for a in s.history:
        texts.append(f"{len(texts) + 1}. {r.action_to_string(a)}")
        r.apply_action(a)
    assert [m.inner_text() for m in page.locator("#moves li").all()] == texts
    assert game_state(page)["position"] == s.position()
    assert page.errors == []
    shot(page, "archive-upload-replay")


def no_horizontal_scroll(page):
    return page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")


def test_phone_sized_screen(server, page_factory, boardspace_files):
    page = page_factory(width=390, height=844, is_mobile=True, has_touch=True, device_scale_factor=2)
    # the archive, with a long imported game, and its replay
    f = boardspace_files[1]
    r = page.request.post(server.url + "/api/import", multipart={"files": {"name": f.name, "mimeType": "text/plain", "buffer": f.read_bytes()}})
    gid = r.json()["results"][0]["id"]
    page.goto(server.url + "/archive")
    page.wait_for_selector(f'#games a[data-game="{gid}"]')
    assert no_horizontal_scroll(page), page.evaluate("document.scrollingElement.scrollWidth")
    page.locator(f'#games a[data-game="{gid}"]').tap()
    page.wait_for_selector("#replaybar", state="visible")
    page.locator("#r-last").tap()
    assert page.inner_text("#r-ply").split("/")[0] == page.inner_text("#r-ply").split("/")[1]
    assert no_horizontal_scroll(page), page.evaluate("document.scrollingElement.scrollWidth")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "phone-replay.png"), full_page=True)
    open_create_form(page, server.url + "/")
    page.select_option("#game", "rings")
    page.select_option("#players", "6")  # the widest seat table
    assert page.locator("#kind-5").is_visible()
    assert no_horizontal_scroll(page), page.evaluate("document.scrollingElement.scrollWidth")
    page.screenshot(path=str(SHOTS / "phone-lobby.png"), full_page=True)
    page.select_option("#game", "yinsh")
    page.select_option("#kind-1", "computer")
    page.click("#create-btn")
    page.wait_for_url(re.compile(r"/game/\w+$"))
    page.wait_for_selector('[data-pt="e5"].target')
    assert no_horizontal_scroll(page), page.evaluate("document.scrollingElement.scrollWidth")
    # against the computer: resign yes, no draw offer (the computer never accepts one)
    assert page.locator("#resign").is_visible() and page.locator("#draw-offer").is_hidden()
    box = page.locator("#board").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390 and box["width"] >= 300
    # tap a point: the ring is placed, the computer answers
    page.locator('[data-pt="e5"]').tap()
    page.wait_for_function("() => S.ply >= 2 && S.to_move === 0", timeout=30000)
    assert game_state(page)["moves"][0]["text"] == "e5"
    assert page.locator('[data-pt="e5"] .ring').count() == 1
    assert no_horizontal_scroll(page)
    assert page.errors == []
    shot(page, "phone-yinsh")
