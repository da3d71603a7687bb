"""Schemathesis against the OpenAPI description, in-process (the ASGI app, no network).

Every built-in check runs on every answer: no 5xx, status codes documented, answers conform to their response
models and content types, malformed input (negative cases) refused, well-formed input accepted. Bounded and
repeatable: a fixed seed, deterministic generation, a few dozen examples per operation.

Path parameters that look like game ids are pointed at real games (a live hot-seat game whose seat token the
requests carry, a finished one, one waiting for a player, and an unknown id), so that the cases reach the rules,
not only "no such game".
"""

from __future__ import annotations

import re

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
from schemathesis.config import SchemathesisConfig
from schemathesis.python import asgi
from schemathesis.specs.openapi.checks import negative_data_rejection

from ringgames.server.accounts import cheap_hasher
from ringgames.server.app import create_app

#: well-formed but refused by the game's rules (an illegal action, a seat setup the game does not have):
#: 422 is the API's documented answer to such schema-valid input, so the "positive data" check accepts it too
POSITIVE_STATUSES = ["2xx", "401", "403", "404", "409", "422", "429"]
MAX_EXAMPLES = 25
CONFIG = {
    "seed": 20261203,
    "generation": {"max-examples": MAX_EXAMPLES, "deterministic": True, "mode": "all", "database": "none"},
    "checks": {"positive_data_acceptance": {"expected-statuses": POSITIVE_STATUSES}},
}
#: a multipart upload cannot carry a wrongly typed file: each part is bytes, so a "negative" files value (false, 3,
#: {}) arrives as a file with that text, which the import rightly reads (and reports as not a game record)
MULTIPART_EXCLUDED = [negative_data_rejection]
GAME_ID = re.compile(r"^[0-9A-Za-z_-]{1,32}$")


pytestmark = pytest.mark.slow  # about 40 s for every operation, positive and negative


@pytest.fixture(scope="module")
def api_schema(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("schemathesis")
    app = create_app(f"sqlite:///{tmp / 'st.sqlite3'}", ai_workers=1, ai_delay=0, password_hasher=cheap_hasher())
    schema = schemathesis.openapi.from_asgi("/openapi.json", app, config=SchemathesisConfig.from_dict(CONFIG))
    with asgi.get_client(app) as c:  # the lifespan schemathesis started: the same hub
        def new(seats):
            r = c.post("/api/games", json={"game": "yinsh", "seats": seats})
            assert r.status_code == 201, r.text
            return r.json()

        live = new([{"kind": "me"}, {"kind": "me"}])
        live_token = ".".join(live["tokens"].values())
        c.post(f"/api/games/{live['id']}/actions", json={"action": "e5", "ply": 0}, headers={"X-Seat-Token": live_token})
        done = new([{"kind": "me"}, {"kind": "me"}])
        r = c.post(f"/api/games/{done['id']}/resign", json={}, headers={"X-Seat-Token": ".".join(done["tokens"].values())})
        assert r.json()["status"] == "finished"
        waiting = new([{"kind": "me"}, {"kind": "invite"}])
    games = [live["id"], done["id"], waiting["id"], "000000000000"]

    @schema.hook("map_path_parameters")
    def real_games(context, path_parameters):
        gid = (path_parameters or {}).get("gid")
        if isinstance(gid, str) and GAME_ID.match(gid):
            path_parameters["gid"] = games[len(gid) % len(games)]
        return path_parameters

    @schema.hook("map_headers")
    def seat_token(context, headers):
        headers = dict(headers or {})
        headers.setdefault("X-Seat-Token", live_token)
        return headers

    yield schema
    asgi.shutdown_lifespans()


#: every operation of the description (read from the app without starting it: no database is touched)
OPERATIONS = [(m.upper(), p) for p, ops in create_app("sqlite://").openapi()["paths"].items() for m in ops]


@pytest.mark.parametrize("method,path", OPERATIONS, ids=[f"{m} {p}" for m, p in OPERATIONS])
@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE], ids=lambda m: m.value)
def test_api_conforms_to_its_openapi_description(api_schema, method, path, mode):
    operation = api_schema[path][method]

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(max_examples=MAX_EXAMPLES, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
    def run(case):
        r = case.call_and_validate(excluded_checks=MULTIPART_EXCLUDED if path == "/api/import" else [])
        seen.add(r.status_code)

    seen: set[int] = set()
    run()
    if mode is GenerationMode.POSITIVE and "{gid}" in path:  # the cases reached real games, not only "no such game"
        assert seen - {400, 404}, seen
