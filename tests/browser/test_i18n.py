"""The site in each language, in headless Chromium: the first turns of a game played by clicking with
every label in that language (no English word left on the lobby and the game page), plural forms on
the archive page, the language picker, screenshots of the lobby; and no CSP violation on any page
(the ``page_factory`` fixture fails a test that saw one)."""

import re

import httpx
import pytest

import ringgames
from ringgames.records import Record
from ringgames.server import i18n

from .conftest import SHOTS, csp_violations, game_state, open_create_form

WORD = re.compile(r"[^\W\d_]+")
#: words that are the same in every language: game names, the site's name, file formats, "API"
NAMES = {"yinsh", "gygès", "rings", "ringgames", "api", "rgn", "sgf"}
PLAYER = {"en": "Ann", "ru": "Маша", "sr": "Ана", "sr-Latn": "Ana", "cs": "Jana"}


def catalog_words(lang):
    """The words of a catalog's messages (rules paragraphs aside), lower-cased, placeholders and tags removed."""
    out = set()
    for key, text in i18n.messages(lang).items():
        if key.startswith("rules."):
            continue
        for f in text if isinstance(text, list) else [text]:
            f = re.sub(r"<[^>]+>|\{[a-z_]+\}", " ", f)
            out |= {w.lower() for w in WORD.findall(f) if len(w) >= 2}
    return out


def visible_text(page):
    """The page's rendered text, without the language picker (which names each language in its own)."""
    page.evaluate("() => { document.getElementById('lang-form').style.display = 'none'; }")
    text = page.inner_text("body")
    page.evaluate("() => { document.getElementById('lang-form').style.display = ''; }")
    # with the SVG board's labels (not its <title>s: point and circle names are notation)
    labels = page.evaluate("() => [...document.querySelectorAll('#board text')].map(e => e.textContent).join(' ')")
    return text + "\n" + labels


PLAYER_NAMES_JS = """async () => {
  const names = [];
  for (const st of ["open", "live"]) {
    const {games} = await (await fetch(`/api/games?status=${st}&limit=30`)).json();
    for (const g of games) for (const s of g.seats) if (s.kind === "human" && s.name !== "waiting…") names.push(s.name);
  }
  return names;
}"""


def english_left(page, lang):
    """The words on the page that are English catalog words and not words of ``lang``'s catalog.

    Names people gave themselves in other games (the lobby lists them; other tests use "me") are theirs,
    not the site's text: their words are allowed."""
    players = {w.lower() for name in page.evaluate(PLAYER_NAMES_JS) for w in WORD.findall(name)}
    forbidden = catalog_words("en") - catalog_words(lang) - NAMES - players
    words = {w.lower() for w in WORD.findall(visible_text(page)) if len(w) >= 2}
    return sorted(words & forbidden)


@pytest.mark.parametrize("lang", ["ru", "sr", "sr-Latn", "cs", "en"])
def test_first_turns_of_a_game_in_each_language(server, page_factory, lang):
    msg = i18n.messages(lang)
    page = page_factory()
    open_create_form(page, f"{server.url}/?lang={lang}")
    assert page.get_attribute("html", "lang") == lang
    page.fill("#myname", PLAYER[lang])
    page.select_option("#kind-1", "computer")
    page.fill("#level-1", "0")
    # labels come from the language's catalog
    assert page.inner_text("#create-btn") == msg["lobby.create"]
    assert page.inner_text("#create h2") == msg["lobby.new_game"]
    assert [o.inner_text() for o in page.locator("#kind-1 option").all()] == [msg[f"kind.{k}"] for k in ("me", "invite", "open", "computer")]
    assert page.locator("#seats td").first.inner_text() == msg["seat.white"]
    assert page.locator("header.top a").nth(1).inner_text() == msg["nav.lobby"]
    page.wait_for_selector("#open td")  # the game lists have loaded ("none" or games)
    if lang != "en":
        assert english_left(page, lang) == [], "English on the lobby"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"lobby-{lang}.png"), full_page=True)

    page.click("#create-btn")
    page.wait_for_url(re.compile(r"/game/\w+$"))
    assert page.get_attribute("html", "lang") == lang  # the cookie set by ?lang= carries the language
    page.wait_for_selector('[data-pt="e5"].target')
    for turn in range(3):  # three ring placements by clicking, the computer answering each
        st = game_state(page)
        assert st["to_move"] == 0
        status = page.inner_text("#turn")
        assert status == msg["game.to_act_mine"].format(name=PLAYER[lang], seat=msg["seat.white"], phase=msg["phase.yinsh.place"])
        target = page.locator(".pt.target").nth(7 * turn)
        target.click()
        page.wait_for_function(f"() => S.ply >= {st['ply'] + 2} && S.to_move === 0", timeout=30000)
    st = game_state(page)
    assert st["ply"] == 6 and len(st["moves"]) == 6
    moves = [li.inner_text() for li in page.locator("#moves li").all()]
    assert moves[0] == f"1. {st['moves'][0]['text']}" and moves[1] == f"2. {st['moves'][1]['text']}"  # notation in every language
    assert page.locator("#moves li .sw").first.get_attribute("title") == msg["seat.white"]
    assert page.inner_text("#resign") == msg["game.resign"] and page.inner_text("#replay") == msg["game.replay"]
    assert page.inner_text("#record") == msg["game.record"]
    seats = page.inner_text("#seats")
    assert msg["game.computer_level"].format(level=0) in seats and msg["game.you"] in seats
    if lang != "en":
        assert english_left(page, lang) == [], "English on the game page"
        # the check finds an English label when there is one
        page.evaluate("() => document.getElementById('result').append('Offer a draw')")
        assert english_left(page, lang) == ["draw", "offer"]
        page.evaluate("() => { document.getElementById('result').textContent = ''; }")
    page.screenshot(path=str(SHOTS / f"game-{lang}.png"), full_page=True)
    assert page.errors == []


