"""Without an occluded call touching it, a cell is read without the occluded class (a
hand hides a patch of cells): a lone "occluded" call is read again and stays occluded
only when that reading is unsure; calls in a patch stay occluded; the occluded share
neither confirms a tile the pip count cannot see nor lowers the bar."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from zatre_vision.vision.geometry import CELL_COLROW, CELL_NAMES
from zatre_vision.vision.reading.cell_evidence import no_hand_near
from zatre_vision.vision.reading.cells import CROP
from zatre_vision.vision.reading.classify import OCCLUDED

from .cell_probs import RULES, decided
from .cell_probs import cell_probs as _probs

N = len(CELL_NAMES)
E5 = CELL_NAMES.index("E5")
F5 = CELL_NAMES.index("F5")
K10 = CELL_NAMES.index("K10")   # a dark cell
#: a grey crop (a vein, a shadow): neither too dark for a tile nor bright like one
GREY = 0.5


@settings(max_examples=60, deadline=None)
@given(st.sets(st.integers(0, N - 1), max_size=40))
def test_no_hand_near_means_no_occluded_call_at_chessboard_distance_one(occluded):
    cls = np.zeros(N, np.int64)
    cls[list(occluded)] = OCCLUDED
    alone = no_hand_near(cls)
    for i in range(N):
        near = [j for j in occluded
                if j != i and np.abs(CELL_COLROW[j] - CELL_COLROW[i]).max() == 1]
        assert alone[i] == (not near)


def test_a_lone_call_takes_a_sure_second_reading():
    crops = np.full((N, CROP, CROP), 0.2, np.float32)   # dark empty cells
    # "occluded" 0.6, empty 0.38: alone, the cell is read empty (0.95 without the 0.6)
    res = decided(crops, _probs({K10: {OCCLUDED: 0.6, 0: 0.38, 3: 0.02}}))
    assert "K10" not in res.uncertain and "K10" not in res.occluded
    assert res.classes[K10] == 0


def test_a_lone_call_stays_occluded_when_the_second_reading_is_unsure():
    crops = np.full((N, CROP, CROP), 0.2, np.float32)
    res = decided(crops, _probs({K10: {OCCLUDED: 0.6, 0: 0.2, 3: 0.2}}))
    assert "K10" in res.occluded and "K10" in res.uncertain
    assert res.classes[K10] == OCCLUDED


def test_calls_in_a_patch_stay_occluded():
    crops = np.full((N, CROP, CROP), 0.2, np.float32)
    row = {OCCLUDED: 0.6, 0: 0.38, 3: 0.02}
    res = decided(crops, _probs({E5: row, F5: row}))
    assert {"E5", "F5"} <= set(res.occluded)
    assert res.classes[E5] == res.classes[F5] == OCCLUDED


def test_without_a_hand_near_the_occluded_share_does_not_make_a_cell_doubtful():
    crops = np.full((N, CROP, CROP), GREY, np.float32)
    row = {0: 0.5, OCCLUDED: 0.45, 2: 0.05}
    assert row[0] < RULES.min_confidence
    # a vein-streaked empty cell, no hand near: empty (0.91 without the 0.45)
    res = decided(crops, _probs({K10: row}))
    assert "K10" not in res.uncertain and res.classes[K10] == 0
    # the same reading beside a hand's patch of occluded cells stays uncertain
    hand = {OCCLUDED: 0.9, 0: 0.1}
    res = decided(crops, _probs({K10: row, CELL_NAMES.index("L10"): hand,
                                       CELL_NAMES.index("L11"): hand}))
    assert "K10" in res.uncertain and "K10" not in res.occluded


def test_the_share_does_not_confirm_a_tile_the_count_cannot_see():
    crops = np.full((N, CROP, CROP), GREY, np.float32)   # no pips to be seen
    # a "3" at 0.75 of its own, 0.94 with the occluded share: still uncertain
    res = decided(crops, _probs({K10: {3: 0.75, OCCLUDED: 0.2, 0: 0.05}}))
    assert "K10" in res.uncertain and "K10" not in res.cells


def test_a_reading_only_the_share_makes_sure_needs_the_higher_bar():
    crops = np.full((N, CROP, CROP), GREY, np.float32)
    # empty 0.5, occluded 0.2, a "2" 0.3: without the share empty has 0.625 -> uncertain
    res = decided(crops, _probs({K10: {0: 0.5, OCCLUDED: 0.2, 2: 0.3}}))
    assert "K10" in res.uncertain
    # empty 0.5, occluded 0.42, a "2" 0.08: 0.862 >= 0.8 -> empty
    assert 0.5 < RULES.min_confidence < 0.625 < RULES.unconfirmed_confidence < 0.862
    res = decided(crops, _probs({K10: {0: 0.5, OCCLUDED: 0.42, 2: 0.08}}))
    assert "K10" not in res.uncertain
