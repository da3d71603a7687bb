"""The puzzles page: a YINSH puzzle solved by clicking its move, a wrong move answered with the solution played on
the board, the puzzle's rating shown."""

from __future__ import annotations

import re

from ringgames import puzzles as pz

from .conftest import csp_violations, shot

SHIPPED = {p.id: p for p in pz.load()}


def click_move(page, move):
    a, b = re.fullmatch(r"([a-k]\d+)-([a-k]\d+)", move).groups()
    page.locator(f'[data-pt="{a}"]').first.click()
    page.wait_for_selector(f'[data-pt="{a}"].selected')
    page.locator(f'[data-pt="{b}"]').first.click()


def test_one_puzzle_solved_and_one_missed_by_clicking(server, page_factory):
    page = page_factory()
    page.goto(f"{server.url}/puzzles?game=yinsh")
    page.wait_for_function("() => P && board && board._last")
    p = SHIPPED[page.evaluate("() => P.id")]
    assert p.game == "yinsh" and page.evaluate("() => board._last[0]") == p.position
    assert page.inner_text("#rating") == f"Puzzle rating: {round(p.rating)}"
    assert ("complete a row" if p.theme == "row" else "does not hand your opponent a row") in page.inner_text("#task")
    click_move(page, p.solution[0])
    page.wait_for_selector("#verdict.solved")
    assert page.inner_text("#verdict") == "Solved!"
    assert page.inner_text("#solution") == " ".join(p.solution)
    shot(page, "puzzles-solved")
    # the next puzzle: a move that makes no row is wrong, and the solution is played on the board
    page.click("#next")
    page.wait_for_function(f"() => P.id !== {p.id!r} && board._last[0] === P.position")
    q = SHIPPED[page.evaluate("() => P.id")]
    state = q.state()
    good = set(pz.answers(state, q.theme))
    wrong = next(state.action_to_string(a) for a in state.legal_actions() if a not in good)
    click_move(page, wrong)
    page.wait_for_selector("#verdict.wrong")
    assert page.inner_text("#verdict") == f"Wrong — the solution was {' '.join(q.solution)}."
    last = pz.solution_positions(q)[-1]
    page.wait_for_function(f"() => board._last[0] === {last!r}", timeout=10_000)
    assert csp_violations(page) == []


def test_a_rings_chain_puzzle_solved_by_clicking_the_point(server, page_factory):
    page = page_factory()
    page.goto(f"{server.url}/puzzles?game=rings")
    page.wait_for_function("() => P && P.game === 'rings' && board && board._last")
    p = SHIPPED[page.evaluate("() => P.id")]
    assert "converts the most circles" in page.inner_text("#task")
    page.locator(f'[data-pt="{p.solution[0]}"]').first.click()
    page.wait_for_selector("#verdict.solved")
    assert page.evaluate("() => board._last[0]") == pz.solution_positions(p)[-1]  # the chain shown on the board
    assert csp_violations(page) == []
