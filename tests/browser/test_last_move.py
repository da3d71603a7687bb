"""The last turn marked on each board (issue 30), after a computer's move, for a spectator and in a replay; the
"computer is thinking" sign. Screenshots of each board's marking go to the test's tmp folder."""

import random
import re

import httpx

import ringgames
from ringgames.records import Record

from .conftest import game_state

YINSH_LO = [2, 1, 1, 1, 1, 2, 2, 3, 4, 5, 7]
COLS = "abcdefghijk"


def yinsh_cells(position):
    out = {}
    for c, col in enumerate(position.split()[0].split("/")):
        r = YINSH_LO[c]
        for tok in re.findall(r"\d+|.", col):
            if tok.isdigit():
                r += int(tok)
            else:
                out[f"{COLS[c]}{r}"] = tok
                r += 1
    return out


def between(a, b):
    ca, ra, cb, rb = COLS.index(a[0]), int(a[1:]), COLS.index(b[0]), int(b[1:])
    n = max(abs(cb - ca), abs(rb - ra))
    return [f"{COLS[ca + (cb - ca) * i // n]}{ra + (rb - ra) * i // n}" for i in range(n + 1)]


def marks(page):
    """kind -> sorted squares/points/circles the board marks as the last turn's."""
    got = page.evaluate("() => [...document.querySelectorAll('#board [data-last]')].map(e => [e.dataset.last, e.dataset.at])")
    out = {}
    for kind, at in got:
        out.setdefault(kind, []).append(at)
    return {k: sorted(v) for k, v in out.items()}


def new_game(page, server, body):
    page.goto(server.url + "/")
    gid = page.evaluate("async (b) => (await api('/api/games', {method: 'POST', json: b})).id", body)
    page.goto(f"{server.url}/game/{gid}")
    page.wait_for_function("() => S && MINE.length === 1")
    return gid


def play_and_wait_for_the_computer(page, action):
    ply = game_state(page)["ply"]
    page.evaluate("a => send(a)", action)
    page.wait_for_function(f"() => S.ply > {ply} && (S.to_move === 0 || S.to_move === null)", timeout=30000)
    return game_state(page)


def computer_turn(st):
    """The texts of the last turn (the computer's, seat 1) and the position before it."""
    lt = st["last_turn"]
    assert lt["seat"] == 1 and lt["ply"] == len([m for m in st["moves"] if m["ply"] < lt["ply"]])
    return [m["text"] for m in st["moves"][lt["ply"]:]], lt["before"]


def test_yinsh_marks_the_computer_ring_move_and_flips_live_and_for_a_spectator(server, page_factory, tmp_path):
    page = page_factory()
    gid = new_game(page, server, {"game": "yinsh", "seats": [{"kind": "me", "name": "Ann"}, {"kind": "computer", "level": 0}]})
    rng = random.Random(5)
    flips = []
    for _ in range(60):
        st = game_state(page)
        if st["to_move"] is None:
            break
        st = play_and_wait_for_the_computer(page, rng.choice(st["legal"]))
        if st["to_move"] is None or st["last_turn"]["seat"] != 1:
            continue
        texts, before = computer_turn(st)
        move = next((t for t in texts if re.fullmatch(r"[a-k]\d+-[a-k]\d+", t)), None)
        got = marks(page)
        if move is None:  # placing: the placed ring is marked
            assert got.get("placed") == sorted(t for t in texts if re.fullmatch(r"[a-k]\d+", t)), (texts, got)
            continue
        a, b = move.split("-")
        cells = yinsh_cells(before)
        flips = [p for p in between(a, b)[1:-1] if cells.get(p) in ("w", "b")]
        assert got["from"] == [a] and got["to"] == [b], (texts, got)
        assert got.get("flip", []) == sorted(flips), (texts, got, before)
        if flips:
            break
    assert flips, "the computer never jumped a marker"
    page.locator("#board").screenshot(path=str(tmp_path / "yinsh-last-move.png"))
    # a spectator sees the same marks
    watcher = page_factory()
    watcher.goto(f"{server.url}/game/{gid}")
    watcher.wait_for_function(f"() => S && S.ply === {game_state(page)['ply']}")
    assert marks(watcher) == marks(page)
    assert page.errors == [] and watcher.errors == []


