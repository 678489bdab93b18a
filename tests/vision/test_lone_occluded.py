"""A lone "occluded" call (no occluded cell around it) is no hand: the reader reads the
cell again without the occluded class, and keeps it occluded when that reading is not
sure. Calls in a patch stay occluded."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from zatre_vision.vision.cells import CROP
from zatre_vision.vision.classify import CLASSES, OCCLUDED
from zatre_vision.vision.geometry import CELL_COLROW, CELL_NAMES
from zatre_vision.vision.reader import lone_occluded

N = len(CELL_NAMES)
E5 = CELL_NAMES.index("E5")
F5 = CELL_NAMES.index("F5")
K10 = CELL_NAMES.index("K10")


@settings(max_examples=60, deadline=None)
@given(st.sets(st.integers(0, N - 1), max_size=40))
def test_lone_means_no_occluded_cell_at_chessboard_distance_one(occluded):
    cls = np.zeros(N, np.int64)
    cls[list(occluded)] = OCCLUDED
    lone = lone_occluded(cls)
    for i in range(N):
        near = [j for j in occluded
                if j != i and np.abs(CELL_COLROW[j] - CELL_COLROW[i]).max() == 1]
        assert lone[i] == (i in occluded and not near)


def _probs(rows: dict[int, dict[int, float]]) -> np.ndarray:
    p = np.zeros((N, len(CLASSES)), np.float32)
    p[:, 0] = 1.0
    for i, row in rows.items():
        p[i] = 0.0
        for c, v in row.items():
            p[i, c] = v
    return p


def test_a_lone_call_takes_a_sure_second_reading(reader):
    crops = np.full((N, CROP, CROP), 0.2, np.float32)   # dark empty cells
    # "occluded" 0.6, empty 0.38: alone, the cell is read empty (0.95 without the 0.6)
    res = reader.decide(crops, _probs({K10: {OCCLUDED: 0.6, 0: 0.38, 3: 0.02}}))
    assert "K10" not in res.uncertain and "K10" not in res.occluded
    assert res.classes[K10] == 0


def test_a_lone_call_stays_occluded_when_the_second_reading_is_unsure(reader):
    crops = np.full((N, CROP, CROP), 0.2, np.float32)
    res = reader.decide(crops, _probs({K10: {OCCLUDED: 0.6, 0: 0.2, 3: 0.2}}))
    assert "K10" in res.occluded and "K10" in res.uncertain
    assert res.classes[K10] == OCCLUDED


def test_calls_in_a_patch_stay_occluded(reader):
    crops = np.full((N, CROP, CROP), 0.2, np.float32)
    row = {OCCLUDED: 0.6, 0: 0.38, 3: 0.02}
    res = reader.decide(crops, _probs({E5: row, F5: row}))
    assert {"E5", "F5"} <= set(res.occluded)
    assert res.classes[E5] == res.classes[F5] == OCCLUDED
