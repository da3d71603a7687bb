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
                        extra_args=["--limit", "games_rate=1000/minute", "--limit", "chat_rate=1000/minute",
                                    "--limit", "upload_rate=1000/minute", "--limit", "ws_connect_rate=10000/minute",
                                    "--limit", "analysis_rate=1000/minute",
                                    # a test clicks faster than a person: 30 messages in 10 s is 3 decisions a second
                                    "--limit", "ws_rate=1000/minute",
                                    "--limit", "lobby_sockets_per_client=1000"]).start()  # one client, many tests
    yield srv
    srv.stop()


#: registered before any page script: every Content-Security-Policy violation lands in window.__csp
CSP_WATCH = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => window.__csp.push(
  `${e.violatedDirective} blocked ${e.blockedURI || "inline"} at ${e.sourceFile}:${e.lineNumber}`));
"""


def watch_csp(page):
    """Collects CSP violations of ``page``: the console's "Refused to ..." lines and the DOM events."""
    page.csp = []
    page.on("console", lambda m: page.csp.append(m.text) if "Content Security Policy" in m.text else None)


def csp_violations(page):
    """Every CSP violation seen so far on ``page`` (console lines and the current document's events)."""
    from playwright.sync_api import Error as PlaywrightError

    try:
        events = page.evaluate("window.__csp || []")
    except PlaywrightError:  # the page is gone or navigating; the console lines still count
        events = []
    return list(page.csp) + list(events)


# Page waits use functions (``"() => S.ply > 3"``), never bare expressions: Playwright evaluates a bare
# expression with eval() inside the page, which the CSP forbids (and this fixture would report).


@pytest.fixture()
def page_factory(browser):
    """New pages (each in its own browser context); at the end, no page may have seen a CSP violation."""
    contexts, pages = [], []

    def make(width=900, height=1100, **kw):
        ctx = browser.new_context(viewport={"width": width, "height": height}, **kw)
        ctx.add_init_script(CSP_WATCH)
        contexts.append(ctx)
        page = ctx.new_page()
        page.errors = []
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        watch_csp(page)
        page.set_default_timeout(15000)
        pages.append(page)
        return page

    yield make
    violations = [v for p in pages for v in csp_violations(p)]
    for c in contexts:
        c.close()
    assert not violations, f"Content-Security-Policy violations: {violations[:5]}"


def open_create_form(page, url):
    """Opens the lobby at ``url`` (the site's root, with any query) with the full form unfolded ("more options",
    ``/#create``) and waits for its seat table."""
    page.goto(url.split("#")[0] + "#create")
    page.wait_for_selector("#kind-1")


def shot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#board").screenshot(path=str(SHOTS / f"{name}-board.png"))
    page.screenshot(path=str(SHOTS / f"{name}-page.png"), full_page=True)


def game_state(page):
    return page.evaluate("S")


#: how long a player's own move may take to come back from the server (the suite shares 2 cores with the browser)
PLY_TIMEOUT_MS = 30000


def wait_ply(page, ply):
    """Wait until the page's game is past ``ply``; on a timeout, say what the page shows (its state, its error line,
    its WebSocket) so that a failure on CI can be told from a slow machine."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(f"() => S && S.ply > {ply}", timeout=PLY_TIMEOUT_MS)
    except PlaywrightTimeout:
        seen = page.evaluate("""() => ({ply: S && S.ply, to_move: S && S.to_move, status: S && S.status,
            error: document.getElementById("err") && document.getElementById("err").textContent,
            socket: typeof ws === "undefined" || !ws ? null : ws.readyState,
            last: S && S.moves.slice(-4).map(m => m.text)})""")
        raise AssertionError(f"the game stayed at ply {ply} for {PLY_TIMEOUT_MS // 1000} s; the page: {seen}") from None
