"""Learn in the browser (issue 30): lessons completed by clicking on the board (the engine checks them), a wrong try
shows the hint and can be tried again, progress is remembered on the lessons page, and the rules pages draw their
diagrams with the game page's board code."""

from __future__ import annotations

import re

import pytest

from ringgames.server import learn

from .conftest import SHOTS


def click(page, *points):
    for p in points:
        page.locator(f'#board [data-pt="{p}"]').first.click()


def wait_state(page, state):
    page.wait_for_function(f"() => document.body.dataset.lesson === '{state}'")


def test_a_yinsh_lesson_completed_by_clicking(server, page_factory):
    page = page_factory()
    page.goto(f"{server.url}/learn/yinsh/3")
    page.wait_for_selector('#board [data-pt="g5"].target')
    click(page, "g5", "g7")          # the ring leaves a white marker on g5: the row c5-g5 is complete
    page.wait_for_selector('#board [data-pt="c5"].target')
    assert page.inner_text("#status") == "Go on: your turn is not over yet."
    click(page, "c5", "g5")          # remove the row: one end, then the other
    page.wait_for_selector('#board [data-pt="a2"].target')
    click(page, "a2")                # give up a ring
    wait_state(page, "done")
    assert page.locator("#done").is_visible() and "Solved!" in page.inner_text("#done")
    assert page.locator("#next").is_visible() and page.get_attribute("#next", "href") == "/learn/yinsh/4"
    # the board shows the engine's position after the turn: one white ring removed (drawn beside the board)
    assert page.locator('#board [data-removed="0"]').count() == 1
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "learn-yinsh-done.png"), full_page=True)
    # progress: the lessons page marks it done, and only it
    page.goto(f"{server.url}/learn")
    page.wait_for_selector('[data-done="yinsh/3"]:not([hidden])')
    assert page.locator(".learn-done:not([hidden])").count() == 1
    assert not page.errors


def test_a_gyges_lesson_completed_by_clicking_after_a_wrong_try(server, page_factory):
    page = page_factory()
    page.goto(f"{server.url}/learn/gyges/3?lang=en")
    page.wait_for_selector('#board [data-pt="c4"].target')
    assert page.locator("#hint").is_hidden()
    click(page, "c4", "c3")          # a legal move that does not reach the goal
    wait_state(page, "over")
    assert "Not quite" in page.inner_text("#status") and page.locator("#hint").is_visible()
    assert page.locator("#next").is_hidden()
    page.click("#retry")
    wait_state(page, "playing")
    click(page, "c4")
    page.locator('#board [data-pt="G"]').click()   # into North's goal
    wait_state(page, "done")
    assert "South wins" in page.inner_text("#done")
    assert page.get_attribute("#next", "href") == "/learn/gyges/4"
    assert not page.errors


@pytest.mark.parametrize("game", ["yinsh", "gyges", "rings"])
def test_rules_page_draws_its_diagrams(server, page_factory, game):
    page = page_factory()
    page.goto(f"{server.url}/rules/{game}")
    n = len(learn.DIAGRAMS[game])
    page.wait_for_function(f"() => document.querySelectorAll('figure.diagram[data-drawn]').length === {n}")
    for fig in page.locator("figure.diagram").all():
        # a whole board drawn by boards.js, with the turn marked
        assert fig.locator("svg [data-pt]").count() >= 36
        assert fig.locator("svg .last [data-last]").count() >= 1 or fig.get_attribute("data-turn") == ""
        box = fig.locator("svg").bounding_box()
        assert box and box["width"] > 150 and box["height"] > 150
    page.locator("figure.diagram").first.screenshot(path=str(SHOTS / f"diagram-{game}.png"))
    assert page.locator(f'a[href="/learn/{game}/1"]').count() == 1 and page.locator('header a[href="/learn"]').count() == 1
    assert not page.errors


@pytest.mark.parametrize(("path", "lang"), [("/learn", "ru"), ("/learn/gyges/2", "cs"), ("/learn/rings/4", "sr"),
                                            ("/rules/yinsh", "sr-Latn")])
def test_learn_pages_leave_no_english_in_other_languages(server, page_factory, path, lang):
    from .test_i18n import english_left

    page = page_factory()
    page.goto(f"{server.url}{path}?lang={lang}")
    page.wait_for_load_state("networkidle")
    if path.startswith("/learn/"):
        page.wait_for_selector("#board [data-pt].target")
        page.click("#show-hint")
    assert english_left(page, lang) == []
    assert not page.errors


def clicks_for(game, action):
    """The board clicks that play ``action``: a YINSH move or row by its two ends, a Gygès move by its start, its end
    and the drop square, a RINGS conversion on the circle."""
    if game == "rings":
        return [f'[data-circle="{action[1:]}"]'] if action.startswith("x") else [f'[data-pt="{action}"]']
    if game == "gyges":
        m = re.fullmatch(r"([a-f][1-6])(?:-[a-f][1-6])*-(G|[a-f][1-6])(?:\(([a-f][1-6])\))?", action)
        assert m, action
        return [f'[data-pt="{p}"]' for p in m.groups() if p]
    return [f'[data-pt="{p}"]' for p in action.lstrip("x").split("-")]


@pytest.mark.parametrize(("game", "n"), [(g, les.n) for g, ls in learn.LESSONS.items() for les in ls])
def test_every_lesson_can_be_solved_on_the_board(server, page_factory, game, n):
    les = learn.lesson(game, n)
    page = page_factory()
    page.goto(f"{server.url}/learn/{game}/{n}")
    page.wait_for_selector("#board .target")
    for i, action in enumerate(les.solution):
        for sel in clicks_for(game, action):
            if page.evaluate("() => LS.actions.length") > i:
                break  # one click was enough (a YINSH row with a single way to remove it)
            page.locator(f"#board {sel}").first.click()
        page.wait_for_function(f"() => LS.actions.length === {i + 1} && !LS.busy")
    wait_state(page, "done")
    assert page.evaluate("() => LS.turn") == list(les.solution)
    assert not page.errors
