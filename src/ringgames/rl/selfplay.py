"""Self-play data: games between copies of one agent, one Parquet row per decision.

``ringgames selfplay GAME --agent SPEC --games N --out DIR`` (:func:`generate`) writes
``DIR/meta.json`` (the run's settings) and Parquet files ``DIR/games-0000000-0000007.parquet``, ...
(the first and last game id; ``--per-file`` whole games each). A rerun with the same settings
skips the games already written (each file appears at once, by an atomic rename), so an
interrupted run resumes and a larger ``--games`` adds games; a rerun with other settings into the
same DIR is refused. :func:`load` reads a directory back into NumPy.

Columns (one row per decision, in play order within a game):

================  ==========================================  =========================================
column            Parquet type                                meaning
================  ==========================================  =========================================
``game_id``       int64                                       0 … N−1
``ply``           int32                                       actions played before this decision
``player``        int8                                        the seat that decides
``observation``   fixed_size_list<float32>[prod(shape)]       ``observation_tensor(player)``, flattened
``legal_mask``    fixed_size_binary[ceil(A / 8)]              ``legal_action_mask()``, ``np.packbits``-ed
``action``        int32                                       the chosen action
``policy_actions`` list<int32> (null: none)                   actions the search visited
``policy_visits`` list<int32> (null: none)                    their visit counts (MCTS ``root_visits``)
``returns``       fixed_size_list<float32>[num_players]        the game's final ``returns()``
``truncated``     bool                                        the game hit ``truncation_length()``
================  ==========================================  =========================================

The file metadata (key ``ringgames``, JSON) holds the game, variant, players, agent spec,
``observation_shape`` and ``num_distinct_actions``. Games are seeded: game *g*, seat *p*
plays ``with_seed(spec, seed * 1_000_003 + g * num_players + p)``, so a game's rows
depend only on the settings and its id, not on ``--jobs``, ``--ray`` or on resuming.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import numpy as np

import ringgames

from ..ai.agents import Agent, make_agent, with_seed
from ._extra import require

__all__ = ["SCHEMA_VERSION", "SelfPlayError", "generate", "load", "play_game", "seeded_agent"]

#: Bumped when the columns change.
SCHEMA_VERSION = 1
_META = "meta.json"


class SelfPlayError(ringgames.RingGamesError):
    """Bad self-play settings or a directory that holds something else."""


def seeded_agent(spec: str, seed: int) -> Agent:
    """``make_agent(with_seed(spec, seed))``; an agent kind without a ``seed`` option
    (deterministic, e.g. ``alphabeta``) is made from ``spec`` as given."""
    try:
        return make_agent(with_seed(spec, seed))
    except ValueError:
        return make_agent(spec)


def _settings(game: ringgames.Game, agent: str, per_file: int, seed: int) -> dict:
    """What a directory's games depend on (``meta.json``; also each file's metadata)."""
    return {
        "schema": SCHEMA_VERSION,
        "game": game.name,
        "variant": game.variant,
        "players": game.num_players,
        "agent": agent,
        "seed": seed,
        "per_file": per_file,
        "observation_shape": [int(n) for n in game.observation_shape()],
        "num_distinct_actions": int(game.num_distinct_actions),
        "truncation_length": int(game.truncation_length()),
    }


def _searcher(agent: Agent, game: ringgames.Game) -> Agent:
    """The agent that searches for ``agent``: a ``level:N`` agent's own agent for this game."""
    agent_for = getattr(agent, "agent_for", None)
    return agent_for(game.name, game.num_players) if agent_for is not None else agent


