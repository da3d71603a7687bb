"""The pages' own errors and lists: HTML 404 pages (the API keeps JSON errors), the page of a game that does not
exist, which games the lobby lists as open, and uploading the same record twice."""

import pytest

from .conftest import two_humans


@pytest.mark.parametrize("path", ["/no/such/page", "/gamez", "/rules/chess", "/archive/x"])
def test_unknown_page_is_an_html_404_in_the_page_language(client, path):
    r = client.get(path + "?lang=cs")
    assert r.status_code == 404
    assert r.headers["content-type"].startswith("text/html")
    assert '<html lang="cs">' in r.text and "Taková stránka neexistuje" in r.text
    assert "content-security-policy" in r.headers and "<script>" not in r.text
    assert r.text.count('id="board"') == 0


@pytest.mark.parametrize("path", ["/api/nothing", "/api/games/nothing", "/api/games/nothing/positions", "/static/missing.js"])
def test_api_and_file_paths_keep_json_errors(client, path):
    r = client.get(path)
    assert r.status_code == 404 and r.headers["content-type"].startswith("application/json")
    assert r.json()["error"] in ("not_found", "unknown_game")


def test_a_game_that_does_not_exist_is_a_no_such_game_page_without_controls(client):
    for gid in ("abcdef123456", "x" * 40, "bad%20id"):
        r = client.get(f"/game/{gid}")
        assert r.status_code == 404, gid
        assert "No such game" in r.text and 'data-what="game"' in r.text
        for control in ('id="board"', 'id="resign"', 'id="draw-offer"', 'id="chatform"', "game.js"):
            assert control not in r.text, control
    r = client.get("/game/abcdef123456?lang=ru")
    assert r.status_code == 404 and "Такой партии нет" in r.text


def test_an_existing_game_page_has_its_controls(client):
    gid, _, _ = two_humans(client)
    r = client.get(f"/game/{gid}")
    assert r.status_code == 200 and 'id="board"' in r.text and 'id="resign"' in r.text


def test_invite_only_games_are_not_listed_as_open(client):
    invite = client.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "invite"}]}).json()["id"]
    anyone = client.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "open"}]}).json()["id"]
    rings = client.post("/api/games", json={"game": "rings", "players": 3,
                                            "seats": [{"kind": "me"}, {"kind": "invite"}, {"kind": "open"}]}).json()["id"]
    listed = [g["id"] for g in client.get("/api/games", params={"status": "open"}).json()["games"]]
    assert anyone in listed and rings in listed and invite not in listed
    assert client.get(f"/api/games/{invite}").json()["status"] == "open"  # still waiting for the friend
    # many invite-only games do not crowd out an open one
    for _ in range(60):
        client.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "invite"}]})
    listed = [g["id"] for g in client.get("/api/games", params={"status": "open", "limit": 2}).json()["games"]]
    assert listed == [rings, anyone]


def test_the_same_record_uploaded_twice_is_reported_as_a_duplicate(client, boardspace_files):
    data = boardspace_files[0].read_bytes()
    first = client.post("/api/import", files=[("files", ("a.sgf", data, "text/plain"))]).json()
    assert first["imported"] == 1 and first["failed"] == 0
    gid = first["results"][0]["id"]
    again = client.post("/api/import", files=[("files", ("copy.sgf", data, "text/plain")),
                                              ("files", ("b.sgf", boardspace_files[1].read_bytes(), "text/plain"))]).json()
    assert again["imported"] == 1 and again["duplicates"] == 1 and again["failed"] == 0
    dup = again["results"][0]
    assert dup["duplicate"] is True and dup["ok"] is False and dup["id"] == gid and "already in the archive" in dup["error"]
    archived = [g for g in client.get("/api/games", params={"status": "finished", "limit": 500}).json()["games"]
                + client.get("/api/games", params={"status": "archived", "limit": 500}).json()["games"]]
    assert len(archived) == 2
    # the same file twice in one upload: one game
    twice = client.post("/api/import", files=[("files", ("c.sgf", boardspace_files[2].read_bytes(), "text/plain"))] * 2).json()
    assert twice["imported"] == 1 and twice["duplicates"] == 1
