"""The OpenAPI description: readable operation ids and summaries, every status code an operation can answer
documented with a response model (ErrorResponse for errors), and the answers really are those codes."""

import pytest

from .conftest import as_stranger, two_humans

OPERATIONS = {
    ("get", "/api/meta"): ("get_meta", {200}),
    ("get", "/api/tv"): ("get_tv", {200}),
    ("get", "/api/games"): ("list_games", {200, 400}),
    ("post", "/api/games"): ("create_game", {201, 400, 401, 403, 413, 422, 429}),
    ("get", "/api/games/{gid}"): ("get_game", {200, 400, 404}),
    ("get", "/api/games/{gid}/legal"): ("get_legal", {200, 400, 404}),
    ("post", "/api/games/{gid}/actions"): ("play_action", {200, 400, 403, 404, 409, 413, 422, 429}),
    ("post", "/api/games/{gid}/join"): ("join_game", {200, 400, 401, 403, 404, 409, 413, 422}),
    ("post", "/api/games/{gid}/invite"): ("new_invite", {200, 400, 403, 404, 409, 413, 422}),
    ("post", "/api/games/{gid}/resign"): ("resign", {200, 400, 403, 404, 409, 413}),
    ("post", "/api/games/{gid}/computer/retry"): ("retry_computer", {200, 400, 403, 404, 409, 413}),
    ("post", "/api/games/{gid}/draw"): ("draw", {200, 400, 403, 404, 409, 413}),
    ("post", "/api/games/{gid}/chat"): ("post_chat", {200, 400, 403, 404, 413, 422, 429}),
    ("post", "/api/games/{gid}/takeback"): ("takeback", {200, 400, 403, 404, 409, 413}),
    ("post", "/api/games/{gid}/claim"): ("claim", {200, 400, 403, 404, 409, 413}),
    ("get", "/api/games/{gid}/chat"): ("get_chat", {200, 400, 404}),
    ("post", "/api/games/{gid}/rematch"): ("rematch", {201, 400, 403, 404, 409, 413, 429}),
    ("get", "/api/games/{gid}/positions"): ("get_positions", {200, 400, 404}),
    ("get", "/api/games/{gid}/record"): ("get_record", {200, 400, 404}),
    ("post", "/api/import"): ("import_files", {200, 400, 403, 413, 429}),
    ("post", "/api/account"): ("sign_up", {201, 400, 403, 409, 413, 422, 429}),
    ("post", "/api/session"): ("log_in", {200, 400, 401, 403, 413, 429}),
    ("delete", "/api/session"): ("log_out", {200, 403}),
    ("get", "/api/me"): ("get_me", {200, 401}),
    ("get", "/api/me/games"): ("get_my_games", {200, 401}),
    ("post", "/api/me/password"): ("change_password", {200, 400, 401, 403, 413, 422, 429}),
    ("get", "/api/players/{username}"): ("get_player", {200, 400, 404}),
    ("get", "/api/leaderboard/{game}"): ("get_leaderboard", {200, 400, 404}),
    ("post", "/api/seeks"): ("post_seek", {201, 400, 401, 403, 409, 413, 422, 429}),
    ("get", "/api/seeks"): ("list_seeks", {200}),
    ("get", "/api/seeks/{sid}"): ("get_seek", {200, 400, 404}),
    ("post", "/api/seeks/{sid}/accept"): ("accept_seek", {200, 400, 401, 403, 404, 409, 413, 429}),
    ("post", "/api/seeks/{sid}/keep"): ("keep_seek", {200, 400, 401, 403, 404, 413}),
    ("delete", "/api/seeks/{sid}"): ("withdraw_seek", {200, 400, 401, 403, 404}),
    ("post", "/api/games/{gid}/analysis"): ("start_game_analysis", {200, 400, 403, 404, 413, 429}),
    ("get", "/api/games/{gid}/analysis"): ("get_game_analysis", {200, 400, 404}),
    ("post", "/api/analysis"): ("analyse_position", {200, 400, 403, 413, 422, 429}),
    ("get", "/api/learn"): ("list_lessons", {200}),
    ("get", "/api/learn/{game}/{n}"): ("get_lesson", {200, 400, 404}),
    ("post", "/api/learn/{game}/{n}/check"): ("check_lesson", {200, 400, 403, 404, 413, 422}),
    ("get", "/api/puzzles/next"): ("next_puzzle", {200, 400, 404}),
    ("post", "/api/puzzles/{pid}/attempt"): ("attempt_puzzle", {200, 400, 403, 404, 413}),
}


@pytest.fixture()
def spec(client):
    return client.get("/openapi.json").json()


def resolve(spec, schema):
    while "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def test_every_operation_has_a_readable_id_a_summary_and_its_status_codes(spec):
    found = {(m, p): op for p, ops in spec["paths"].items() for m, op in ops.items()}
    assert set(found) == set(OPERATIONS)
    for key, (op_id, codes) in OPERATIONS.items():
        op = found[key]
        assert op["operationId"] == op_id, key
        # a sentence of its own, not FastAPI's summary made from the function name ("Get Game")
        assert len(op["summary"]) > 10 and op["summary"] != op_id.replace("_", " ").title(), op["summary"]
        assert {int(c) for c in op["responses"]} == codes, (key, sorted(op["responses"]))


