"""Learn: the interactive lessons (``/learn``) and the rules pages' board diagrams.

A **lesson** is a small position, a task and a goal. The learner plays one turn (the actions of the seat to move
until the turn passes or the game ends, e.g. a YINSH ring move, the row and the ring it removes); the goal is
checked with the real rules, through the game protocol only: the engine says which actions are legal, and the goal
reads the state it produces (the observation planes, the summary, the outcome) and the actions in the game's
notation. Each lesson has a known ``solution`` and a ``wrong`` try, and a test checks that the solution is legal
and meets the goal and that the wrong try does not.

A **diagram** is a position and a turn played from it: the rules pages draw the position after the turn with the
turn marked (the board code of the game page, ``static/boards.js``), computed here by the engine.

Texts (titles, tasks, hints, captions) are catalog keys: ``learn.<game>.<n>.title|task|hint|done`` and
``diagram.<game>.<name>``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from fastapi import APIRouter, Depends, Path, Request
from pydantic import BaseModel, ConfigDict, Field

from .. import load_game
from ..protocol import TERMINAL, RingGamesError, State
from .errors import ApiError, clip
from .i18n import translate
from .security import same_site_only
from .views import errors

#: the most actions one lesson turn can take (a YINSH move, a row, a ring; a RINGS placement and its conversions)
MAX_TURN_ACTIONS = 12


@dataclass(frozen=True)
class Lesson:
    """``goal``: conditions that must all hold after some action of the learner's turn:
    ``("flip", n)`` n of the opponent's YINSH markers turned to the learner's colour; ``("removed", 1)`` the learner
    removed a ring (after a row); ``("win", 0)`` the learner won; ``("land", sq)`` the Gygès move ended on ``sq``;
    ``("bounce", 0)`` the Gygès move bounced; ``("replace", 0)`` the Gygès move replaced a piece; ``("ring", 1)``
    the learner made a new RINGS ring; ``("convert", circle)`` the learner converted that RINGS circle."""

    game: str
    n: int
    position: str
    goal: tuple[tuple[str, Any], ...]
    solution: tuple[str, ...]
    wrong: tuple[str, ...]

    def key(self, part: str) -> str:
        return f"learn.{self.game}.{self.n}.{part}"


def _lessons(game: str, *rows: tuple[str, tuple[tuple[str, Any], ...], str, str]) -> tuple[Lesson, ...]:
    return tuple(Lesson(game, i + 1, pos, goal, tuple(sol.split()), tuple(wrong.split()))
                 for i, (pos, goal, sol, wrong) in enumerate(rows))


# The YINSH positions have White to move a ring, with the rings not in play at the edges (a position needs all
# of them); Gygès has South to move with all twelve pieces; RINGS has Red to place, two players.
LESSONS: dict[str, tuple[Lesson, ...]] = {
    "yinsh": _lessons(
        "yinsh",
        # 1: jump over one marker: e5 over e6 to e7
        ("W2B/B5W/8/9/4Wb4/9/W9/5B3/8/6B/B2W w move 0:0 - 0", (("flip", 1),), "e5-e7", "e5-d5"),
        # 2: three markers in one jump: e2 over e3 e4 e5 to e6
        ("W2B/B5W/4w3/9/1Wbbb5/9/W9/5B3/8/6B/B2W w move 0:0 - 0", (("flip", 3),), "e2-e6", "e2-d2"),
        # 3: the marker the ring leaves on g5 completes c5-g5; remove the row, then a ring
        ("W2B/B5W/4w3/4w4/4w1b3/3w5/W2W6/5B3/8/6B/B2W w move 0:0 - 0", (("removed", 1),),
         "g5-g7 xc5-g5 xa2", "a2-a3"),
        # 4: two rings removed already: flip d8 to make d4-d8 white, remove it and a third ring
        ("W2B/B6/7W/3wwwwb1/10/4b4/W9/5B3/8/6B/B3 w move 2:0 - 0", (("win", 0),), "c8-e8 xd4-d8 xa2", "c8-c7"),
        # 5: spoil Black's four markers d4-d7 by jumping across them
        ("W2B/B5W/5W2/3bbbb2/10/9/W9/5B3/8/6B/B2W w move 0:0 - 0", (("flip", 1),), "c6-e6", "a2-a3"),
    ),
    "gyges": _lessons(
        "gyges",
        # 1: a 2 moves exactly two steps
        ("002000/000000/100010/030002/000300/321123 S", (("land", "c3"),), "c1-c3", "c1-d2"),
        # 2: the 1 lands on the 3 and bounces on three steps
        ("001000/003000/200000/000020/100003/321123 S", (("bounce", 0),), "c1-c2-c5", "c1-b1"),
        # 3: rows 1-3 are empty: the 3 on c4 goes c5, c6 and into North's goal
        ("000000/000000/000000/103020/210130/320213 S", (("win", 0),), "c4-G", "c4-c3"),
        # 4: the 1 on b4 bounces on the 2 on b5 into the goal
        ("000000/000000/000000/010302/320103/302121 S", (("win", 0), ("bounce", 0)), "b4-b5-G", "b4-b3"),
        # 5: replace: the 1 takes the 3's square, the 3 goes to an empty square
        ("001000/003000/200000/000020/100003/321123 S", (("replace", 0),), "c1-c2(c4)", "c1-c2-c5"),
    ),
    "rings": _lessons(
        "rings",
        # 1: five red stones on the centre circle LM12: the sixth makes a ring
        ("2/4/6/8/10/12/12/12/12/12/5rr5/6r5/5rr5/12/12/12/12/12/10/8/6/4/2 r place 0 -", (("ring", 1),),
         "K12", "L1"),
        # 2: Red 3, Blue 2, one empty point on LM12: a stone there is a majority (4 > 2 + 0); convert
        ("2/4/6/8/10/12/12/12/12/12/5rr5/6r5/5bb5/12/12/12/12/12/10/8/6/4/2 r place 0 -", (("convert", "LM12"),),
         "K12 xLM12", "L1"),
        # 3: Red 3, Blue 1, two empty points: one more stone is a majority (4 > 1 + 1)
        ("2/4/6/8/10/12/12/12/12/12/5rr5/6r5/6b5/12/12/12/12/12/10/8/6/4/2 r place 0 -", (("convert", "LM12"),),
         "L13 xLM12", "L1"),
        # 4: Red's ring LM10 counts on its neighbour LM12: 2 stones + 1 ring + 1 placed = 4 > 2 + 1
        ("2/4/6/8/10/12/12/12/5rr5/5rr5/5rr5/6b5/6b5/12/12/12/12/12/10/8/6/4/2 r place 0 -",
         (("convert", "LM12"),), "K12 xLM12", "L1"),
    ),
}


def lesson(game: str, n: int) -> Lesson:
    """The lesson, or ApiError 404."""
    lessons = LESSONS.get(game)
    if lessons is None:
        raise ApiError(404, "unknown_game", f"no lessons for {clip(game, 20)} (yinsh, gyges or rings)")
    if not 1 <= n <= len(lessons):
        raise ApiError(404, "unknown_lesson", f"{game} has lessons 1 to {len(lessons)}, not {n}")
    return lessons[n - 1]


def start_state(les: Lesson) -> State:
    return load_game(les.game).state_from_position(les.position)


def _plane(state: State, seat: int, name: str) -> int:
    """How many cells of the observation plane ``name`` (seen by ``seat``) are set."""
    names = [p for p, _ in state.game.observation_planes()]
    return int(state.observation_tensor(seat)[names.index(name)].sum())


def _met(kind: str, arg: Any, start: State, now: State, seat: int, texts: Sequence[str]) -> bool:
    last = texts[-1].lower() if texts else ""
    if kind == "flip":
        return _plane(start, seat, "opp_markers") - _plane(now, seat, "opp_markers") >= arg
    if kind == "removed":
        key = f"rings_removed_{start.game.seat_names[seat]}"
        return bool(now.summary()[key] - start.summary()[key] >= arg)
    if kind == "win":
        out = now.outcome()
        return out is not None and out.winners == (seat,)
    if kind == "land":
        return bool(texts) and last.split("(")[0].split("-")[-1] == str(arg).lower()
    if kind == "bounce":
        return last.split("(")[0].count("-") >= 2
    if kind == "replace":
        return "(" in last
    if kind == "ring":
        return _plane(now, seat, "ring0") - _plane(start, seat, "ring0") >= arg
    if kind == "convert":
        return f"x{str(arg).lower()}" in [t.lower() for t in texts]
    raise ValueError(f"unknown goal {kind!r}")


@dataclass
class Attempt:
    """The learner's turn so far: ``done`` (the goal is met), ``over`` (the turn ended without it), the state."""

    state: State
    texts: list[str]
    done: bool
    over: bool
    seat: int