def _import_yinsh(url, plies):
    """Imports a YINSH record of exactly ``plies`` plies; returns the game id."""
    s = ringgames.load_game("yinsh").new_initial_state()
    for _ in range(plies):
        s.apply_action(s.legal_actions()[0])
    text = Record.from_state(s, {"White": "Ann", "Black": "Bob"}).dumps()
    r = httpx.post(f"{url}/api/import", files=[("files", (f"p{plies}.rgn", text.encode(), "text/plain"))], timeout=30)
    res = r.json()["results"][0]
    assert r.status_code == 200 and (res["ok"] or res.get("duplicate")), r.text  # another language's test imported it already
    gid = r.json()["results"][0]["id"]
    assert httpx.get(f"{url}/api/games/{gid}").json()["ply"] == plies
    return gid


PLIES = {
    "ru": {1: "1 полуход", 2: "2 полухода", 5: "5 полуходов", 21: "21 полуход"},
    "cs": {1: "1 půltah", 2: "2 půltahy", 5: "5 půltahů", 21: "21 půltahů"},
    "sr": {1: "1 полупотез", 2: "2 полупотеза", 5: "5 полупотеза", 21: "21 полупотез"},
    "sr-Latn": {1: "1 polupotez", 2: "2 polupoteza", 5: "5 polupoteza", 21: "21 polupotez"},
    "en": {1: "1 ply", 2: "2 plies", 5: "5 plies", 21: "21 plies"},
}


def test_plural_forms_on_the_archive_page(server, page_factory):
    ids = {n: _import_yinsh(server.url, n) for n in (1, 2, 5, 21)}
    page = page_factory()
    for lang, want in PLIES.items():
        page.goto(f"{server.url}/archive?lang={lang}")
        for n, text in want.items():
            row = page.locator("#games tr", has=page.locator(f'a[data-game="{ids[n]}"]'))
            assert row.locator("td.plies").inner_text() == text, (lang, n)
    assert page.errors == []


def test_language_picker_switches_and_remembers(server, page_factory):
    page = page_factory()
    page.goto(f"{server.url}/rules/yinsh")
    assert page.get_attribute("html", "lang") == "en" and page.inner_text("h1") == "YINSH — how to play"
    page.select_option("#lang", "cs")
    page.wait_for_function("() => document.documentElement.lang === 'cs'")
    assert page.inner_text("h1") == "YINSH — jak se hraje"
    page.goto(f"{server.url}/rules/rings")  # no ?lang: the cookie remembers
    assert page.get_attribute("html", "lang") == "cs" and page.inner_text("h1") == "RINGS — jak se hraje"
    page.select_option("#lang", "sr-Latn")
    page.wait_for_function("() => document.documentElement.lang === 'sr-Latn'")
    assert page.inner_text("h1") == "RINGS — kako se igra"


def test_accept_language_of_the_browser(server, page_factory):
    page = page_factory(locale="ru-RU", extra_http_headers={"Accept-Language": "ru-RU,ru;q=0.9"})
    page.goto(f"{server.url}/archive")
    assert page.get_attribute("html", "lang") == "ru"
    assert page.inner_text("h2") == i18n.messages("ru")["archive.import"]


