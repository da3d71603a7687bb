"""The page survives a server restart: it reconnects, gets the current state and play carries on."""

import re

from ringgames.server.testing import ServerProcess

from .conftest import game_state, open_create_form, shot, wait_ply


def test_page_reconnects_after_a_server_restart(tmp_path, page_factory):
    db = f"sqlite:///{tmp_path / 'r.sqlite3'}"
    srv = ServerProcess(db, log=tmp_path / "server.log").start()
    port = srv.port
    try:
        page = page_factory()
        open_create_form(page, srv.url + "/")
        page.select_option("#kind-1", "me")  # hot seat: both seats in this browser
        page.click("#create-btn")
        page.wait_for_url(re.compile(r"/game/\w+$"))
        for i, pt in enumerate(["e5", "f6"]):
            page.locator(f'[data-pt="{pt}"].target').click()
            wait_ply(page, i)
        srv.kill()
        page.wait_for_function("() => document.getElementById('err').textContent.includes('reconnecting')")
        srv = ServerProcess(db, port=port, log=tmp_path / "server.log").start()
        page.wait_for_function("() => document.getElementById('err').textContent === ''", timeout=20000)
        page.locator('[data-pt="d4"].target').click()
        wait_ply(page, 2)
        st = game_state(page)
        assert [m["text"] for m in st["moves"]] == ["e5", "f6", "d4"] and st["to_move"] == 1
        assert page.errors == []
        shot(page, "yinsh-after-restart")
    finally:
        srv.stop()