def attempt(les: Lesson, actions: Sequence[str]) -> Attempt:
    """Play ``actions`` (notation) as the learner's turn; ApiError 422 for an illegal one or one after the turn."""
    start = start_state(les)
    seat = start.current_player()
    state = start.clone()
    texts: list[str] = []
    done = over = False
    for i, a in enumerate(actions):
        if done or over:
            raise ApiError(422, "turn_over", f"actions[{i}]: the lesson's turn is already over")
        try:
            action = state.string_to_action(a)
            text = state.action_to_string(action)
            state.apply_action(action)
        except RingGamesError as exc:
            raise ApiError(422, "illegal_action", f"actions[{i}] ({clip(a, 20)}): {exc}") from None
        texts.append(text)
        done = all(_met(kind, arg, start, state, seat, texts) for kind, arg in les.goal)
        over = not done and (state.current_player() in (TERMINAL, None) or state.current_player() != seat
                             or state.is_terminal())
    return Attempt(state, texts, done, over, seat)


# ---------------------------------------------------------------- diagrams


@dataclass(frozen=True)
class Diagram:
    """A figure of a rules page: ``position`` (None: the start) after ``setup``, then the marked ``turn``."""

    game: str
    name: str
    position: str | None
    setup: tuple[str, ...]
    turn: tuple[str, ...]

    @property
    def caption(self) -> str:
        return f"diagram.{self.game}.{self.name}"


