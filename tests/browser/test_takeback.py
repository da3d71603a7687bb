"""Takebacks in headless Chromium: asked on one page, refused then allowed on the other; both pages follow."""

from .test_features import play_legal, two_humans


def test_takeback_refused_then_allowed(server, page_factory):
    ann, bob = two_humans(page_factory, server)
    assert ann.locator("#takeback-ask").is_hidden()  # nothing of Ann's to take back yet
    ann.locator("details summary").first.click()  # the list of legal actions
    play_legal(ann, "e5")
    bob.wait_for_function("() => S.ply === 1")
    assert bob.locator("#takeback-ask").is_hidden()
    ann.click("#takeback-ask")
    bob.wait_for_selector("#takeback-accept", state="visible")
    assert bob.inner_text("#result") == "Ann asks to take back their last turn"
    assert ann.locator("#takeback-accept").is_hidden() and ann.locator("#takeback-ask").is_hidden()
    bob.click("#takeback-decline")
    ann.wait_for_selector("#takeback-ask", state="visible")
    assert ann.evaluate("S.ply") == 1 and ann.inner_text("#result") == ""
    ann.click("#takeback-ask")
    bob.wait_for_selector("#takeback-accept", state="visible")
    bob.click("#takeback-accept")
    for p in (ann, bob):
        p.wait_for_function("() => S.ply === 0 && S.moves.length === 0 && S.to_move === 0")
        assert p.locator("#moves li").count() == 0 and p.locator("#takeback-accept").is_hidden()
    play_legal(ann, "f6")  # the game goes on from the start
    bob.wait_for_function("() => S.ply === 1 && S.moves[0].text === 'f6'")


def test_claim_against_a_player_who_stays_away(tmp_path, page_factory):
    """A site where a game without a clock may be claimed after 1 s: the button appears by itself, and the claim
    ends the game for both pages."""
    import re

    from ringgames.server.testing import ServerProcess

    with ServerProcess(f"sqlite:///{tmp_path / 'c.sqlite3'}", log=tmp_path / "server.log",
                       extra_args=["--limit", "claim_after_seconds=1"]) as srv:
        ann, bob = two_humans(page_factory, srv)
        assert re.search(r"/game/\w+$", ann.url)
        ann.locator("details summary").first.click()
        play_legal(ann, "e5")
        assert ann.locator("#claim").is_hidden()  # Bob has only just got the turn
        ann.wait_for_selector("#claim", state="visible", timeout=5000)  # no message needed: the page counts
        assert bob.locator("#claim").is_hidden()  # nobody claims against themselves
        ann.click("#claim")
        for p in (ann, bob):
            p.wait_for_function("() => S.to_move === null")
            assert p.inner_text("#turn") == "Game over: Ann (white) wins (the player left)."