def test_every_response_has_a_model_and_errors_use_error_response(spec):
    err = spec["components"]["schemas"]["ErrorResponse"]
    assert err["required"] == ["error", "message"]
    assert "HTTPValidationError" not in spec["components"]["schemas"]  # malformed requests get 400 + ErrorResponse
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            for code, r in op["responses"].items():
                content = r["content"]
                if code.startswith("2"):
                    (media, body), = content.items()
                    schema = resolve(spec, body["schema"])
                    if media == "text/plain":
                        assert schema == {"type": "string"}
                    else:
                        assert media == "application/json"
                        assert schema.get("properties") or schema.get("additionalProperties"), (method, path, schema)
                else:
                    assert content["application/json"]["schema"] == {"$ref": "#/components/schemas/ErrorResponse"}, (method, path, code)
                    assert r["description"] and r["description"] != "Validation Error"


def test_game_view_lists_the_fields_clients_use(spec):
    view = spec["components"]["schemas"]["GameView"]
    assert {"id", "ply", "to_move", "legal", "moves", "seats", "my_seats", "position", "result", "draw_offers"} <= set(view["required"])
    created = spec["components"]["schemas"]["CreatedGame"]
    assert {"tokens", "invites"} <= set(created["properties"])


def test_request_bodies_are_strict_and_bounded(spec):
    schemas = spec["components"]["schemas"]
    action = schemas["ActionIn"]
    assert action["required"] == ["action", "ply"] and action["additionalProperties"] is False
    assert {"type": "string", "maxLength": 100} in action["properties"]["action"]["anyOf"]
    for name in ("CreateGame", "SeatSpec", "ComputerSeatSpec", "JoinIn", "InviteIn", "ResignIn", "DrawIn", "ChatIn", "Credentials",
                 "NewPassword"):
        assert schemas[name]["additionalProperties"] is False, name
    assert schemas["CreateGame"]["properties"]["seats"]["maxItems"] == 6  # server/limits.py MAX_SEATS
    assert schemas["ChatIn"]["properties"]["text"]["maxLength"] == 2000


def test_answers_use_only_documented_codes(client, spec):
    """A tour of the API's answers: each status is one the operation documents, each error an ErrorResponse."""
    gid, _, t1 = two_humans(client)
    seen = []

    def check(method, template, path, r):
        codes = {int(c) for c in spec["paths"][template][method]["responses"]}
        assert r.status_code in codes, (method, path, r.status_code, r.text[:200])
        if r.status_code >= 400:
            assert set(r.json()) >= {"error", "message"}
        seen.append(r.status_code)

    g = "/api/games/{gid}"
    for method, template, path, kw in [
        ("post", "/api/games", "/api/games", {"json": {"game": "yinsh", "seats": [{"kind": "me"}]}}),
        ("post", "/api/games", "/api/games", {"json": {"game": "yinsh"}}),
        ("post", "/api/games", "/api/games", {"json": {"game": "yinsh", "seats": [{"kind": "me"}] * 2}, "headers": {"Origin": "https://x.example"}}),
        ("get", g, "/api/games/nope", {}),
        ("get", g, "/api/games/no%20pe", {}),
        ("post", g + "/actions", f"/api/games/{gid}/actions", {"json": {"action": "e5", "ply": 3}}),
        ("post", g + "/actions", f"/api/games/{gid}/actions", {"json": {"action": "zz", "ply": 0}}),
        ("post", g + "/actions", f"/api/games/{gid}/actions", {"json": {"action": "e5", "ply": 0}, "headers": {"X-Seat-Token": t1}}),
        ("post", g + "/join", f"/api/games/{gid}/join", {"json": {"seat": 1}}),
        ("post", g + "/join", f"/api/games/{gid}/join", {"json": {"seat": 9}}),
        ("post", g + "/draw", f"/api/games/{gid}/draw", {"json": {"what": "accept"}}),
        ("post", g + "/takeback", f"/api/games/{gid}/takeback", {"json": {"what": "accept"}}),
        ("post", g + "/chat", f"/api/games/{gid}/chat", {"json": {"text": "   "}}),
        ("post", g + "/rematch", f"/api/games/{gid}/rematch", {}),
        ("post", g + "/resign", f"/api/games/{gid}/resign", {"json": {"seat": 1}}),
        ("post", g + "/computer/retry", f"/api/games/{gid}/computer/retry", {}),
        ("get", "/api/games", "/api/games", {"params": {"limit": 0}}),
    ]:
        r = as_stranger(client, method, path, **kw) if kw.get("headers", {}).get("X-Seat-Token") else client.request(method, path, **kw)
        check(method, template, path, r)
    assert sorted(set(seen)) == [400, 403, 404, 409, 422]