def _lesson_diagram(game: str, name: str, n: int) -> Diagram:
    les = LESSONS[game][n - 1]
    return Diagram(game, name, les.position, (), les.solution)


DIAGRAMS: dict[str, tuple[Diagram, ...]] = {
    "yinsh": (
        Diagram("yinsh", "placing", None, tuple("e5 f6 d4 g7 c3 h5 e8 d7 f3".split()), ("g4",)),
        _lesson_diagram("yinsh", "move", 2),
        Diagram("yinsh", "row", LESSONS["yinsh"][2].position, (), ("g5-g7",)),
        _lesson_diagram("yinsh", "removal", 3),
    ),
    "gyges": (
        _lesson_diagram("gyges", "move", 1),
        _lesson_diagram("gyges", "bounce", 2),
        _lesson_diagram("gyges", "replace", 5),
        _lesson_diagram("gyges", "goal", 3),
    ),
    "rings": (
        Diagram("rings", "placing", None, tuple("K12 H9 L11".split()), ("M13",)),
        _lesson_diagram("rings", "ring", 1),
        _lesson_diagram("rings", "convert", 2),
        _lesson_diagram("rings", "neighbour", 4),
    ),
}


@cache
def drawn(game: str) -> list[dict[str, Any]]:
    """The diagrams of a rules page, computed by the engine: ``before`` (the position the turn starts from),
    ``position`` (after it), ``turn`` (the actions, as the engine writes them), ``seat`` (who played them),
    ``caption`` (the catalog key)."""
    out = []
    for d in DIAGRAMS.get(game, ()):
        g = load_game(d.game)
        state = g.state_from_position(d.position) if d.position else g.new_initial_state()
        for a in d.setup:
            state.play(a)
        before, seat = state.position(), state.current_player()
        turn = []
        for a in d.turn:
            action = state.string_to_action(a)
            turn.append(state.action_to_string(action))
            state.apply_action(action)
        out.append({"name": d.name, "before": before, "position": state.position(), "turn": turn, "seat": seat,
                    "caption": d.caption})
    return out


