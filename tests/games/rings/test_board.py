from collections import Counter

from ringgames.games.rings.board import (
    CIRCLE_AXIAL,
    CIRCLE_INDEX,
    CIRCLE_NAMES,
    CIRCLE_NEIGHBOURS,
    CIRCLE_POINTS,
    NUM_CIRCLES,
    NUM_POINTS,
    POINT_CIRCLES,
    POINT_NAMES,
    ROW_POINTS,
    circle_index,
    point_index,
)

ODD = set("ADEHILMPQTUX")
EVEN = set("BCFGJKNORSVW")


def names(c):
    return [POINT_NAMES[p] for p in CIRCLE_POINTS[c]]


def test_counts():
    assert NUM_POINTS == 216 and len(set(POINT_NAMES)) == 216
    assert NUM_CIRCLES == 91 and len(set(CIRCLE_NAMES)) == 91
    assert Counter(len(cs) for cs in POINT_CIRCLES) == {3: 150, 2: 30, 1: 36}


def test_rows_and_letters():
    assert [len(r) for r in ROW_POINTS] == [2, 4, 6, 8, 10] + [12] * 13 + [10, 8, 6, 4, 2]
    for i, row in enumerate(ROW_POINTS, 1):
        letters = {POINT_NAMES[p][0] for p in row}
        assert letters <= (ODD if i % 2 else EVEN)
        assert all(POINT_NAMES[p][1:] == str(i) for p in row)
    assert [POINT_NAMES[p] for p in ROW_POINTS[0]] == ["L1", "M1"]


def test_named_circles():
    assert names(circle_index("LM2")) == ["L1", "M1", "N2", "M3", "L3", "K2"]
    assert names(circle_index("lm12")) == ["L11", "M11", "N12", "M13", "L13", "K12"]
    assert CIRCLE_AXIAL[circle_index("LM12")] == (0, 0)
    assert CIRCLE_AXIAL[circle_index("LM2")] == (0, -5)


def test_point_circles_consistent():
    for p in range(NUM_POINTS):
        for c in POINT_CIRCLES[p]:
            assert p in CIRCLE_POINTS[c]
    assert sum(len(cs) for cs in POINT_CIRCLES) == 6 * 91
    assert {len(POINT_CIRCLES[point_index(n)]) for n in ["L1", "A11", "K12"]} == {1, 3}


def test_neighbours_share_two_points():
    pairs = 0
    for a in range(NUM_CIRCLES):
        for b in range(NUM_CIRCLES):
            shared = len(set(CIRCLE_POINTS[a]) & set(CIRCLE_POINTS[b]))
            if a == b:
                continue
            if b in CIRCLE_NEIGHBOURS[a]:
                assert shared == 2 and a in CIRCLE_NEIGHBOURS[b]
                pairs += 1
            else:
                assert shared == 0
    # 91 circles of radius 5: 3*5*6 + ... interior circles have 6 neighbours
    counts = Counter(len(n) for n in CIRCLE_NEIGHBOURS)
    assert counts == {6: 61, 4: 24, 3: 6}
    assert pairs == 2 * 240
    assert sorted(CIRCLE_NAMES[c] for c in CIRCLE_NEIGHBOURS[circle_index("LM12")]) == [
        "JK11", "JK13", "LM10", "LM14", "NO11", "NO13",
    ]  # fmt: skip


def test_name_lookup():
    assert POINT_NAMES[point_index("k12")] == "K12"
    assert CIRCLE_NAMES[CIRCLE_INDEX["NO13"]] == "NO13"
