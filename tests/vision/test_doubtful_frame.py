"""A frame on which the network doubts ``doubtful_frame`` cells or more (left uncertain, not
called occluded) reports no cell as read: on such frames about one in twenty of the
readings it is sure of is wrong, and dark cells read empty there are often tiles of a
board fitted a cell off. Hands (occluded calls) do not make a frame doubtful."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from zatre_vision.vision.geometry import CELL_NAMES
from zatre_vision.vision.reading.classify import OCCLUDED

from .cell_probs import (
    DARK,
    RULES,
    TILE,
    cell_probs,
    decided,
    frame_with_doubts,
    grained_dark_crops,
)

N = len(CELL_NAMES)
#: the decision's rules at their defaults (``ReaderConfig()``), whatever numbers the
#: committed model's card has fitted: the tests pin the rules, not the fitted values
DOUBTFUL_FRAME = RULES.doubtful_frame
TILE_BRIGHT, TILE_FACE_BRIGHT = RULES.tile_bright, RULES.tile_face_bright


def test_a_few_doubtful_cells_leave_the_other_readings_alone():
    res = decided(grained_dark_crops(), frame_with_doubts(DOUBTFUL_FRAME - 1))
    assert not res.doubtful_frame
    assert res.cells == {CELL_NAMES[TILE]: 4}
    assert set(res.uncertain) == {CELL_NAMES[i] for i in DARK[:DOUBTFUL_FRAME - 1]}


def test_a_doubtful_frame_reports_no_cell_as_read():
    res = decided(grained_dark_crops(), frame_with_doubts(DOUBTFUL_FRAME))
    assert res.doubtful_frame
    assert res.cells == {}
    # the sure tile, the light x2 cells and the bare dark cells alike: nothing is
    # claimed, not even "empty", so a live tracker cannot take a tile for lifted
    assert res.uncertain == list(CELL_NAMES)   # in reading order
    assert res.occluded == []
    # the network's own classes are kept for the dashboard
    assert res.classes[TILE] == 4


def test_a_hand_does_not_make_a_frame_doubtful():
    # a hand: a block of occluded calls (more than DOUBTFUL_FRAME of them)
    hand = frame_with_doubts(DOUBTFUL_FRAME + 5, {OCCLUDED: 0.99, 0: 0.01})
    res = decided(grained_dark_crops(), hand)
    assert not res.doubtful_frame
    assert len(res.occluded) == DOUBTFUL_FRAME + 5
    assert res.cells == {CELL_NAMES[TILE]: 4}


def _random_probs(draw_seed: int, doubtful: int) -> np.ndarray:
    rng = np.random.default_rng(draw_seed)
    p = np.zeros((N, 8), np.float32)
    p[:, 0] = 1.0
    cells = rng.choice(N, size=60, replace=False)
    for k, i in enumerate(cells):
        if k < doubtful:
            a, b = rng.choice(7, size=2, replace=False)
            p[i] = 0.0
            p[i, a], p[i, b] = 0.5, 0.5
        else:
            p[i] = 0.0
            p[i, rng.integers(1, 7)] = rng.uniform(0.6, 1.0)
            p[i, 0] = 1.0 - p[i].sum()
    return p


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 25))
def test_the_rule_only_takes_readings_away(seed, doubtful):
    crops, probs = grained_dark_crops(), _random_probs(seed, doubtful)
    res = decided(crops, probs)
    # the same decision with the rule off: a config, not a patched constant
    plain = decided(crops, probs, replace(RULES, doubtful_frame=193))
    assert not plain.doubtful_frame
    # nothing reported that the plain decision did not report, with the same value
    assert res.cells.items() <= plain.cells.items()
    assert set(plain.uncertain) <= set(res.uncertain)
    assert res.occluded == plain.occluded
    assert res.doubtful_frame == (len(plain.uncertain) - len(plain.occluded) >= DOUBTFUL_FRAME)
    if res.doubtful_frame:
        assert res.cells == {}
        assert set(res.uncertain) == set(CELL_NAMES)
    else:
        assert res.cells == plain.cells and res.uncertain == plain.uncertain


@settings(max_examples=30, deadline=None)
@given(st.floats(0.3, 0.99))
def test_a_bright_dark_cell_read_empty_is_uncertain_only_below_the_bar(empty):
    """A dark cell the network reads empty whose middle is bright like a tile (blur,
    glare, bright marble on an overexposed photo) is uncertain below
    ``bright_empty_below`` of "empty", and empty from it on."""
    cell = int(DARK[5])
    crops = grained_dark_crops()
    crops[cell] = 0.8
    probs = cell_probs({cell: {0: empty, 3: 1.0 - empty}})
    res = decided(crops, probs)
    name = CELL_NAMES[cell]
    seen = float(probs[cell, 0])   # as the reader sees it (float32: 0.7 is 0.69999999)
    assert (name in res.uncertain) == (seen < RULES.bright_empty_below
                                      or seen < RULES.min_confidence)
    assert name not in res.cells


def test_bright_cells_taken_as_empty_still_count_towards_a_doubtful_frame():
    bright = DARK[:DOUBTFUL_FRAME]
    crops = grained_dark_crops()
    crops[bright] = 0.8
    rows = {int(i): {0: 0.9, 3: 0.1} for i in bright}
    rows[TILE] = {4: 0.97, 0: 0.03}
    res = decided(crops, cell_probs(rows))
    assert res.doubtful_frame and res.cells == {}
    # one fewer: the frame is read, and the bright cells are empty
    crops[bright[0]] = 0.3
    res = decided(crops, cell_probs(rows))
    assert not res.doubtful_frame
    assert res.cells == {CELL_NAMES[TILE]: 4} and res.uncertain == []


def test_on_a_sharp_photo_bright_marble_is_empty_but_still_a_doubt_about_the_frame():
    """On a clearly sharp photo a dark cell read empty is doubted as bright like a tile
    only when its middle is as even as a tile's face (``tile_face_bright``): bright
    marble, three quarters of it between ``tile_bright`` and that, is empty there. Such cells still
    count towards a doubtful frame."""
    cell = int(DARK[5])
    crops = grained_dark_crops()
    crops[cell] = (TILE_BRIGHT + TILE_FACE_BRIGHT) / 2   # marble: bright, not a tile's face
    name = CELL_NAMES[cell]
    # not clearly sharp: "empty" 0.6, sure enough but below ``bright_empty_below``
    assert name in decided(crops, cell_probs({cell: {0: 0.6, 3: 0.4}})).uncertain
    # clearly sharp: "empty" 0.3 is raised to 0.63 there (``empty_odds_sharp``), the same case
    probs = cell_probs({cell: {0: 0.3, 3: 0.7}})
    sharp = decided(crops, probs, clear=True)
    assert name not in sharp.uncertain and name not in sharp.cells  # empty
    crops[cell] = 0.95                                              # a tile's face
    assert name in decided(crops, probs, clear=True).uncertain

    bright = DARK[:DOUBTFUL_FRAME]
    crops = grained_dark_crops()
    crops[bright] = (TILE_BRIGHT + TILE_FACE_BRIGHT) / 2
    rows = {int(i): {0: 0.9, 3: 0.1} for i in bright}
    rows[TILE] = {4: 0.97, 0: 0.03}
    assert decided(crops, cell_probs(rows), clear=True).doubtful_frame