# ---------------------------------------------------------------- API

router = APIRouter(prefix="/api/learn", dependencies=[Depends(same_site_only)], generate_unique_id_function=lambda r: r.name)

LearnGame = Path(pattern=r"^[a-z]{1,16}$", description="yinsh, gyges or rings")
LessonNumber = Path(ge=1, le=99, description="the lesson's number, from 1")


class LessonView(BaseModel):
    game: str
    n: int = Field(..., description="the lesson's number, from 1")
    count: int = Field(..., description="how many lessons the game has")
    title: str
    task: str = Field(..., description="what to do (English; the page shows it in the reader's language)")
    hint: str
    position: str = Field(..., description="the lesson's position string")
    seat: int = Field(..., description="the learner's seat (the seat to move)")
    legal: list[str] = Field(..., description="the legal actions at the start, in notation")


class LessonList(BaseModel):
    lessons: dict[str, list[LessonView]] = Field(..., description="per game, in order")


class CheckIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    actions: list[str] = Field(..., max_length=MAX_TURN_ACTIONS, description="the learner's actions so far, in notation")


class CheckView(BaseModel):
    done: bool = Field(..., description="the goal is met: the lesson is solved")
    over: bool = Field(..., description="the turn ended without meeting the goal: try again")
    position: str = Field(..., description="the position after the actions")
    legal: list[str] = Field(..., description="the learner's legal actions now (empty when done or over)")
    turn: list[str] = Field(..., description="the actions played, as the engine writes them")
    message: str = Field(..., description="what the check found (English)")
    hint: str | None = Field(None, description="the lesson's hint, when the try failed (English)")


def lesson_view(les: Lesson, lang: str = "en") -> dict[str, Any]:
    state = start_state(les)
    return {"game": les.game, "n": les.n, "count": len(LESSONS[les.game]), "title": translate(lang, les.key("title")),
            "task": translate(lang, les.key("task")), "hint": translate(lang, les.key("hint")),
            "position": les.position, "seat": state.current_player(),
            "legal": [state.action_to_string(a) for a in state.legal_actions()]}


@router.get("", summary="The lessons of every game", response_model=LessonList)
async def list_lessons():
    return {"lessons": {g: [lesson_view(les) for les in ls] for g, ls in LESSONS.items()}}


@router.get("/{game}/{n}", summary="A lesson: its position, task and legal actions", response_model=LessonView,
            responses=errors(400, 404))
async def get_lesson(request: Request, game: str = LearnGame, n: int = LessonNumber):
    return lesson_view(lesson(game, n))


@router.post("/{game}/{n}/check", summary="Check a lesson try: play the learner's actions, say whether the goal is met",
             response_model=CheckView, description="Plays `actions` from the lesson's position with the real rules. "
             "`done`: the goal is met; `over`: the turn ended without it (the answer has the hint); otherwise the turn "
             "goes on and `legal` lists what may follow. 422 illegal_action: which action is not legal; 422 turn_over: "
             "actions after the turn ended.", responses=errors(400, 403, 404, 413, 422))
async def check_lesson(body: CheckIn, request: Request, game: str = LearnGame, n: int = LessonNumber):
    les = lesson(game, n)
    for i, a in enumerate(body.actions):
        if len(a) > 100:
            raise ApiError(400, "bad_request", f"actions.{i}: at most 100 characters")
    t = attempt(les, body.actions)
    going = not (t.done or t.over)
    legal = [t.state.action_to_string(a) for a in t.state.legal_actions()] if going else []
    message = ("done: the goal is met" if t.done else "over: the turn ended without meeting the goal" if t.over
               else "the turn goes on")
    return {"done": t.done, "over": t.over, "position": t.state.position(), "legal": legal, "turn": t.texts,
            "message": message, "hint": translate("en", les.key("hint")) if t.over else None}