def play_game(game: ringgames.Game, agent: str, seed: int, game_id: int) -> dict[str, Any]:
    """Play one self-play game; its rows as column lists (see the module docstring)."""
    n = game.num_players
    agents = [seeded_agent(agent, seed * 1_000_003 + game_id * n + p) for p in range(n)]
    cap = game.truncation_length()
    state = game.new_initial_state()
    cols: dict[str, list] = {k: [] for k in ("ply", "player", "observation", "legal_mask", "action",
                                             "policy_actions", "policy_visits")}
    while not state.is_terminal() and len(state.history) < cap:
        p = state.current_player()
        obs = np.asarray(state.observation_tensor(p), dtype=np.float32).ravel()
        mask = np.asarray(state.legal_action_mask(), dtype=bool)
        a = int(agents[p].choose(state))
        if not mask[a]:
            raise SelfPlayError(f"agent {agent!r} chose the illegal action {a} at ply {len(state.history)}")
        visits_of = getattr(_searcher(agents[p], game), "root_visits", None)
        visits = visits_of() if visits_of is not None else None
        cols["ply"].append(len(state.history))
        cols["player"].append(p)
        cols["observation"].append(obs)
        cols["legal_mask"].append(mask)
        cols["action"].append(a)
        if visits:
            acts = sorted(visits)
            cols["policy_actions"].append(acts)
            cols["policy_visits"].append([int(visits[b]) for b in acts])
        else:
            cols["policy_actions"].append(None)
            cols["policy_visits"].append(None)
        state.apply_action(a)
    rows = len(cols["ply"])
    cols["game_id"] = [game_id] * rows
    cols["returns"] = [list(map(float, state.returns()))] * rows
    cols["truncated"] = [not state.is_terminal()] * rows
    return cols


