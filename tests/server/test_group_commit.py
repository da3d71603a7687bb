"""Group commit: moves of many games arriving together share transactions, each is committed
before act() returns (and so before its broadcast), and a move the database refuses fails alone."""

import asyncio
from datetime import UTC, datetime

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from ringgames.server.db import GameRow, MoveRow
from ringgames.server.service import Hub

from .aio import run


def test_concurrent_moves_are_batched_and_all_committed(tmp_path, monkeypatch):
    async def main():
        hub = Hub(f"sqlite:///{tmp_path / 'g.sqlite3'}", ai_workers=1, ai_delay=0)
        await hub.start()
        batches = []
        write = hub._write_moves
        monkeypatch.setattr(hub, "_write_moves", lambda b: (batches.append(len(b)), write(b))[1])
        try:
            rooms = []
            for _ in range(30):
                room, mine, _ = await hub.create("yinsh", None, None, [{"kind": "me"}, {"kind": "me"}])
                rooms.append((room, list(mine.values())))
            for _ in range(4):  # four rounds: all 30 games move at once
                await asyncio.gather(*(hub.act(r.id, r.state.legal_actions()[0], toks, len(r.state.history)) for r, toks in rooms))
            with hub.Session() as s:
                assert s.scalar(select(func.count()).select_from(MoveRow)) == 120
                assert sorted(set(s.scalars(select(GameRow.ply)))) == [4]
            assert sum(batches) == 120 and max(batches) > 1  # moves did share transactions
            assert all(len(r.state.history) == 4 and len(r.texts) == 4 for r, _ in rooms)
            # a move the database refuses (its ply is already stored) fails alone; the others in its batch commit
            (r1, _), (r2, _) = rooms[0], rooms[1]
            dup = {"game_id": r1.id, "ply": 0, "action": 0, "text": "x", "seat": 0, "created": datetime.now(UTC)}
            ok = {"game_id": r2.id, "ply": 4, "action": r2.state.legal_actions()[0], "text": "y", "seat": 0, "created": datetime.now(UTC)}
            res = await asyncio.gather(hub._store_move(r1.id, {"status": "live", "result": "none", "ply": 1, "draw_offers": [], "to_move": 1}, dup),
                                       hub._store_move(r2.id, {"status": "live", "result": "none", "ply": 5, "draw_offers": [], "to_move": 1}, ok),
                                       return_exceptions=True)
            assert isinstance(res[0], IntegrityError) and res[1] is None
            with hub.Session() as s:
                assert s.scalar(select(func.count()).select_from(MoveRow).where(MoveRow.game_id == r2.id)) == 5
                assert s.get(GameRow, r1.id).ply == 4  # the refused move changed nothing
        finally:
            await hub.stop()

    run(main())


def test_a_cancelled_caller_does_not_leave_memory_behind_the_database(tmp_path, monkeypatch):
    import time

    async def main():
        hub = Hub(f"sqlite:///{tmp_path / 'c.sqlite3'}", ai_workers=1, ai_delay=0)
        await hub.start()
        write = hub._write_moves
        monkeypatch.setattr(hub, "_write_moves", lambda b: (time.sleep(0.3), write(b))[1])  # a slow disk
        try:
            room, mine, _ = await hub.create("yinsh", None, None, [{"kind": "me"}, {"kind": "me"}])
            toks = list(mine.values())
            task = asyncio.ensure_future(hub.act(room.id, "e5", toks, 0))
            await asyncio.sleep(0.1)  # the move is being written
            task.cancel()
            await asyncio.sleep(0.5)  # the write finishes
            with hub.Session() as s:
                stored = s.scalar(select(func.count()).select_from(MoveRow).where(MoveRow.game_id == room.id))
            assert stored == 1 and len(room.state.history) == 1 and room.texts == ["e5"] and room.row.ply == 1
            await hub.act(room.id, room.state.legal_actions()[0], toks, 1)  # and the game goes on
            assert len(room.state.history) == 2
        finally:
            await hub.stop()

    run(main())
