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
