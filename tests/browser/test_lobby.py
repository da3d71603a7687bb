"""The lobby as the front door, in headless Chromium: a card per game with its board drawn, the computer in one
click, a friend through an invite link, the TV game that moves, the full form under "more options", and a phone's
width (cards stacked, tap targets of 44 px and more)."""

import re

from ringgames.server import i18n

from .conftest import SHOTS, game_state

MSG = i18n.messages("en")
#: what each card's board draws at the start: YINSH's 85 points, Gygès's 36 squares and 2 goals, RINGS's 216 points
#: and 91 circles; no piece yet
POINTS = {"yinsh": 85, "gyges": 38, "rings": 216}

POST = """async ([url, body]) => {
    const r = await fetch(url, {method: "POST", credentials: "same-origin", headers: {"Content-Type": "application/json"},
                                body: JSON.stringify(body)});
    return [r.status, await r.json()];
}"""


def test_a_card_per_game_with_its_board_and_the_form_folded(server, page_factory):
    page = page_factory()
    page.goto(server.url + "/?lang=en")
    for game, n in POINTS.items():
        card = page.locator(f"#card-{game}")
        page.wait_for_selector(f"#mini-{game} [data-pt]")
        assert page.locator(f"#mini-{game} [data-pt]").count() == n
        assert card.locator(".about").inner_text() == MSG[f"lobby.about.{game}"]
        assert card.locator("a.rules-link").get_attribute("href") == f"/rules/{game}"
        assert card.locator("a.rules-link").inner_text() == MSG["lobby.how_to_play"]
        assert card.locator(".level-btn").count() == 5
        assert [b.inner_text() for b in card.locator(".level-btn").all()] == ["1", "2", "3", "4", "5"]
        assert card.locator(".friend-btn").inner_text() == MSG["lobby.play_friend"]
    assert page.locator("#mini-rings [data-circle]").count() == 91
    assert page.locator("#mini-gyges .square").count() == 36
    assert page.locator(".mini-board .ring, .mini-board .marker, .mini-board .gring, .mini-board .stone").count() == 0
    # the full form is folded under "more options"; /#create opens it
    assert not page.locator("#kind-1").is_visible()
    assert page.inner_text("#create summary") == MSG["lobby.more_options"]
    page.click("#create summary")
    assert page.locator("#kind-1").is_visible() and page.locator("#tc").is_visible()
    page.goto(server.url + "/?lang=en#create")
    page.wait_for_selector("#kind-1")
    assert page.evaluate("() => document.getElementById('more').open")


def test_play_the_computer_in_one_click(server, page_factory):
    page = page_factory()
    page.goto(server.url + "/?lang=en")
    page.click('#card-rings .level-btn[data-level="1"]')
    page.wait_for_url(re.compile(r"/game/\w+$"))
    page.wait_for_function("() => S && MINE.length === 1")
    st = game_state(page)
    assert st["game"] == "rings" and st["players"] == 2 and st["status"] == "live"
    assert [s["kind"] for s in st["seats"]] == ["human", "computer"]
    assert st["seats"][1]["level"] == 1 and page.evaluate("MINE") == [0]
    page.wait_for_selector("#board [data-pt].target")  # my move, on the game's board