def test_error_messages_follow_the_language(server, page_factory):
    """An error the page shows comes from the catalog by its machine-readable code."""
    page = page_factory()
    page.goto(f"{server.url}/game/nosuchgame?lang=cs")  # no such game: a page of its own, in the language
    assert page.inner_text("h1") == i18n.messages("cs")["notfound.game_h"] and page.locator("#board").count() == 0
    gid = httpx.post(f"{server.url}/api/games", json={"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "computer", "level": 0}]}).json()["id"]
    page.goto(f"{server.url}/game/{gid}?lang=cs")
    page.wait_for_function("() => S !== null")
    page.evaluate("() => post('draw', {what: 'accept'})")  # a spectator may not accept a draw: 403 not_your_seat
    page.wait_for_function("() => document.getElementById('err').textContent !== ''")
    assert page.inner_text("#err") == i18n.messages("cs")["error.not_your_seat"]


@pytest.mark.parametrize("path", ["/", "/archive", "/analysis", "/rules/yinsh", "/rules/gyges", "/rules/rings", "/docs", "/game/{gid}"])
def test_no_csp_violation(server, page_factory, path):
    """Every page loads and runs under the Content-Security-Policy (the fixture also checks every other test)."""
    page = page_factory()
    if "{gid}" in path:
        gid = httpx.post(f"{server.url}/api/games", json={"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "computer", "level": 0}]}).json()["id"]
        path = path.format(gid=gid)
    page.goto(server.url + path + ("?lang=ru" if path != "/docs" else ""))
    if path == "/docs":
        page.wait_for_selector(".opblock-summary", timeout=20000)  # Swagger UI rendered the operations
        page.locator(".opblock-summary").first.click()
        page.wait_for_timeout(300)
    elif path.startswith("/game/"):
        page.wait_for_function("() => S && S.ply === 0")
    else:
        page.wait_for_load_state("networkidle")
    headers = page.evaluate("async () => { const r = await fetch(location.href); return r.headers.get('content-security-policy'); }")
    assert "default-src 'self'" in headers
    assert csp_violations(page) == []
    assert page.errors == []


@pytest.mark.parametrize(("game", "lang"), [("gyges", "sr-Latn"), ("gyges", "cs"), ("rings", "ru"), ("rings", "sr")])
def test_gyges_and_rings_pages_in_other_languages(server, page_factory, game, lang):
    """The Gygès setup buttons and the RINGS turn buttons are in the page's language too."""
    msg = i18n.messages(lang)
    seats = [{"kind": "me", "name": PLAYER[lang]}] + [{"kind": "computer", "level": 0}] * (2 if game == "rings" else 1)
    page = page_factory()
    page.goto(f"{server.url}/?lang={lang}")  # the cookie, and the seat cookie of the API call below
    body = {"game": game, "players": len(seats), "seats": seats, **({"setup": "preset"} if game == "gyges" else {})}
    gid = page.evaluate("async (b) => (await api('/api/games', {method: 'POST', json: b})).id", body)
    page.goto(f"{server.url}/game/{gid}")
    page.wait_for_function("() => S && MINE.length === 1")
    if game == "gyges":
        page.wait_for_selector('button[data-action="321123"]')
        assert msg["setup.arrangement"].strip() in page.inner_text("#specials")
        assert msg["gyges.goal_north"] in page.locator("#board").text_content()
        assert english_left(page, lang) == [], "English on the Gygès setup"
        page.click('button[data-action="321123"]')
        page.wait_for_function("() => S.ply >= 2 && S.to_move === 0", timeout=30000)
        page.wait_for_selector(".pt.target")
        assert msg["gyges.south_to_move"] in page.inner_text("#status")
    else:
        page.wait_for_selector(".pt.target")
        assert page.inner_text('button[data-action="pass"]') == msg["action.pass"]
        assert msg["phase.rings.place"] in page.inner_text("#turn")
        assert msg["game.heading_players"][1].format(title="RINGS", variant=msg["variant.standard"], n=3) == page.inner_text("#title")
        page.locator(".pt.target").first.click()
        page.wait_for_function("() => S.ply >= 1")
    assert english_left(page, lang) == [], f"English on the {game} page"
    page.screenshot(path=str(SHOTS / f"{game}-{lang}.png"), full_page=True)
    assert page.errors == []
