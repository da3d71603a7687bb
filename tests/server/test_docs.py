"""/docs (Swagger UI) works offline: every script, style and icon it references is served here."""

import re

from ringgames.server.app import swagger_ui_dir


def test_docs_page_uses_only_local_assets(client):
    r = client.get("/docs")
    assert r.status_code == 200
    page = r.text
    # Swagger UI is started by our own script (no inline script: the CSP forbids it)
    assert "<script>" not in page and "SwaggerUIBundle(" in client.get("/static/docs.js").text
    urls = re.findall(r'(?:src|href)\s*=\s*["\']([^"\']+)["\']', page)
    urls += re.findall(r'data-openapi-url\s*=\s*["\']([^"\']+)["\']', page)  # the OpenAPI document
    assert urls, page
    for u in urls:
        assert u.startswith("/") and not u.startswith("//"), f"/docs references a non-local URL: {u}"
    assert not re.search(r"https?://", page), "the /docs page must not name any remote host"
    for u in urls:
        got = client.get(u)
        assert got.status_code == 200, f"{u}: {got.status_code}"
    js = [u for u in urls if u.endswith("swagger-ui-bundle.js")]
    assert js and all(len(client.get(u).content) > 100_000 for u in js)  # the real bundle, not a placeholder
    assert client.get("/openapi.json").json()["info"]["title"] == "ringgames"


def test_redoc_is_off_rather_than_broken(client):
    assert client.get("/redoc").status_code == 404


def test_assets_come_from_the_swagger_ui_py_package():
    d = swagger_ui_dir()
    assert (d / "swagger-ui-bundle.js").is_file() and (d / "swagger-ui.css").is_file()
    # Swagger UI 5, which knows OpenAPI 3.1 (4.x cannot render the document FastAPI writes)
    assert "isOAS31" in (d / "swagger-ui-bundle.js").read_text(errors="replace")


# -- the prose docs say what the server does ---------------------------------------------------------------------

def _doc(name: str) -> str:
    from .conftest import REPO

    return (REPO / "docs" / name).read_text()


def test_security_doc_matches_the_server(client):
    sec = _doc("security.md")
    # a refused handshake is an HTTP 403 (closing before accept), not a close frame
    assert "handshake is closed with code 1008" not in sec and "refused handshake gets HTTP **403**" in sec
    # an action over 100 characters: the request model refuses it (400 bad_request)
    r = client.post("/api/games", json={"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "me"}]})
    r = client.post(f"/api/games/{r.json()['id']}/actions", json={"action": "x" * 101, "ply": 0})
    assert r.status_code == 400 and r.json()["error"] == "bad_request"
    assert "(422 `illegal_action`) before the notation parser" not in sec and "(400 `bad_request`) before the notation parser" in sec
    assert "default 127.0.0.1" not in sec and "`--forwarded-allow-ips`, default: none" in sec
    assert "slowloris" in sec.lower() and "timeout_keep_alive" in sec


def test_websocket_protocol_is_documented():
    from ringgames.server import live

    from .conftest import REPO

    ws = _doc("websocket.md")
    assert "docs/websocket.md" in (REPO / "README.md").read_text()
    assert "/ws/games/{id}" in ws
    client_types = [m.model_fields["type"].annotation.__args__[0]
                    for m in (live.ActionMessage, live.ResignMessage, live.DrawMessage, live.ChatMessage, live.SyncMessage)]
    assert client_types == ["action", "resign", "draw", "chat", "sync"]
    for t in [*client_types, "hello", "state", "error"]:
        assert f'"type": "{t}"' in ws, t
    for word in ("bad_json", "bad_message", "bad_request", "too_large", "rate_limited", "stale_ply", "not_your_turn",
                 "1008", "1009", "4404", "403", "429", "ws_message_bytes", "ws_rate", "ws_strikes", "ws_connect_rate",
                 "chat_rate", "X-Seat-Token", "my_seats", "id"):
        assert word in ws, word


def test_serve_sets_a_keep_alive_timeout(tmp_path, monkeypatch):
    import uvicorn
    from click.testing import CliRunner

    from ringgames.cli import main
    from ringgames.server.testing import free_port

    got = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: got.update(kw))
    r = CliRunner().invoke(main, ["serve", "--port", str(free_port()), "--db", f"sqlite:///{tmp_path / 'k.sqlite3'}"])
    assert r.exit_code == 0, r.output
    assert got["timeout_keep_alive"] == 5
