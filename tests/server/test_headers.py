"""Security headers on every HTTP response: pages, API, static files, errors, /docs."""

import pytest

from ringgames.server.headers import CSP

WANT = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "x-frame-options": "DENY",
}


def directives(csp):
    out = {}
    for part in csp.split(";"):
        name, *vals = part.split()
        out[name] = vals
    return out


def test_the_policy():
    d = directives(CSP)
    assert d["default-src"] == ["'self'"] and d["script-src"] == ["'self'"] and d["style-src"] == ["'self'"]
    assert d["frame-ancestors"] == ["'none'"] and d["object-src"] == ["'none'"] and d["base-uri"] == ["'none'"]
    assert not any("unsafe" in v for vals in d.values() for v in vals)


@pytest.mark.parametrize(("method", "path", "status"), [
    ("GET", "/", 200), ("GET", "/?lang=ru", 200), ("GET", "/game/nothing", 404), ("GET", "/archive", 200),
    ("GET", "/rules/yinsh", 200), ("GET", "/rules/nope", 404), ("GET", "/docs", 200), ("GET", "/openapi.json", 200),
    ("GET", "/static/style.css", 200), ("GET", "/static/game.js", 200), ("GET", "/static/missing.js", 404),
    ("GET", "/static-docs/swagger-ui.css", 200), ("GET", "/api/meta", 200), ("GET", "/api/games/nothing", 404),
    ("POST", "/api/games", 400), ("GET", "/healthz", 200), ("GET", "/no/such/page", 404), ("DELETE", "/", 405),
])
def test_every_response_has_the_headers(client, method, path, status):
    r = client.request(method, path, json={"game": "nope"} if method == "POST" else None)
    assert r.status_code == status, (path, r.status_code)
    assert r.headers["content-security-policy"] == CSP
    for k, v in WANT.items():
        assert r.headers[k] == v, (path, k)


def test_pages_have_no_inline_script_or_style(client):
    import re

    for path in ("/", "/game/x", "/archive", "/rules/yinsh", "/rules/gyges", "/rules/rings", "/docs"):
        html = client.get(path).text
        scripts = re.findall(r"<script([^>]*)>(.*?)</script>", html, re.DOTALL)
        for attrs, body in scripts:
            assert "src=" in attrs or 'type="application/json"' in attrs, (path, attrs, body[:80])
            if "src=" in attrs:
                assert not body.strip()
        assert not re.search(r"\son[a-z]+\s*=", html), path  # no inline event handlers
        assert not re.search(r"\sstyle\s*=", html), path  # no style attributes
        assert "<style" not in html, path