def _schema(pa: Any, settings: dict) -> Any:
    obs_size = int(np.prod(settings["observation_shape"]))
    return pa.schema(
        [
            ("game_id", pa.int64()),
            ("ply", pa.int32()),
            ("player", pa.int8()),
            ("observation", pa.list_(pa.float32(), obs_size)),
            ("legal_mask", pa.binary((settings["num_distinct_actions"] + 7) // 8)),
            ("action", pa.int32()),
            ("policy_actions", pa.list_(pa.int32())),
            ("policy_visits", pa.list_(pa.int32())),
            ("returns", pa.list_(pa.float32(), settings["players"])),
            ("truncated", pa.bool_()),
        ],
        metadata={"ringgames": json.dumps(settings)},
    )


def _play_games(first: int, last: int, settings: dict) -> Any:
    """Play games ``first`` … ``last - 1``; returns them as one Arrow table (the rows of one file)."""
    pa = require("pyarrow", "self-play data")
    game = ringgames.load_game(settings["game"], settings["variant"], settings["players"])
    schema = _schema(pa, settings)
    merged: dict[str, list] = {name: [] for name in schema.names}
    for gid in range(first, last):
        cols = play_game(game, settings["agent"], settings["seed"], gid)
        for k, column in merged.items():
            column.extend(cols[k])
    arrays = []
    for field in schema:
        values = merged[field.name]
        if field.name == "observation" and values:
            arrays.append(pa.FixedSizeListArray.from_arrays(pa.array(np.concatenate(values), type=pa.float32()),
                                                            field.type.list_size))
        elif field.name == "legal_mask":
            arrays.append(pa.array([np.packbits(m).tobytes() for m in values], type=field.type))
        else:
            arrays.append(pa.array(values, type=field.type))
    return pa.Table.from_arrays(arrays, schema=schema)


def _save_table(out: str, first: int, last: int, table: Any) -> tuple[int, int]:
    """Write the table of games ``first`` … ``last - 1`` as their file (atomically); returns (games, rows)."""
    pq = require("pyarrow.parquet", "self-play data")
    path = Path(out) / _shard_name(first, last)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    pq.write_table(table, tmp, compression="zstd")
    os.replace(tmp, path)
    return last - first, table.num_rows


def _write_games(out: str, first: int, last: int, settings: dict) -> tuple[int, int]:
    """Play games ``first`` … ``last - 1`` and write them as one file; returns (games, rows)."""
    return _save_table(out, first, last, _play_games(first, last, settings))


def _ray_games(first: int, last: int, settings: dict) -> tuple[int, int, Any]:
    """A Ray task: the table of games ``first`` … ``last - 1``, written by the caller (the cluster's
    machines need not share the output directory)."""
    return first, last, _play_games(first, last, settings)


def _shard_name(first: int, last: int) -> str:
    return f"games-{first:07d}-{last - 1:07d}.parquet"


def _written(out_dir: Path) -> set[int]:
    """The game ids that the directory's files hold (from their names)."""
    done: set[int] = set()
    for f in out_dir.glob("games-*.parquet"):
        parts = f.stem.split("-")
        if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
            done.update(range(int(parts[1]), int(parts[2]) + 1))
    return done


def _runs(ids: list[int]) -> list[tuple[int, int]]:
    """Sorted ids -> contiguous (first, last + 1) runs."""
    out: list[tuple[int, int]] = []
    for i in ids:
        if out and out[-1][1] == i:
            out[-1] = (out[-1][0], i + 1)
        else:
            out.append((i, i + 1))
    return out


def generate(game: str, agent: str, games: int, out: str | os.PathLike, *, variant: str | None = None,
             players: int | None = None, jobs: int = 1, per_file: int = 8, seed: int = 0,
             progress: Callable[[int], Any] | None = None, ray: str | None = None,
             ray_cpus: int | None = None) -> dict[str, int]:
    """Make sure the directory ``out`` holds self-play games 0 … ``games - 1`` of ``agent`` (resumable).

    Games already there are skipped; the others are played (in ``jobs`` processes, or as Ray tasks
    with ``ray``: ``""`` a local Ray instance with ``ray_cpus`` CPUs, else a cluster's address; each task
    plays one file's games and returns its table, which this process writes) and written
    ``per_file`` games to a file. ``progress(k)`` is called as k more games are done (skipped
    ones included). Returns ``{"games", "skipped", "written", "rows"}`` (``rows``: decisions
    written now). Raises :class:`SelfPlayError` for bad settings or a directory written with
    other settings, ValueError for a bad game, variant or agent spec.
    """
    require("pyarrow.parquet", "self-play data")
    g = ringgames.load_game(game, variant=variant, players=players)
    make_agent(agent)  # a bad spec fails now, with the agent's message
    if games < 1 or per_file < 1 or jobs < 1:
        raise SelfPlayError("games, per_file and jobs must be at least 1")
    settings = _settings(g, agent, per_file, seed)
    out_dir = Path(out)
    if out_dir.exists() and not out_dir.is_dir():
        raise SelfPlayError(f"{out_dir} is a file, not a directory")
    out_dir.mkdir(parents=True, exist_ok=True)
    meta_path = out_dir / _META
    if meta_path.exists():
        try:
            old = json.loads(meta_path.read_text())
        except (OSError, ValueError) as exc:
            raise SelfPlayError(f"{meta_path}: not a self-play settings file ({exc})") from None
        compared = {k: v for k, v in settings.items() if k != "per_file"}
        old = {k: v for k, v in old.items() if k != "per_file"} if isinstance(old, dict) else {}
        if old != compared:
            diff = sorted(k for k in set(old) | set(compared) if old.get(k) != compared.get(k))
            raise SelfPlayError(f"{out_dir} holds self-play data with other settings ({', '.join(diff)}); "
                                "use another --out directory")
    elif any(out_dir.iterdir()):
        raise SelfPlayError(f"{out_dir} is not empty and holds no self-play data ({_META}); use another --out directory")
    meta_path.write_text(json.dumps(settings, indent=1) + "\n")
    for stale in out_dir.glob(".games-*.parquet.tmp-*"):  # left by an interrupted run
        stale.unlink()
    done = _written(out_dir)
    missing = [i for i in range(games) if i not in done]
    skipped = games - len(missing)
    if progress and skipped:
        progress(skipped)
    # files of per_file games, aligned on multiples of per_file (so runs resume in the same files)
    tasks: list[tuple[int, int]] = []
    for first, last in _runs(missing):
        cut = first
        while cut < last:
            end = min(last, (cut // per_file + 1) * per_file)
            tasks.append((cut, end))
            cut = end
    rows = 0
    if ray is not None and tasks:
        from ..raytasks import imap_unordered, session

        with session(ray, num_cpus=ray_cpus):
            for first, last, table in imap_unordered(_ray_games, [(f, e, settings) for f, e in tasks]):
                n, r = _save_table(str(out_dir), first, last, table)
                rows += r
                if progress:
                    progress(n)
    elif jobs == 1 or len(tasks) <= 1:
        for first, last in tasks:
            n, r = _write_games(str(out_dir), first, last, settings)
            rows += r
            if progress:
                progress(n)
    else:
        with ProcessPoolExecutor(max_workers=jobs) as ex:
            futures = [ex.submit(_write_games, str(out_dir), first, last, settings) for first, last in tasks]
            for fut in as_completed(futures):
                n, r = fut.result()
                rows += r
                if progress:
                    progress(n)
    return {"games": games, "skipped": skipped, "written": len(missing), "rows": rows}


def load(path: str | os.PathLike, policy: str = "dense", mask: str = "dense",
         frame: str = "absolute") -> dict[str, np.ndarray]:
    """Read a self-play directory (or one of its files) into NumPy arrays, rows sorted by (game_id, ply).

    Keys: ``game_id`` int64[N], ``ply`` int32[N], ``player`` int8[N], ``observation``
    float32[N, *observation_shape], ``legal_mask`` bool[N, A], ``action`` int32[N],
    ``returns`` float32[N, players], ``value`` float32[N] (the deciding player's final return),
    ``truncated`` bool[N], ``has_policy`` bool[N], and with ``policy="dense"`` ``policy``
    float32[N, A] (visit counts / their sum; zeros without a search policy) or with
    ``policy="sparse"`` ``policy_actions`` / ``policy_visits`` (object arrays of int32 arrays).
    ``mask="packed"`` keeps ``legal_mask`` as the stored bits, uint8[N, ceil(A / 8)]
    (``np.unpackbits(m, axis=-1, count=A).view(bool)`` per batch): Gygès has A = 49,375, so dense
    masks and policies take 49 KB and 197 KB per row. ``frame="observer"`` renumbers ``action``,
    ``legal_mask`` and the policy in each row's deciding player's frame (``game.observer_actions``,
    the frame of the observation: Gygès turns the board for North), as one network playing every
    seat wants them; the default ``"absolute"`` keeps the protocol's ids.
    """
    pa = require("pyarrow", "self-play data")
    pq = require("pyarrow.parquet", "self-play data")
    if policy not in ("dense", "sparse"):
        raise ValueError(f"policy must be 'dense' or 'sparse', not {policy!r}")
    if mask not in ("dense", "packed"):
        raise ValueError(f"mask must be 'dense' or 'packed', not {mask!r}")
    if frame not in ("absolute", "observer"):
        raise ValueError(f"frame must be 'absolute' or 'observer', not {frame!r}")
    p = Path(path)
    files = sorted(p.glob("games-*.parquet")) if p.is_dir() else [p]
    if not files:
        raise SelfPlayError(f"{p}: no self-play files (games-*.parquet) here")
    tables = []
    for f in files:
        try:
            tables.append(pq.read_table(f))
        except (OSError, pa.ArrowException) as exc:
            raise SelfPlayError(f"{f}: not a readable Parquet file ({str(exc)[:200]})") from None
    meta_raw = (tables[0].schema.metadata or {}).get(b"ringgames")
    if meta_raw is None:
        raise SelfPlayError(f"{files[0]}: no ringgames metadata: not self-play data")
    meta = json.loads(meta_raw)
    table = pa.concat_tables(tables)
    order = np.lexsort((table.column("ply").to_numpy(), table.column("game_id").to_numpy()))
    if (np.diff(order) != 1).any():  # files are written in order: sort only if they are not
        table = table.take(pa.array(order))
    n = table.num_rows
    shape = tuple(meta["observation_shape"])
    num_actions = meta["num_distinct_actions"]

    def fixed(name: str, dtype: Any, width: int) -> np.ndarray:
        col = table.column(name).combine_chunks()
        return col.flatten().to_numpy(zero_copy_only=False).astype(dtype, copy=False).reshape(n, width)

    out: dict[str, np.ndarray] = {
        "game_id": table.column("game_id").to_numpy(),
        "ply": table.column("ply").to_numpy(),
        "player": table.column("player").to_numpy(),
        "observation": fixed("observation", np.float32, int(np.prod(shape))).reshape((n, *shape)),
        "legal_mask": _unpack_masks(table.column("legal_mask"), n, num_actions, unpack=mask == "dense"),
        "action": table.column("action").to_numpy(),
        "returns": fixed("returns", np.float32, meta["players"]),
        "truncated": table.column("truncated").to_numpy(zero_copy_only=False).astype(bool),
    }
    out["value"] = out["returns"][np.arange(n), out["player"].astype(np.int64)]
    acts = table.column("policy_actions").to_pylist()
    visits = table.column("policy_visits").to_pylist()
    out["has_policy"] = np.array([a is not None for a in acts], dtype=bool)
    if policy == "dense":
        dense = np.zeros((n, num_actions), dtype=np.float32)
        for i, (a, v) in enumerate(zip(acts, visits, strict=True)):
            if a:
                w = np.asarray(v, dtype=np.float32)
                dense[i, np.asarray(a, dtype=np.int64)] = w / w.sum()
        out["policy"] = dense
    else:
        out["policy_actions"] = np.array([np.asarray(a or [], np.int32) for a in acts] + [None], dtype=object)[:-1]
        out["policy_visits"] = np.array([np.asarray(v or [], np.int32) for v in visits] + [None], dtype=object)[:-1]
    if frame == "observer":
        _to_observer_frame(out, meta)
    return out


def _permute_columns(values: np.ndarray, perm: np.ndarray) -> np.ndarray:
    """Per-action rows moved to the images: ``out[:, perm[a]] = values[:, a]``."""
    out = np.empty_like(values)
    out[:, perm] = values
    return out


def _to_observer_frame(out: dict[str, np.ndarray], meta: dict) -> None:
    """Renumber the action columns of ``out`` in place, each row in its player's frame."""
    game = ringgames.load_game(meta["game"], meta["variant"], meta["players"])
    num_actions = game.num_distinct_actions
    ident = np.arange(num_actions, dtype=np.int64)
    out["action"] = out["action"].copy()  # Arrow's buffer is read-only
    for p in range(game.num_players):
        perm = np.asarray(game.observer_actions(p), dtype=np.int64)
        rows = np.flatnonzero(out["player"] == p)
        if np.array_equal(perm, ident) or not len(rows):
            continue
        out["action"][rows] = perm[out["action"][rows]]
        m = out["legal_mask"]
        if m.dtype == np.uint8:  # packed
            dense = np.unpackbits(m[rows], axis=1, count=num_actions)
            m[rows] = np.packbits(_permute_columns(dense, perm), axis=1)
        else:
            m[rows] = _permute_columns(m[rows], perm)
        if "policy" in out:
            out["policy"][rows] = _permute_columns(out["policy"][rows], perm)
        else:
            for i in rows:
                out["policy_actions"][i] = perm[out["policy_actions"][i]].astype(np.int32)


def _unpack_masks(column: Any, n: int, num_actions: int, unpack: bool = True) -> np.ndarray:
    """The packed ``legal_mask`` column as bool[n, num_actions] (or its packed bytes, uint8[n, ceil(A / 8)])."""
    width = (num_actions + 7) // 8
    arr = column.combine_chunks()
    data = np.frombuffer(arr.buffers()[1], dtype=np.uint8)  # fixed_size_binary: one data buffer, no nulls
    bits = data[arr.offset * width:(arr.offset + n) * width].reshape(n, width)
    if not unpack:
        return bits.copy()
    return np.unpackbits(bits, axis=1, count=num_actions).view(bool)


def cli_selfplay(game: str, agent: str, games: int, out: str, jobs: int, variant: str | None,
                 players: int | None, per_file: int, seed: int, echo: Callable[[str], Any],
                 ray: str | None = None, ray_cpus: int | None = None) -> None:
    """The body of ``ringgames selfplay`` (the click command in ``cli.py`` only parses options)."""
    from tqdm import tqdm

    bar = tqdm(total=games, unit="game", file=sys.stderr, desc=f"selfplay {game} {agent}", leave=False, delay=0.5)
    try:
        res = generate(game, agent, games, out, variant=variant, players=players, jobs=jobs,
                       per_file=per_file, seed=seed, progress=bar.update, ray=ray, ray_cpus=ray_cpus)
    finally:
        bar.close()
    echo(f"{res['games']} games in {out}: {res['written']} written ({res['rows']} decisions), "
         f"{res['skipped']} already there")
