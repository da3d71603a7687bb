"""Accounts in the browser: sign up on /login, the header's account links, a rated game against the computer,
the player page (ratings, the drawn rating history, games), log out, and a login error in Czech."""

import time

from .conftest import SHOTS, open_create_form

PASSWORD = "ring-Stones-42"


def test_sign_up_play_rated_see_the_player_page_and_log_out(server, page_factory):
    page = page_factory()
    page.goto(server.url + "/login?lang=en")
    page.fill("#signup-name", "Browsy")
    page.fill("#signup-password", PASSWORD)
    page.click("#signup-btn")
    page.wait_for_url(server.url + "/")
    assert page.locator("#me").inner_text() == "Browsy"
    assert not page.locator("#rated").is_visible()  # folded under "more options" on the lobby
    page.click("#create summary")
    assert page.locator("#rated").is_visible()  # the lobby offers rated games to logged-in players
    assert page.locator("#my-turn-count").inner_text() == "0"

    # a rated game against computer level 1, through the page's own session cookie: one move each, then resign
    result = page.evaluate("""async () => {
        const post = (url, body) => fetch(url, {method: "POST", credentials: "same-origin",
            headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)}).then((r) => r.json());
        const g = await post("/api/games", {game: "yinsh", rated: true, seats: [{kind: "me"}, {kind: "computer", level: 1}]});
        await post(`/api/games/${g.id}/actions`, {action: "e5", ply: 0});
        for (let i = 0; i < 200; i++) {
            const s = await fetch(`/api/games/${g.id}`).then((r) => r.json());
            if (s.ply >= 2) break;
            await new Promise((ok) => setTimeout(ok, 100));
        }
        const end = await post(`/api/games/${g.id}/resign`, {});
        const me = await fetch("/api/me").then((r) => r.json());
        return {id: g.id, status: end.status, rating: me.ratings.yinsh.rating};
    }""")
    assert result["status"] == "finished" and result["rating"] < 1500

    page.click("#me")
    page.wait_for_url(server.url + "/player/Browsy")
    page.wait_for_selector("#rating-chart polyline[data-key=yinsh]")
    row = page.locator("#ratings tr[data-key=yinsh] td.rating").inner_text()
    assert row == f"{round(result['rating'])}?"  # provisional after one game
    assert page.locator(f"#player-games a[href='/game/{result['id']}']").count() == 1
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "player-page.png"), full_page=True)

    page.click("#leaderboards-link")
    page.wait_for_selector("#board tr[data-player=Browsy]")
    assert page.locator("#board tr[data-player=Browsy] td.rating").inner_text() == f"{round(result['rating'])}?"
    assert page.locator("#computers td.rating").all_inner_texts() == ["600", "689", "1070", "1854", "2039", "2253"]
    page.screenshot(path=str(SHOTS / "leaderboard-page.png"), full_page=True)

    page.click("#my-games")
    page.wait_for_selector(f"#my-finished tr[data-id='{result['id']}']")
    assert page.locator("#my-turn td").inner_text() == "None."

    page.click("#logout")
    page.wait_for_selector("#login-link")
    assert page.locator("#me").count() == 0


def test_a_wrong_password_is_explained_in_the_page_language(server, page_factory):
    page = page_factory()
    page.goto(server.url + "/login?lang=cs")
    page.fill("#login-name", "nikdo")
    page.fill("#login-password", "spatne-heslo-1")
    page.click("#login-btn")
    page.wait_for_function("() => document.getElementById('login-err').textContent.length > 0")
    assert page.locator("#login-err").inner_text() == "Špatné uživatelské jméno nebo heslo."
    assert page.locator("#login-link").inner_text() == "Přihlásit / registrovat"


def test_the_tab_title_and_icon_say_when_it_is_my_move(server, page_factory):
    ann, bob = page_factory(), page_factory()
    ann.goto(server.url + "/?lang=en")
    made = ann.evaluate("""async () => {
        const r = await fetch("/api/games", {method: "POST", credentials: "same-origin", headers: {"Content-Type": "application/json"},
            body: JSON.stringify({game: "yinsh", seats: [{kind: "me", name: "Ann"}, {kind: "invite"}]})});
        return r.json();
    }""")
    gid, invite = made["id"], made["invites"]["1"]
    ann.goto(f"{server.url}/game/{gid}?lang=en")
    bob.goto(invite.replace("#", "?lang=en#"))
    ann.wait_for_function("() => document.title.startsWith('● Your move')")
    bob.wait_for_function("() => document.title === 'YINSH — ringgames'")
    assert ann.locator("#favicon").get_attribute("href").startswith("data:image/svg+xml")
    assert bob.locator("#favicon").get_attribute("href") == "data:,"
    bob.check("#turn-sound")  # remembered; the tone and the alert count come when the move comes to bob
    assert bob.evaluate("() => [localStorage.getItem('rg_turn_sound'), window.turnAlerts]") == ["1", 0]
    ann.evaluate(f"""() => fetch("/api/games/{gid}/actions", {{method: "POST", credentials: "same-origin",
        headers: {{"Content-Type": "application/json"}}, body: JSON.stringify({{action: "e5", ply: 0}})}})""")
    bob.wait_for_function("() => document.title.startsWith('● Your move')")
    ann.wait_for_function("() => document.title === 'YINSH — ringgames'")
    assert ann.locator("#favicon").get_attribute("href") == "data:,"
    assert bob.evaluate("() => window.turnAlerts") == 1 and ann.evaluate("() => window.turnAlerts") == 0


