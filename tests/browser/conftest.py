"""Browser tests: real headless Chromium (Debian's /usr/bin/chromium) through Playwright.

On CI (env CI set) a missing browser is an error; elsewhere the tests are skipped with the reason.
Screenshots go to ``test-artifacts/screenshots/``.
"""

import os
import shutil
from pathlib import Path

import pytest

from ringgames.server.testing import ServerProcess

from ..server.conftest import boardspace_files  # noqa: F401  (fixture)

REPO = Path(__file__).resolve().parents[2]
SHOTS = REPO / "test-artifacts" / "screenshots"
CHROMIUM = os.environ.get("RINGGAMES_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"


def _unavailable(reason):
    if os.environ.get("CI"):
        pytest.fail(f"browser tests cannot run on CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:  # pragma: no cover
        _unavailable(f"playwright is not installed ({exc})")
    if not Path(CHROMIUM).exists():
        _unavailable(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    pw = sync_playwright().start()
    b = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
    yield b
    b.close()
    pw.stop()


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    d = tmp_path_factory.mktemp("browser-server")
    srv = ServerProcess(f"sqlite:///{d / 'b.sqlite3'}", ai_delay=0.05, ai_workers=1, log=d / "server.log",
                        extra_args=["--limit", "games_rate=1000/minute", "--limit", "chat_rate=1000/minute"]).start()  # one client, many tests
    yield srv
    srv.stop()


@pytest.fixture()
def page_factory(browser):
    contexts = []

    def make(width=900, height=1100, **kw):
        ctx = browser.new_context(viewport={"width": width, "height": height}, **kw)
        contexts.append(ctx)
        page = ctx.new_page()
        page.errors = []
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        page.set_default_timeout(15000)
        return page

    yield make
    for c in contexts:
        c.close()


def shot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#board").screenshot(path=str(SHOTS / f"{name}-board.png"))
    page.screenshot(path=str(SHOTS / f"{name}-page.png"), full_page=True)


def game_state(page):
    return page.evaluate("S")


def wait_ply(page, ply):
    page.wait_for_function(f"S && S.ply > {ply}")
