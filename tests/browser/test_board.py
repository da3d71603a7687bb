"""The board players see (issue 30): results and names in words, scores and the players card at the shown move,
the lobby's level box, the Gygès setup controls and the replace step, in headless Chromium."""

import random
import re

import httpx

import ringgames
from ringgames.records import Record

from .conftest import game_state, open_create_form


def finished(game, players=2, seed=1, **kw):
    """A finished game of random moves (the same one for the same seed)."""
    s = ringgames.load_game(game, None, players).new_initial_state()
    rng = random.Random(seed)
    while not s.is_terminal():
        s.apply_action(rng.choice(s.legal_actions()))
    return s


def import_state(url, s, names):
    text = Record.from_state(s, {k.capitalize(): v for k, v in zip(s.game.seat_names, names, strict=True)}).dumps()
    r = httpx.post(f"{url}/api/import", files=[("files", ("g.rgn", text.encode(), "text/plain"))], timeout=60)
    res = r.json()["results"][0]
    assert res["ok"] or res.get("duplicate"), res
    return res["id"]


def summary_at(s, ply):
    r = s.game.new_initial_state()
    for a in s.history[:ply]:
        r.apply_action(a)
    return r.summary(), (None if r.is_terminal() else r.current_player())


def test_lobby_shows_a_level_only_for_computer_seats(server, page_factory):
    page = page_factory()
    open_create_form(page, server.url + "/")
    assert page.locator("#level-l-0").is_hidden() and page.locator("#level-l-1").is_visible()  # me / computer
    page.select_option("#kind-1", "invite")
    assert page.locator("#level-l-1").is_hidden()
    page.select_option("#kind-0", "computer")
    assert page.locator("#level-l-0").is_visible()
    page.select_option("#game", "rings")
    page.select_option("#players", "4")
    assert [page.locator(f"#level-l-{i}").is_visible() for i in range(4)] == [False, True, True, True]
    assert page.errors == []