def sign_up_in(page, server, name):
    page.goto(server.url + "/archive?lang=en")  # not the lobby: opening it below must load it anew, logged in
    status = page.evaluate(f"""async () => (await fetch("/api/account", {{method: "POST", credentials: "same-origin",
        headers: {{"Content-Type": "application/json"}}, body: JSON.stringify({{username: "{name}", password: "{PASSWORD}"}})}})).status""")
    assert status == 201
    open_create_form(page, server.url + "/?lang=en")  # the seek takes the form's game and "rated"


MOVE_IF_MINE = """async ([gid, action]) => {
    const s = await fetch(`/api/games/${gid}`).then((r) => r.json());
    if (!s.my_seats.includes(s.to_move)) return false;
    const r = await fetch(`/api/games/${gid}/actions`, {method: "POST", credentials: "same-origin",
        headers: {"Content-Type": "application/json"}, body: JSON.stringify({action, ply: s.ply})});
    return r.status === 200;
}"""


def test_two_accounts_meet_through_a_seek_and_play_a_rated_game(server, page_factory):
    ann, ben = page_factory(), page_factory()
    sign_up_in(ann, server, "SeekAnn")
    sign_up_in(ben, server, "SeekBen")
    ann.check("#rated")
    ann.click("#post-seek")
    ann.wait_for_selector("#my-seek:not([hidden])")
    ben.wait_for_selector("#seeks tr[data-seek] button.accept")
    assert "SeekAnn (1500?)" in ben.locator("#seeks tr[data-seek]").first.inner_text()
    ben.click("#seeks tr[data-seek] button.accept")
    ben.wait_for_url("**/game/*")
    ann.wait_for_url("**/game/*", timeout=30000)  # the owner's lobby opens the game when it starts (pushed)
    gid = ben.url.split("/game/")[1].split("?")[0]
    assert ann.url.split("/game/")[1].split("?")[0] == gid
    # in the lobby, the player to move sees "(1)" in the title and a count of 1 in the header; the other 0
    for page in (ann, ben):
        page.goto(server.url + "/?lang=en")
    ann.wait_for_function("() => document.getElementById('my-turn-count').textContent !== ''")
    to_move = ann.evaluate(f"() => fetch('/api/games/{gid}').then((r) => r.json()).then((s) => s.seats[s.to_move].name)")
    first, second = (ann, ben) if to_move == "SeekAnn" else (ben, ann)
    first.wait_for_function("() => document.title.startsWith('(1) ') && document.getElementById('my-turn-count').textContent === '1'", timeout=30000)
    second.wait_for_function("() => !document.title.startsWith('(') && document.getElementById('my-turn-count').textContent === '0'", timeout=30000)
    # one move each, then SeekAnn resigns: a rated result; the counts follow the moves without a reload
    assert first.evaluate(MOVE_IF_MINE, [gid, "e5"])
    second.wait_for_function("() => document.title.startsWith('(1) ') && document.getElementById('my-turn-count').textContent === '1'", timeout=30000)
    first.wait_for_function("() => document.getElementById('my-turn-count').textContent === '0'", timeout=30000)
    assert second.evaluate(MOVE_IF_MINE, [gid, "f6"])
    ann.evaluate(f"""() => fetch("/api/games/{gid}/resign", {{method: "POST", credentials: "same-origin",
        headers: {{"Content-Type": "application/json"}}, body: "{{}}"}})""")
    for page, name, better in ((ann, "SeekAnn", False), (ben, "SeekBen", True)):
        page.goto(f"{server.url}/player/{name}?lang=en")
        page.wait_for_selector("#rating-chart polyline[data-key=yinsh]")
        rating = int(page.locator("#ratings tr[data-key=yinsh] td.rating").inner_text().rstrip("?"))
        assert (rating > 1500) is better, (name, rating)
        assert page.locator(f"#player-games a[href='/game/{gid}']").count() == 1
        outcome = page.locator(f"#player-games tr[data-id='{gid}'] td.outcome").inner_text()
        assert outcome == ("won" if better else "lost")
        page.select_option("#f-result", "draw")  # the filters: no draws; then the opponent's name finds the game
        page.wait_for_function("() => !document.querySelector('#player-games tr[data-id]')")
        page.select_option("#f-result", "")
        page.fill("#f-opponent", "seekben" if name == "SeekAnn" else "seekann")
        page.wait_for_selector(f"#player-games tr[data-id='{gid}']")
        assert page.locator("#p-page").inner_text() == "page 1 of 1"