def test_gyges_marks_the_computer_path_live(server, page_factory, tmp_path):
    page = page_factory()
    new_game(page, server, {"game": "gyges", "setup": "preset", "seats": [{"kind": "me", "name": "Ann"}, {"kind": "computer", "level": 0}]})
    page.wait_for_selector('button[data-action="321123"]')
    st = play_and_wait_for_the_computer(page, "321123")
    assert marks(page) == {}  # a setup: nothing to mark
    rng = random.Random(2)
    seen_bounce = False
    for _ in range(40):
        if st["to_move"] is None:
            break
        st = play_and_wait_for_the_computer(page, rng.choice(st["legal"]))
        if st["last_turn"]["seat"] != 1:
            continue
        (text,), _ = computer_turn(st)
        squares = text.split("(")[0].split("-")
        got = marks(page)
        end = "G" if squares[-1] == "G" else squares[-1]
        assert got["from"] == [squares[0]] and got["to"] == [end], (text, got)
        assert got.get("bounce", []) == sorted(squares[1:-1]), (text, got)
        drop = re.search(r"\(([a-f][1-6])\)", text)
        assert got.get("drop", []) == ([drop.group(1)] if drop else []), (text, got)
        # the path is drawn step by step: orthogonal steps of one square (the goal: from the far row)
        path = page.locator("#board .lm-path")
        points = [tuple(map(float, p.split(","))) for p in path.get_attribute("points").split()]
        assert int(path.get_attribute("data-steps")) in (len(points) - 1, len(points) - 2) and len(points) >= len(squares)
        for (x0, y0), (x1, y1) in zip(points, points[1:], strict=False):
            assert (x0 == x1) != (y0 == y1), (text, points)
            assert abs(x1 - x0) == 60 or abs(y1 - y0) == 60 or end == "G", (text, points)
        if squares[1:-1] or drop:
            seen_bounce = True
            page.locator("#board").screenshot(path=str(tmp_path / "gyges-last-move.png"))
            break
    assert seen_bounce or st["to_move"] is None
    assert page.errors == []


def test_rings_marks_the_computer_stone_live(server, page_factory, tmp_path):
    page = page_factory()
    new_game(page, server, {"game": "rings", "players": 2, "seats": [{"kind": "me", "name": "Ann"}, {"kind": "computer", "level": 0}]})
    page.wait_for_selector(".pt.target")
    st = game_state(page)
    for point in ("K12", "L12", "K14"):
        st = play_and_wait_for_the_computer(page, point if point in st["legal"] else next(a for a in st["legal"] if re.fullmatch(r"[A-X]\d+", a)))
        texts, _ = computer_turn(st)
        placed = [t for t in texts if re.fullmatch(r"[A-X]\d+", t)]
        assert marks(page).get("placed", []) == placed, (texts, marks(page))
    page.locator("#board").screenshot(path=str(tmp_path / "rings-last-move.png"))
    assert page.errors == []


def rings_game_with_conversions(seed):
    """A finished random 2-player RINGS game and a ply just after a turn with conversions."""
    s = ringgames.load_game("rings", None, 2).new_initial_state()
    rng = random.Random(seed)
    while not s.is_terminal():
        s.apply_action(rng.choice(s.legal_actions()))
    return s


def test_rings_conversions_marked_in_a_replay(server, page_factory, tmp_path):
    s = rings_game_with_conversions(7)
    entries = list(s.history_entries())
    # the end of the first turn with a conversion
    k = next(i for i, e in enumerate(entries) if e.text.startswith("x"))
    end = k
    while end + 1 < len(entries) and entries[end + 1].seat == entries[k].seat:
        end += 1
    start = k
    while start > 0 and entries[start - 1].seat == entries[k].seat:
        start -= 1
    text = Record.from_state(s, {"Red": "Ann", "Blue": "Bob"}).dumps()
    r = httpx.post(f"{server.url}/api/import", files=[("files", ("r.rgn", text.encode(), "text/plain"))], timeout=60).json()
    gid = r["results"][0]["id"]
    page = page_factory()
    page.goto(f"{server.url}/game/{gid}?replay")
    page.wait_for_selector("#replaybar", state="visible")
    page.evaluate(f"() => {{ replay.i = {end + 1}; render(); }}")
    got = marks(page)
    turn = [e.text for e in entries[start:end + 1]]
    assert got.get("placed", []) == [t for t in turn if re.fullmatch(r"[A-X]\d+", t)]
    assert got["circle"] == sorted(t[1:] for t in turn if t.startswith("x"))
    # the converted stones: another player's before the turn, the mover's after it
    positions = page.evaluate("([a, b]) => [replay.positions[a], replay.positions[b]]", [start, end + 1])
    stones = page.evaluate("(ps) => ps.map(p => board.parse(p).stones)", positions)
    mover = "rb"[entries[k].seat]
    want = sorted(p for p, v in stones[1].items() if v == mover and stones[0].get(p) not in (None, mover))
    assert got["converted"] == want and want
    page.locator("#board").screenshot(path=str(tmp_path / "rings-conversion-replay.png"))
    assert page.errors == []


def test_the_computer_is_thinking_sign(server, page_factory):
    page = page_factory()
    new_game(page, server, {"game": "yinsh", "seats": [{"kind": "computer", "level": 5}, {"kind": "me", "name": "Ann"}]})
    page.wait_for_selector("#thinking")
    assert page.inner_text("#thinking") == "The computer is thinking…"
    assert page.inner_text("#turn") == "White (computer, level 5) to place a ring"
    assert page.locator('#seats [data-seat="0"]').get_attribute("class").split() == ["seat", "to-move", "thinking-seat"]
    page.once("dialog", lambda d: d.accept())
    page.click("#resign")
    page.wait_for_function("() => S.to_move === null")
    assert page.locator("#thinking").count() == 0
    assert page.errors == []


