"""On a blurred photo a light x2 cell read empty needs ``light_empty_blurred`` of the
network's own probability of "empty": a blurred tile there looks like the bare cell.
Dark cells, sharp photos and sure readings are decided as before."""

from __future__ import annotations

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from zatre_vision.vision.geometry import CELL_NAMES, IS_LIGHT
from zatre_vision.vision.reading.cells import CROP

from .cell_probs import RULES, decided
from .cell_probs import cell_probs as _probs

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
@example(RULES.light_empty_blurred, 2)  # the bar itself, where numpy 1.x and 2 differ
def test_a_light_cell_read_empty_on_a_blurred_photo_needs_the_higher_bar(reader, empty, rival):
    crops = _crops(LIGHT, DARK)
    row = {0: empty, rival: 1.0 - empty}
    probs = _probs({LIGHT: row, DARK: row})
    blurred = decided(crops, probs, reader.config, blurred=True)
    light, dark = CELL_NAMES[LIGHT], CELL_NAMES[DARK]
    # both are above the blurred floor (0.7): sure but for the new bar
    # the probability and the bar as decide compares them, the reader's probabilities
    # being float32: the whole column at once, so both numpy 1.x (the Pi's, make test-pi)
    # and numpy 2 compare in float32 (at exactly the bar, 0.9, not below it); a scalar
    # float32(0.9) < 0.9 would be True on numpy 1.x (compared in float64)
    bar = np.float32(reader.config.light_empty_blurred)
    assert (light in blurred.uncertain) == bool(np.float32(empty) < bar)
    assert light not in blurred.cells
    # a dark cell is not concerned (a bright square there is a tile: looks_like_tiles)
    assert (dark in blurred.uncertain) == (dark in decided(
        crops, probs, reader.config, blurred=False).uncertain)
    # on a sharp photo the light cell is empty from the ordinary floor on
    sharp = decided(crops, probs, reader.config, blurred=False)
    assert light not in sharp.uncertain and light not in sharp.cells


def test_tiles_on_light_cells_of_a_blurred_photo_are_not_affected(reader):
    crops = _crops(*np.flatnonzero(IS_LIGHT))
    probs = _probs({LIGHT: {4: 0.97, 0: 0.03}})
    res = decided(crops, probs, reader.config, blurred=True)
    assert res.cells.get(CELL_NAMES[LIGHT]) == 4
    # the other light cells, read empty at 1.0, stay empty
    assert not (set(res.uncertain) & {CELL_NAMES[i] for i in np.flatnonzero(IS_LIGHT)})
