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
