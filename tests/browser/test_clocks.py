"""Clocks in headless Chromium: the lobby's time controls, both clocks shown and ticking, the low-time
warning, and the game ending on time for both players (docs/time-controls.md)."""

import re

import httpx

from .conftest import SHOTS, open_create_form
from .test_features import watch_dialogs


def clocked_game(page_factory, server, tc, minutes=None, increment=None):
    """Ann creates a YINSH game with time control ``tc`` (a value of the lobby's select) and an invite seat;
    Bob opens the link in another browser context."""
    ann = page_factory()
    watch_dialogs(ann)
    open_create_form(ann, server.url + "/")
    assert ann.input_value("#tc") == ""  # no clock is the default
    ann.fill("#myname", "Ann")
    ann.select_option("#tc", tc)
    if minutes is not None:
        assert ann.locator("#tc-custom").is_visible()
        ann.fill("#tc-min", str(minutes))
        ann.fill("#tc-inc", str(increment))
    ann.select_option("#kind-1", "invite")
    ann.click("#create-btn")
    ann.wait_for_url(re.compile(r"/game/\w+$"))
    link = ann.locator('a[data-invite="1"]').get_attribute("href")
    bob = page_factory()
    bob.goto(server.url + "/archive")
    bob.evaluate("n => localStorage.setItem('rg_name', n)", "Bob")
    bob.goto(link)
    bob.wait_for_function("() => S && MINE.length === 1 && MINE[0] === 1")
    ann.wait_for_function("() => S.status === 'live'")
    return ann, bob


def seconds(text):
    """A clock's text ("2:59", "9.4", "1:02:03") in seconds."""
    if ":" not in text:
        return float(text)
    out = 0.0
    for part in text.split(":"):
        out = out * 60 + float(part)
    return out


def test_lobby_presets_and_correspondence(server, page_factory):
    ann, bob = clocked_game(page_factory, server, "rt:300:3")
    for p in (ann, bob):
        assert p.inner_text("#tc") == "Time control: 5+3"
        assert p.locator("#seats .clock").count() == 2
    gid = ann.url.rsplit("/", 1)[1]
    g = httpx.get(f"{server.url}/api/games/{gid}").json()
    assert g["time_control"]["label"] == "300+3"
    # the lobby lists the game with its time control and how long the player to move has left
    lobby = page_factory()
    lobby.goto(server.url + "/")
    row = lobby.locator(f'#live tr:has(a[href="/game/{gid}"])')
    row.wait_for()
    assert re.fullmatch(r"5\+3 · 4:5\d left to move", row.locator("td").last.inner_text())
    # correspondence: days per move, shown in days and hours
    page = page_factory()
    open_create_form(page, server.url + "/")
    page.select_option("#tc", "days:3")
    page.select_option("#kind-1", "me")
    page.click("#create-btn")
    page.wait_for_url(re.compile(r"/game/\w+$"))
    page.wait_for_function("() => S && CLOCK")
    assert page.inner_text("#tc") == "Time control: 3 days per move"
    assert page.inner_text('#seats .clock[data-seat="1"]') == "3 d 0 h"


def test_clocks_tick_and_the_game_ends_on_time_for_both(server, page_factory):
    ann, bob = clocked_game(page_factory, server, "custom", minutes=0.1, increment=0)  # 6 s + 0
    for p in (ann, bob):
        assert p.locator("#seats .clock").count() == 2
        p.wait_for_selector('#seats .clock.running[data-seat="0"]')
    first = seconds(ann.inner_text('#seats .clock[data-seat="0"]'))
    ann.wait_for_timeout(700)
    later = seconds(ann.inner_text('#seats .clock[data-seat="0"]'))
    assert 0 < later < first <= 6, (first, later)  # Ann's clock ticks down on her page ...
    assert seconds(bob.inner_text('#seats .clock[data-seat="0"]')) < first  # ... and on Bob's
    assert seconds(ann.inner_text('#seats .clock[data-seat="1"]')) == 6  # Bob's clock waits
    assert "running" not in (ann.get_attribute('#seats .clock[data-seat="1"]', "class") or "")
    ann.wait_for_selector('#seats .clock.low[data-seat="0"]')  # the low-time warning (under 1.5 s here)
    for p in (ann, bob):
        p.wait_for_function("() => S.to_move === null", timeout=15000)
        assert p.inner_text("#turn") == "Game over: Bob (black) wins (time ran out)."
        assert p.inner_text('#seats .clock[data-seat="0"]') == "0.0"
        assert p.locator("#moves li").last.inner_text().endswith("time")


def test_abort_shows_on_the_page(tmp_path, page_factory):
    """A site that aborts after 1 s without a first move: the page says so and offers nothing to play."""
    from ringgames.server.testing import ServerProcess

    with ServerProcess(f"sqlite:///{tmp_path / 'a.sqlite3'}", log=tmp_path / "server.log",
                       extra_args=["--limit", "abort_first_move_seconds=1"]) as srv:
        d = httpx.post(f"{srv.url}/api/games", json={"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "me"}],
                                                    "clock": {"initial": 60}}).json()
        page = page_factory()
        page.goto(f"{srv.url}/game/{d['id']}")
        page.wait_for_function("() => S && S.status === 'aborted'", timeout=10000)
        assert page.inner_text("#turn") == "Game aborted: a first move did not come in time (no result)"
        assert page.locator("#resign").is_hidden() and page.locator("#seats .clock.running").count() == 0


def test_claim_after_the_opponent_closed_the_page(tmp_path, page_factory):
    """A site where a real-time game may be claimed 1 s after the seat to move lost its last WebSocket: no button
    while Bob's page is open; once he closes it, Ann's page shows the claim button by itself, and the claim wins."""
    from ringgames.server.testing import ServerProcess

    from .test_features import play_legal

    with ServerProcess(f"sqlite:///{tmp_path / 'd.sqlite3'}", log=tmp_path / "server.log",
                       extra_args=["--limit", "disconnect_claim_seconds=1", "--limit", "presence_heartbeat_seconds=0.2"]) as srv:
        ann, bob = clocked_game(page_factory, srv, "custom", minutes=10, increment=0)
        ann.locator("details summary").first.click()
        play_legal(ann, "e5")
        bob.wait_for_function("() => S.ply === 1")
        ann.wait_for_timeout(1500)
        assert ann.locator("#claim").is_hidden() and ann.evaluate("S.claim_in") is None  # Bob is here, thinking
        for page in (ann, bob):  # each seat's label: both players connected (issue 29)
            for seat in (0, 1):
                label = page.locator(f"#seats .presence[data-seat='{seat}']")
                assert label.inner_text() == "connected" and label.get_attribute("class") == "presence on"
        bob.close()
        ann.wait_for_function("() => typeof S.claim_in === 'number'", timeout=5000)  # told of the disconnection
        bob_label = ann.locator("#seats .presence[data-seat='1']")
        ann.wait_for_selector("#seats .presence.off[data-seat='1']", timeout=5000)
        assert bob_label.inner_text().startswith("disconnected for 0:0")
        assert ann.locator("#seats .presence[data-seat='0']").inner_text() == "connected"
        ann.wait_for_selector("#claim", state="visible", timeout=5000)
        ann.wait_for_function("() => document.querySelector(\"#seats .presence[data-seat='1']\").textContent.endsWith('you may claim the game now')")
        ann.screenshot(path=str(SHOTS / "presence-disconnected.png"))
        ann.click("#claim")
        ann.wait_for_function("() => S.to_move === null")
        assert ann.inner_text("#turn") == "Game over: Ann (white) wins (the player disconnected)."