def test_rings_scores_in_words_and_the_players_card_at_the_shown_move(server, page_factory):
    s = finished("rings", 3, seed=4)
    gid = import_state(server.url, s, ["Ann", "Bob", "Cy"])
    page = page_factory()
    page.goto(f"{server.url}/game/{gid}")
    page.wait_for_function("() => S && S.to_move === null")
    final = s.summary()
    text = page.inner_text("#summary")
    assert "[" not in text and "{" not in text, text
    assert page.inner_text('[data-summary="scores"]') == "Points: " + " · ".join(
        f"{name} {n}" for name, n in zip(("Red", "Blue", "Green"), final["scores"], strict=True))
    winners = ", ".join(("Red", "Blue", "Green")[i] for i in final["winners"])
    assert page.inner_text('[data-summary="winners"]') == f"Winners: {winners}"
    assert page.inner_text("#turn").startswith("Game over:") and "passed" in page.inner_text("#turn")
    # replay: the card shows the points at the shown move, and who is to move there
    page.click("#replay")
    page.wait_for_selector("#replaybar", state="visible")
    for ply in (0, 40, len(s.history) // 2, len(s.history)):
        page.evaluate(f"() => {{ replay.i = {ply}; render(); }}")
        summary, to_move = summary_at(s, ply)
        assert page.inner_text('[data-summary="scores"]') == "Points: " + " · ".join(
            f"{name} {n}" for name, n in zip(("Red", "Blue", "Green"), summary["scores"], strict=True)), ply
        bold = page.locator("#seats .seat.to-move")
        if to_move is None:
            assert bold.count() == 0 and "the game ends here" in page.inner_text("#turn")
        else:
            assert bold.get_attribute("data-seat") == str(to_move), ply
    assert page.errors == []


def test_yinsh_replay_card_shows_rings_removed_at_the_shown_move(server, page_factory):
    s = finished("yinsh", seed=5)  # 2 and 1 rings removed
    gid = import_state(server.url, s, ["Ann", "Bob"])
    page = page_factory()
    page.goto(f"{server.url}/game/{gid}?replay")
    page.wait_for_selector("#replaybar", state="visible")
    first = page.inner_text("#summary")
    assert "rings removed by white: 0" in first and "rings removed by black: 0" in first
    assert page.locator("[data-removed]").count() == 0
    page.click("#r-last")
    final = s.summary()
    # the removed rings are drawn on each side of the board
    assert page.locator('[data-removed="0"]').count() == final["rings_removed_white"]
    assert page.locator('[data-removed="1"]').count() == final["rings_removed_black"]
    assert final["rings_removed_white"] + final["rings_removed_black"] > 0
    assert f"rings removed by white: {final['rings_removed_white']}" in page.inner_text("#summary")
    assert f"rings removed by black: {final['rings_removed_black']}" in page.inner_text("#summary")
    assert page.errors == []


def test_gyges_win_reads_as_words_and_no_side_to_move(server, page_factory):
    s = finished("gyges", seed=2)
    assert s.outcome().reason == "goal"
    gid = import_state(server.url, s, ["Ann", "Bob"])
    page = page_factory()
    page.goto(f"{server.url}/game/{gid}")
    page.wait_for_function("() => S && S.to_move === null")
    winner = s.outcome().winners[0]
    name, seat = (("Ann", "south"), ("Bob", "north"))[winner]
    status = page.inner_text("#status")
    assert page.inner_text("#turn") == f"Game over: {name} ({seat}) wins by reaching the goal."
    assert "to move" not in status, status
    assert page.errors == []


def test_computer_winner_is_named_in_words(server, page_factory):
    page = page_factory()
    page.goto(server.url + "/")
    gid = page.evaluate("async () => (await api('/api/games', {method: 'POST', json: {game: 'yinsh', seats: "
                        "[{kind: 'me', name: 'Ann'}, {kind: 'computer', level: 3}]}})).id")
    page.goto(f"{server.url}/game/{gid}")
    page.wait_for_function("() => S && MINE.length === 1")
    assert page.inner_text('#seats [data-seat="1"]') == "black: computer, level 3"
    page.once("dialog", lambda d: d.accept())
    page.click("#resign")
    page.wait_for_function("() => S.to_move === null")
    assert page.inner_text("#turn") == "Game over: Black (computer, level 3) wins by resignation."
    assert page.errors == []


def test_gyges_setup_has_named_presets_one_place_control_and_the_replace_step_says_what_to_do(server, page_factory):
    page = page_factory()
    page.goto(server.url + "/")
    gid = page.evaluate("async () => (await api('/api/games', {method: 'POST', json: {game: 'gyges', setup: 'free', seats: "
                        "[{kind: 'me', name: 'Ann'}, {kind: 'computer', level: 0}]}})).id")
    page.goto(f"{server.url}/game/{gid}")
    page.wait_for_selector('button[data-action="321123"]')
    specials = page.locator("#specials")
    assert page.inner_text('button[data-action="321123"]') == "Three-ring pieces on the edges, one-ring in the centre"
    assert page.inner_text('button[data-action="123321"]') == "One-ring pieces on the edges, three-ring in the centre"
    assert specials.locator("select").count() == 0 and specials.locator("#setup-place").count() == 1
    assert not re.search(r"\b\d{6}\b", specials.inner_text())  # presets by name, not by code
    # a preset whose pieces stand side by side: a one-ring piece can land on its neighbour
    page.click('button[data-action="231132"]')
    page.wait_for_function("() => S.ply >= 2 && S.to_move === 0", timeout=30000)
    st = game_state(page)
    drop = next(a for a in st["legal"] if re.fullmatch(r"[a-f]1-[a-f]1\([a-f][1-6]\)", a))
    start, end = drop[:2], drop[3:5]
    page.locator(f'[data-pt="{start}"]').click()
    page.locator(f'[data-pt="{end}"]').click()
    assert page.inner_text("#status").endswith(
        f"Your piece lands on {end}: now click the empty square where the piece from {end} goes.")
    assert page.locator(".pt.target").count() > 0
    assert page.errors == []


TAP = """() => {  // every tap target of the board: its size, and the distance to the nearest other target's centre
  const boxes = [...document.querySelectorAll('#board .pt .hit, #board .circle .hex')].map(e => {
    const r = e.getBoundingClientRect(); return {w: r.width, h: r.height, x: r.x + r.width / 2, y: r.y + r.height / 2,
      id: e.closest('[data-pt], [data-circle]').getAttribute('data-pt') || e.closest('[data-circle]').getAttribute('data-circle')};
  });
  const pts = boxes.filter(b => !/^[A-X]{2}\\d+$/.test(b.id));
  for (const b of pts) b.near = Math.min(...pts.filter(o => o !== b).map(o => Math.hypot(o.x - b.x, o.y - b.y)));
  return boxes;
}"""


def test_tap_targets_are_44_px_on_a_phone(server, page_factory, tmp_path):
    page = page_factory(width=390, height=844, is_mobile=True, has_touch=True, device_scale_factor=2)
    page.goto(server.url + "/")
    for game, seats in [("yinsh", 2), ("gyges", 2), ("rings", 3)]:
        body = {"game": game, "players": seats, "seats": [{"kind": "me", "name": "Ann"}] + [{"kind": "computer", "level": 0}] * (seats - 1)}
        gid = page.evaluate("async (b) => (await api('/api/games', {method: 'POST', json: b})).id", body)
        page.goto(f"{server.url}/game/{gid}")
        page.wait_for_selector(".pt.target")
        boxes = page.evaluate(TAP)
        assert len(boxes) >= {"yinsh": 85, "gyges": 36 + 2, "rings": 216 + 91}[game]
        small = [b for b in boxes if b["w"] < 44 or b["h"] < 44]
        assert not small, (game, small[:3])
        crowded = [b for b in boxes if b.get("near", 99) < 44]
        assert not crowded, (game, crowded[:3])
        # the page itself does not scroll sideways (RINGS pans inside its frame)
        assert page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")
        # a tap on a target acts on it
        target = page.locator(".pt.target").nth(3)
        target.scroll_into_view_if_needed()
        what = target.get_attribute("data-pt")
        target.tap()
        if game == "gyges":  # a setup square: the piece appears on it
            assert page.locator(f'[data-pt="{what}"] circle.gring.pending').count() == 1
        else:
            page.wait_for_function("() => S.ply >= 1")
            assert game_state(page)["moves"][0]["text"].lower() == what.lower()
        page.screenshot(path=str(tmp_path / f"phone-{game}.png"), full_page=True)
        print("screenshot:", tmp_path / f"phone-{game}.png")
    assert page.errors == []


def test_a_record_without_names_names_the_winner_by_seat(server, page_factory):
    s = finished("gyges", seed=2)
    text = Record.from_state(s, {}).dumps()
    r = httpx.post(f"{server.url}/api/import", files=[("files", ("nameless.rgn", text.encode(), "text/plain"))], timeout=60)
    gid = r.json()["results"][0]["id"]
    page = page_factory()
    page.goto(f"{server.url}/game/{gid}")
    page.wait_for_function("() => S && S.to_move === null")
    seat = ("South", "North")[s.outcome().winners[0]]
    assert page.inner_text("#turn") == f"Game over: {seat} wins by reaching the goal."
    assert page.errors == []


def test_yinsh_shows_the_whole_board_where_the_screen_allows(server, page_factory):
    for width, whole in [(390, False), (430, True), (900, True)]:
        page = page_factory(width=width, height=900, is_mobile=width < 600, has_touch=width < 600)
        page.goto(server.url + "/")
        gid = page.evaluate("async () => (await api('/api/games', {method: 'POST', json: {game: 'yinsh', seats: "
                            "[{kind: 'me', name: 'Ann'}, {kind: 'computer', level: 0}]}})).id")
        page.goto(f"{server.url}/game/{gid}")
        page.wait_for_selector(".pt.target")
        x, _, w, _ = map(float, page.get_attribute("#board", "viewBox").split())
        assert (x <= 40 - 16.5 and x + w >= 386.4 + 16.5) == whole, (width, x, w)  # a ring on a or k fits
        small = [b for b in page.evaluate(TAP) if b["h"] < 44 or b["w"] < 44]
        assert not small, (width, small[:2])
        assert page.errors == []
