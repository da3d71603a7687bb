"""`ringgames serve` WebSocket options: no permessage-deflate unless --ws-compression is given."""

import json

from websockets.sync.client import connect

from ringgames.server.testing import ServerProcess


def _extensions(srv: ServerProcess) -> str | None:
    import httpx

    d = httpx.post(f"{srv.url}/api/games", json={"game": "yinsh", "seats": [{"kind": "me"}, {"kind": "invite"}]}).json()
    with connect(f"ws://127.0.0.1:{srv.port}/ws/games/{d['id']}") as ws:  # the client offers permessage-deflate
        assert json.loads(ws.recv())["type"] == "hello"
        return ws.response.headers.get("Sec-WebSocket-Extensions")


def test_websocket_compression_is_off_by_default_and_can_be_turned_on(tmp_path):
    with ServerProcess(f"sqlite:///{tmp_path / 'a.sqlite3'}") as srv:
        assert _extensions(srv) is None
    with ServerProcess(f"sqlite:///{tmp_path / 'b.sqlite3'}", extra_args=["--ws-compression"]) as srv:
        assert "permessage-deflate" in (_extensions(srv) or "")