def test_several_seeks_in_the_lobby_each_withdrawn_or_accepted(server, page_factory):
    ann, ben = page_factory(), page_factory()
    sign_up_in(ann, server, "MultiAnn")
    sign_up_in(ben, server, "MultiBen")
    ann.select_option("#game", "yinsh")
    ann.click("#post-seek")
    ann.wait_for_selector("#my-seek:not([hidden])")
    ann.select_option("#game", "gyges")
    ann.click("#post-seek")
    mine = ann.locator("#seeks tr[data-seek]", has_text="MultiAnn")
    ann.wait_for_function("() => [...document.querySelectorAll('#seeks tr[data-seek]')].filter(r => r.textContent.includes('MultiAnn')).length === 2")
    assert mine.locator("button.withdraw").count() == 2 and mine.locator("button.accept").count() == 0
    theirs = ben.locator("#seeks tr[data-seek]", has_text="MultiAnn")
    ben.wait_for_function("() => [...document.querySelectorAll('#seeks tr[data-seek]')].filter(r => r.textContent.includes('MultiAnn')).length === 2")
    assert theirs.locator("button.accept").count() == 2
    # Ann withdraws her YINSH seek: the Gygès one stays, for both
    mine.filter(has_text="YINSH").locator("button.withdraw").click()
    for page in (ann, ben):
        page.wait_for_function("() => [...document.querySelectorAll('#seeks tr[data-seek]')].filter(r => r.textContent.includes('MultiAnn')).length === 1")
    assert "Gyg" in theirs.inner_text()
    assert ann.locator("#my-seek").is_visible()
    theirs.locator("button.accept").click()
    ben.wait_for_url("**/game/*")
    ann.wait_for_url("**/game/*", timeout=30000)  # Ann's lobby opens the game of the seek that started
    assert ann.url.split("/game/")[1] == ben.url.split("/game/")[1]
    assert ann.wait_for_function("() => typeof S !== 'undefined' && S && S.game").json_value() == "gyges"  # once the game page has its state


def test_a_seek_is_pushed_to_another_lobby_and_its_owner_is_sent_to_the_game(server, page_factory):
    """Issue 28: the lobby's WebSocket brings a seek made in another browser without a reload, well within the old
    poll interval (3 s), and opens the game for the seek's owner as soon as it is accepted; nothing polls."""
    ann, ben = page_factory(), page_factory()
    sign_up_in(ann, server, "PushAnn")
    sign_up_in(ben, server, "PushBen")
    polls: list[str] = []
    for page in (ann, ben):
        page.on("request", lambda r: polls.append(r.url) if r.method == "GET" and r.url.endswith("/api/seeks") else None)
        page.wait_for_function("() => window.lobbyMessages >= 1")  # the socket is open and its list shown
    ann.select_option("#game", "gyges")
    t0 = time.perf_counter()
    ann.click("#post-seek")
    accept = ben.locator("#seeks tr[data-seek]", has_text="PushAnn").locator("button.accept")
    accept.wait_for(timeout=2500)
    shown = time.perf_counter() - t0
    print(f"a seek posted in one browser shown in another's lobby after {shown * 1000:.0f} ms")
    assert shown < 2.5
    opened: list[str] = []  # the acceptor's page loads of the game: its accept's answer and the lobby's "accepted" both
    ben.on("request", lambda r: opened.append(r.url) if r.is_navigation_request() and "/game/" in r.url else None)
    accept.click()
    ben.wait_for_url("**/game/*")
    t0 = time.perf_counter()
    ann.wait_for_url("**/game/*", timeout=2500)  # the "accepted" message, not a poll
    print(f"the owner's lobby opened the game {(time.perf_counter() - t0) * 1000:.0f} ms after the acceptor's")
    assert ann.url.split("/game/")[1] == ben.url.split("/game/")[1]
    assert not polls, polls
    ben.wait_for_function("() => typeof S !== 'undefined' && S && S.game")
    assert opened == [ben.url], opened  # one navigation (a second one aborted the first: net::ERR_ABORTED)