def yinsh_until_a_computer_ring_move(page):
    """Play random moves against the computer until its last turn moved a ring; returns the state."""
    rng = random.Random(9)
    for _ in range(60):
        st = play_and_wait_for_the_computer(page, rng.choice(game_state(page)["legal"]))
        if st["to_move"] is not None and st["last_turn"]["seat"] == 1 and any(
                re.fullmatch(r"[a-k]\d+-[a-k]\d+", t) for t in computer_turn(st)[0]):
            return st
    raise AssertionError("the computer never moved a ring")


RUNNING = "() => document.querySelector('#board').getAnimations({subtree: true}).length"


def test_a_new_move_is_animated_and_animations_can_be_turned_off(server, page_factory):
    page = page_factory()
    new_game(page, server, {"game": "yinsh", "seats": [{"kind": "me", "name": "Ann"}, {"kind": "computer", "level": 0}]})
    assert page.is_checked("#anim")
    st = yinsh_until_a_computer_ring_move(page)
    texts, _ = computer_turn(st)
    b = next(t for t in texts if re.fullmatch(r"[a-k]\d+-[a-k]\d+", t)).split("-")[1]
    assert "animate" in page.get_attribute("#board", "class").split()
    assert "slide" in page.get_attribute(f'[data-pt="{b}"] .ring', "class").split()
    assert page.evaluate("id => getComputedStyle(document.querySelector(`[data-pt='${id}'] .ring`)).animationName", b) == "rg-slide"
    # a redraw without a new move (a click on the board) does not play it again
    page.locator(".pt.target").first.click()
    assert "animate" not in page.get_attribute("#board", "class").split()
    # switched off (and remembered): no animation
    page.uncheck("#anim")
    page.reload()
    page.wait_for_function("() => S && MINE.length === 1")
    assert not page.is_checked("#anim")
    st = yinsh_until_a_computer_ring_move(page)
    assert "animate" not in page.get_attribute("#board", "class").split()
    assert page.evaluate(RUNNING) == 0
    assert page.errors == []


def test_reduced_motion_means_no_animation(server, page_factory):
    page = page_factory(reduced_motion="reduce")
    new_game(page, server, {"game": "rings", "players": 2, "seats": [{"kind": "me", "name": "Ann"}, {"kind": "computer", "level": 0}]})
    assert not page.is_checked("#anim")
    page.wait_for_selector(".pt.target")
    play_and_wait_for_the_computer(page, "K12")
    assert "animate" not in page.get_attribute("#board", "class").split()
    assert page.evaluate(RUNNING) == 0
    page.check("#anim")  # asked for explicitly: the page's style still plays nothing under reduced motion
    play_and_wait_for_the_computer(page, next(a for a in game_state(page)["legal"] if re.fullmatch(r"[A-X]\d+", a)))
    assert "animate" in page.get_attribute("#board", "class").split()
    assert page.evaluate("() => getComputedStyle(document.querySelector('#board .last')).animationName") == "none"
    assert page.evaluate(RUNNING) == 0
    assert page.errors == []


def test_sounds_are_off_by_default_and_remembered(server, page_factory):
    page = page_factory()
    new_game(page, server, {"game": "yinsh", "seats": [{"kind": "me", "name": "Ann"}, {"kind": "computer", "level": 0}]})
    assert not page.is_checked("#sound")
    page.wait_for_selector(".pt.target")
    play_and_wait_for_the_computer(page, "e5")
    assert page.evaluate("() => document.body.dataset.sounds || ''") == ""
    page.check("#sound")
    page.reload()
    page.wait_for_function("() => S && MINE.length === 1")
    assert page.is_checked("#sound")
    st = play_and_wait_for_the_computer(page, next(a for a in game_state(page)["legal"] if a != "e5"))
    page.wait_for_function("() => (document.body.dataset.sounds || '').split(' ').includes('turn')")
    assert "move" in page.evaluate("() => document.body.dataset.sounds").split()
    assert st["to_move"] == 0
    assert page.errors == []


def test_gyges_goal_move_drawn_step_by_step_in_a_replay(server, page_factory, tmp_path):
    s = ringgames.load_game("gyges").new_initial_state()
    rng = random.Random(2)
    while not s.is_terminal():
        s.apply_action(rng.choice(s.legal_actions()))
    assert s.outcome().reason == "goal"
    text = Record.from_state(s, {"South": "Ann", "North": "Bob"}).dumps()
    r = httpx.post(f"{server.url}/api/import", files=[("files", ("goal.rgn", text.encode(), "text/plain"))], timeout=60).json()
    page = page_factory()
    page.goto(f"{server.url}/game/{r['results'][0]['id']}?replay")
    page.wait_for_selector("#replaybar", state="visible")
    page.click("#r-last")
    last = list(s.history_entries())[-1].text
    assert last.endswith("-G")
    got = marks(page)
    assert got["to"] == ["G"] and got["from"] == [last.split("-")[0]]
    points = [tuple(map(float, p.split(","))) for p in page.get_attribute("#board .lm-path", "points").split()]
    for (x0, y0), (x1, y1) in zip(points, points[1:], strict=False):
        assert (x0 == x1) != (y0 == y1), (last, points)
    page.locator("#board").screenshot(path=str(tmp_path / "gyges-goal-replay.png"))
    assert page.errors == []
