"""Learn (issue 30): every lesson is solvable with the real rules and a wrong try is not; the check API plays a
learner's actions and answers done / over / the legal actions; bad input gets a 4xx with a reason; the rules
pages carry board diagrams whose positions the engine computed; the pages are in every language."""

import html
import re

import pytest

import ringgames
from ringgames.server import i18n, learn

ALL = [(g, les.n) for g, ls in learn.LESSONS.items() for les in ls]


def test_enough_lessons_per_game():
    assert len(learn.LESSONS["yinsh"]) >= 5
    assert len(learn.LESSONS["gyges"]) >= 4 and len(learn.LESSONS["rings"]) >= 4


@pytest.mark.parametrize(("game", "n"), ALL)
def test_every_lesson_is_solvable_and_the_wrong_try_fails(game, n):
    les = learn.lesson(game, n)
    start = ringgames.load_game(game).state_from_position(les.position)
    assert start.position() == les.position  # a canonical position string
    seat = start.current_player()
    # the solution: every action legal in turn, all by the learner, and the goal met after the last one only
    state = start.clone()
    for i, a in enumerate(les.solution):
        assert state.current_player() == seat
        assert state.string_to_action(a) in state.legal_actions(), (a, i)
        state.play(a)
        if i < len(les.solution) - 1:
            assert not learn.attempt(les, les.solution[:i + 1]).done, f"done before the end of {les.solution}"
    t = learn.attempt(les, les.solution)
    assert t.done and not t.over and t.state.position() == state.position()
    # the wrong try is legal, ends the turn, and does not meet the goal
    w = learn.attempt(les, les.wrong)
    assert not w.done and w.over


def test_goals_read_the_state_the_engine_produced():
    les = learn.lesson("yinsh", 2)  # flip three markers
    t = learn.attempt(les, ["e2-e6"])
    assert t.done
    # one black marker fewer after a one-marker jump is not three
    one = learn.Lesson("yinsh", 99, les.position, (("flip", 3),), (), ())
    other = learn.attempt(one, ["e2-f2"])
    assert not other.done and other.over
    win = learn.attempt(learn.lesson("yinsh", 4), ["c8-e8", "xd4-d8", "xa2"])
    assert win.state.outcome() is not None and win.state.outcome().winners == (0,)


def test_list_and_one_lesson(client):
    r = client.get("/api/learn")
    assert r.status_code == 200
    data = r.json()["lessons"]
    assert [len(data[g]) for g in ("yinsh", "gyges", "rings")] == [len(learn.LESSONS[g]) for g in ("yinsh", "gyges", "rings")]
    one = client.get("/api/learn/gyges/2").json()
    assert one["position"] == learn.LESSONS["gyges"][1].position and one["seat"] == 0 and one["count"] == 5
    assert "c1-c2-c5" in one["legal"] and one["title"] == "Bounce"


def test_check_goes_on_then_is_done(client):
    r = client.post("/api/learn/yinsh/3/check", json={"actions": ["g5-g7"]})
    assert r.status_code == 200, r.text
    body = r.json()
    assert not body["done"] and not body["over"] and body["legal"] == ["xc5-g5"] and body["turn"] == ["g5-g7"]
    body = client.post("/api/learn/yinsh/3/check", json={"actions": ["g5-g7", "xc5-g5", "xa2"]}).json()
    assert body["done"] and body["legal"] == [] and " 1:0 " in body["position"]


def test_check_a_wrong_try_is_over_with_the_hint(client):
    body = client.post("/api/learn/rings/2/check", json={"actions": ["L1"]}).json()
    assert body["over"] and not body["done"] and body["hint"] and "K12" in body["hint"]
    assert body["legal"] == []


@pytest.mark.parametrize(("url", "payload", "status", "error"), [
    ("/api/learn/yinsh/1/check", {"actions": ["e5-e9"]}, 422, "illegal_action"),
    ("/api/learn/yinsh/1/check", {"actions": ["zz"]}, 422, "illegal_action"),
    ("/api/learn/yinsh/1/check", {"actions": ["e5-e7", "a5-a4"]}, 422, "turn_over"),
    ("/api/learn/yinsh/1/check", {"actions": "e5-e7"}, 400, "bad_request"),
    ("/api/learn/yinsh/1/check", {"actions": ["e5-e7"], "extra": 1}, 400, "bad_request"),
    ("/api/learn/yinsh/1/check", {"actions": ["x" * 5000]}, 400, "bad_request"),
    ("/api/learn/yinsh/1/check", {"actions": ["e5"] * 100}, 400, "bad_request"),
    ("/api/learn/yinsh/9/check", {"actions": []}, 404, "unknown_lesson"),
    ("/api/learn/chess/1/check", {"actions": []}, 404, "unknown_game"),
    ("/api/learn/yinsh/0/check", {"actions": []}, 400, "bad_request"),
])
def test_bad_checks_are_4xx_with_a_reason(client, url, payload, status, error):
    r = client.post(url, json=payload)
    assert r.status_code == status, r.text
    body = r.json()
    assert body["error"] == error and body["message"] and len(body["message"]) <= 300


def test_unknown_lesson_pages_are_404_pages(client):
    for path in ("/learn/yinsh/99", "/learn/chess/1", "/learn/yinsh/x", "/learn/YINSH/1"):
        r = client.get(path)
        assert r.status_code == 404 and r.headers["content-type"].startswith("text/html"), path


FIGURE = re.compile(r'<figure class="diagram" data-game="(\w+)" data-name="(\w+)" data-position="([^"]*)" '
                    r'data-before="([^"]*)" data-turn="([^"]*)" data-seat="(\d)">')


@pytest.mark.parametrize("game", ["yinsh", "gyges", "rings"])
def test_rules_pages_have_diagrams_the_engine_can_read(client, game):
    r = client.get(f"/rules/{game}")
    assert r.status_code == 200
    figs = FIGURE.findall(r.text)
    assert len(figs) >= 3
    g = ringgames.load_game(game)
    for fgame, name, after, before, turn, seat in figs:
        after, before = html.unescape(after), html.unescape(before)
        assert fgame == game
        state = g.state_from_position(before)
        assert state.current_player() == int(seat)
        for a in turn.split():  # the marked turn leads from the position before to the one drawn
            state.play(a)
        assert state.position() == after == g.state_from_position(after).position(), name
    assert f'href="/learn/{game}/1"' in r.text and 'href="/learn"' in r.text


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_learn_pages_in_every_language(client, lang):
    r = client.get(f"/learn?lang={lang}")
    assert r.status_code == 200 and f'<html lang="{lang}">' in r.text
    for ls in learn.LESSONS.values():
        for les in ls:
            assert html.escape(i18n.translate(lang, les.key("title")), quote=True) in r.text
    r = client.get(f"/learn/rings/4?lang={lang}")
    assert html.escape(i18n.translate(lang, "learn.rings.4.task"), quote=True) in r.text
    if lang != "en":
        assert i18n.translate(lang, "learn.rings.4.task") != i18n.translate("en", "learn.rings.4.task")
    r = client.get(f"/rules/gyges?lang={lang}")
    assert html.escape(i18n.translate(lang, "diagram.gyges.bounce"), quote=True) in r.text