#: a stand-in for the browser's notifications (headless Chromium shows none) and a page that can be "hidden"
NOTIFICATIONS = """
window.__notes = [];
window.__hidden = false;
window.Notification = class {
  constructor(title, options) { window.__notes.push({title, body: options && options.body, tag: options && options.tag}); }
  static get permission() { return "granted"; }
  static requestPermission() { return Promise.resolve("granted"); }
};
Object.defineProperty(document, "hidden", {configurable: true, get: () => window.__hidden});
Object.defineProperty(document, "visibilityState", {configurable: true, get: () => window.__hidden ? "hidden" : "visible"});
window.__hide = (hidden) => { window.__hidden = hidden; document.dispatchEvent(new Event("visibilitychange")); };
"""


def test_a_background_tab_gets_a_notification_when_it_becomes_my_move(server, page_factory):
    ann, bob = page_factory(), page_factory()
    bob.context.add_init_script(NOTIFICATIONS)
    sign_up_in(ann, server, "NoteAnn")
    sign_up_in(bob, server, "NoteBob")
    made = ann.evaluate("""async () => {
        const r = await fetch("/api/games", {method: "POST", credentials: "same-origin", headers: {"Content-Type": "application/json"},
            body: JSON.stringify({game: "yinsh", seats: [{kind: "me"}, {kind: "invite"}]})});
        return r.json();
    }""")
    gid, invite = made["id"], made["invites"]["1"]
    bob.goto(invite.replace("#", "?lang=en#"))
    bob.wait_for_function("() => S && MINE.length === 1 && MINE[0] === 1 && S.status === 'live'")
    assert bob.evaluate("() => Notification.permission") == "granted" and bob.locator("#turn-notify").is_hidden()
    ann.goto(f"{server.url}/game/{gid}?lang=en")
    ann.wait_for_function("() => S && MINE.length === 1")
    move = lambda page, action, ply: page.evaluate(MOVE_IF_MINE, [gid, action])  # noqa: E731
    # the tab in front: the move comes to Bob, with no notification (the title and icon say it)
    assert move(ann, "e5", 0) is True
    bob.wait_for_function("() => document.title.startsWith('● Your move') && window.turnAlerts === 1")
    assert bob.evaluate("() => window.__notes") == []
    assert bob.locator("#favicon").get_attribute("href").startswith("data:image/svg+xml")
    assert move(bob, "f6", 1) is True
    bob.wait_for_function("() => document.title === 'YINSH — ringgames'")
    assert bob.locator("#favicon").get_attribute("href") == "data:,"
    # Bob's tab goes to the background: the next move comes with a notification, once
    bob.evaluate("() => window.__hide(true)")
    assert bob.evaluate("() => [document.hidden, document.visibilityState]") == [True, "hidden"]
    ann.wait_for_function("() => S.ply === 2")
    assert move(ann, "d4", 2) is True
    bob.wait_for_function("() => window.__notes.length === 1")
    note = bob.evaluate("() => window.__notes[0]")
    assert note == {"title": "● Your move — YINSH — ringgames", "body": "NoteAnn played d4", "tag": f"rg-turn-{gid}"}
    assert bob.title().startswith("● Your move") and bob.evaluate("() => window.turnAlerts") == 2
    bob.wait_for_timeout(500)
    assert bob.evaluate("() => window.__notes.length") == 1  # once per turn change, not per message
    # Bob's other pages count the games awaiting his move: "(1)" in the lobby's title
    lobby = bob.context.new_page()
    lobby.goto(server.url + "/?lang=en")
    lobby.wait_for_function("() => document.title.startsWith('(1) ')")
    assert lobby.locator("#my-turn-count").inner_text() == "1"


def test_the_seeks_stay_inside_their_card_on_a_phone_in_russian(server, page_factory):
    """A seek with a rating range and a translated Accept button used to push the page 100 px wider than a phone."""
    ann, ben = page_factory(), page_factory(width=390, height=844)
    sign_up_in(ann, server, "WideAnnWithALongName")
    ann.fill("#seek-min", "1200")
    ann.fill("#seek-max", "1800")
    ann.click("#post-seek")
    sign_up_in(ben, server, "WideBen")
    ben.goto(server.url + "/?lang=ru")
    accept = ben.locator("#seeks tr[data-seek]", has_text="WideAnnWithALongName").locator("button.accept")
    accept.wait_for()
    card = ben.locator("#seeks-card").bounding_box()
    button = accept.bounding_box()
    assert button["x"] + button["width"] <= card["x"] + card["width"] + 0.5, (button, card)
    assert ben.evaluate("document.documentElement.scrollWidth") <= 390
    ben.locator("#seeks-card").screenshot(path=str(SHOTS / "seeks-ru-390.png"))
