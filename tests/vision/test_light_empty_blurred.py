"""On a blurred photo a light x2 cell read empty needs RULES.light_empty_blurred of the
network's own probability of "empty": a blurred tile there looks like the bare cell.
Dark cells, sharp photos and sure readings are decided as before."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from zatre_vision.vision.cells import CROP
from zatre_vision.vision.geometry import CELL_NAMES, IS_LIGHT

from .cell_probs import RULES
from .cell_probs import cell_probs as _probs


@pytest.fixture(scope="module")
def reader(rules_reader):
    """The rules on their own (``cell_probs.RULES``)."""
    return rules_reader

N = len(CELL_NAMES)
LIGHT = int(np.flatnonzero(IS_LIGHT)[3])
DARK = int(np.flatnonzero(~IS_LIGHT)[40])
#: a plain bright square, as a bare light cell or a blurred tile looks
BRIGHT = 0.8


def _crops(*bright: int) -> np.ndarray:
    """A dark board (its cells read empty are bare board) with ``bright`` cells plain
    bright squares."""
    crops = np.full((N, CROP, CROP), 0.3, np.float32)
    crops[list(bright)] = BRIGHT
    return crops


@settings(max_examples=40, deadline=None)
@given(st.floats(0.72, 0.99), st.sampled_from([2, 5]))
@example(RULES.light_empty_blurred - 1e-4, 2)  # just either side of the bar
@example(RULES.light_empty_blurred + 1e-4, 5)
def test_a_light_cell_read_empty_on_a_blurred_photo_needs_the_higher_bar(reader, empty, rival):
    # the decision weighs calibrated probabilities in float64 (a round trip through
    # logarithms): the bar itself is left out
    assume(abs(float(np.float32(empty)) - RULES.light_empty_blurred) > 1e-6)
    crops = _crops(LIGHT, DARK)
    row = {0: empty, rival: 1.0 - empty}
    probs = _probs({LIGHT: row, DARK: row})
    blurred = reader.decide(crops, probs, blurred=True)
    light, dark = CELL_NAMES[LIGHT], CELL_NAMES[DARK]
    # both are above the blurred floor (0.7): sure but for the new bar
    assert (light in blurred.uncertain) == bool(np.float32(empty) < RULES.light_empty_blurred)
    assert light not in blurred.cells
    # a dark cell is not concerned (a bright square there is a tile: looks_like_tiles)
    assert (dark in blurred.uncertain) == (dark in reader.decide(
        crops, probs, blurred=False).uncertain)
    # on a sharp photo the light cell is empty from the ordinary floor on
    sharp = reader.decide(crops, probs, blurred=False)
    assert light not in sharp.uncertain and light not in sharp.cells


def test_tiles_on_light_cells_of_a_blurred_photo_are_not_affected(reader):
    crops = _crops(*np.flatnonzero(IS_LIGHT))
    probs = _probs({LIGHT: {4: 0.97, 0: 0.03}})
    res = reader.decide(crops, probs, blurred=True)
    assert res.cells.get(CELL_NAMES[LIGHT]) == 4
    # the other light cells, read empty at 1.0, stay empty
    assert not (set(res.uncertain) & {CELL_NAMES[i] for i in np.flatnonzero(IS_LIGHT)})