def test_play_a_friend_through_the_invite_link(server, page_factory):
    ann = page_factory(permissions=["clipboard-read", "clipboard-write"])
    ann.goto(server.url + "/?lang=en")
    ann.evaluate("() => localStorage.setItem('rg_name', 'Ann')")
    ann.click("#card-gyges .friend-btn")
    ann.wait_for_selector("#card-gyges .invite-box:not([hidden])")
    link = ann.input_value("#card-gyges .invite-link")
    m = re.fullmatch(re.escape(server.url) + r"/game/(\w+)#seat=1&token=[\w-]+", link)
    assert m, link
    gid = m.group(1)
    assert ann.get_attribute("#card-gyges .go-game", "href") == f"/game/{gid}"
    ann.click("#card-gyges .copy-btn")
    ann.wait_for_selector("#card-gyges .copied:not([hidden])")
    assert ann.evaluate("() => navigator.clipboard.readText()") == link
    bob = page_factory()
    bob.goto(server.url + "/archive")
    bob.evaluate("() => localStorage.setItem('rg_name', 'Bob')")
    bob.goto(link)
    bob.wait_for_function("() => S && MINE.length === 1 && MINE[0] === 1")
    ann.click("#card-gyges .go-game")
    ann.wait_for_url(f"**/game/{gid}")
    ann.wait_for_function("() => S && S.status === 'live'")
    st = game_state(ann)
    assert st["game"] == "gyges" and [s["name"] for s in st["seats"]] == ["Ann", "Bob"] and ann.evaluate("MINE") == [0]


def test_the_tv_board_shows_a_live_game_and_follows_it(server, page_factory):
    page = page_factory()
    page.goto(server.url + "/archive?lang=en")
    status, g = page.evaluate(POST, ["/api/games", {"game": "yinsh", "seats": [{"kind": "me", "name": "Tia"}, {"kind": "me", "name": "Vic"}]}])
    assert status == 201
    gid = g["id"]
    assert page.evaluate(POST, [f"/api/games/{gid}/actions", {"action": "e5", "ply": 0}])[0] == 200
    page.goto(server.url + "/?lang=en")
    page.wait_for_function(f"() => document.getElementById('tv-board').dataset.game === '{gid}'")
    assert page.locator("#tv-none").is_hidden()
    assert page.get_attribute("#tv-link", "href") == f"/game/{gid}"
    assert page.get_attribute("#tv-board", "data-ply") == "1"
    assert page.locator('#tv-board [data-pt="e5"] .ring.white').count() == 1
    assert page.locator('#tv-board [data-last="placed"]').get_attribute("data-at") == "e5"
    assert page.locator("#tv-board [data-pt]").count() == 85
    assert "Tia – Vic" in page.inner_text("#tv-caption")
    rings = page.locator("#tv-board .ring").count()
    assert page.evaluate(POST, [f"/api/games/{gid}/actions", {"action": "f6", "ply": 1}])[0] == 200
    page.wait_for_function("() => document.getElementById('tv-board').dataset.ply === '2'", timeout=10000)
    assert page.locator("#tv-board .ring").count() == rings + 1
    assert page.locator('#tv-board [data-pt="f6"] .ring.black').count() == 1
    assert page.locator('#tv-board [data-last="placed"]').get_attribute("data-at") == "f6"
    page.click("#tv-link")
    page.wait_for_url(f"**/game/{gid}")
    page.evaluate(POST, [f"/api/games/{gid}/resign", {}])  # no longer live: the next tests' TV has other games


def test_phone_width_cards_stack_and_tap_targets(server, page_factory):
    page = page_factory(width=390, height=844, is_mobile=True, has_touch=True)
    page.goto(server.url + "/?lang=en")
    page.wait_for_selector("#mini-rings [data-pt]")
    boxes = [page.locator(f"#card-{g}").bounding_box() for g in POINTS]
    assert all(abs(b["x"] - boxes[0]["x"]) < 1 and b["width"] > 330 for b in boxes), boxes  # one above the other
    assert boxes[0]["y"] + boxes[0]["height"] <= boxes[1]["y"] and boxes[1]["y"] + boxes[1]["height"] <= boxes[2]["y"]
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 390
    small = page.evaluate("""() => [...document.querySelectorAll('.game-card button, .game-card a, #create summary')]
        .filter(e => e.offsetParent !== null)
        .map(e => [e.className || e.tagName, e.getBoundingClientRect().width, e.getBoundingClientRect().height])
        .filter(([, w, h]) => w < 44 || h < 44)""")
    assert small == [], small
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "phone-lobby.png"), full_page=True)
