"""The classical pip count: counts clean pips, abstains on blobs that are not pips,
and the reader doubts a tile it cannot confirm unless the CNN is sure."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from zatre_vision.vision.geometry import CELL_NAMES
from zatre_vision.vision.reading.cells import CROP
from zatre_vision.vision.reading.classify import CLASSES
from zatre_vision.vision.reading.pips import CANNOT_TELL, NOT_CHECKED, count_all, count_pips

from .cell_probs import RULES, decided

#: die layouts: pip positions in units of the pip spacing, around the tile centre
LAYOUTS = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
           4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
           5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
           6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}
SPACING = 5   # px at 20 px per cell (a quarter cell)


def tile_crop(pips: int, dx: int = 0, dy: int = 0, background: float = 0.3) -> np.ndarray:
    """A normalised crop: a bright tile 0.8 cell wide (moved by dx, dy) on a dark cell,
    with round dark pips in the die layout."""
    img = np.full((CROP * 8, CROP * 8), background, np.float32)     # drawn 8x finer
    c = CROP * 4
    half = 8 * 8
    cv2.rectangle(img, (c + 8 * dx - half, c + 8 * dy - half),
                  (c + 8 * dx + half, c + 8 * dy + half), 0.95, -1)
    for px, py in LAYOUTS.get(pips, []):
        cv2.circle(img, (c + 8 * (dx + px * SPACING), c + 8 * (dy + py * SPACING)), 13,
                   0.1, -1, lineType=cv2.LINE_AA)
    return cv2.resize(img, (CROP, CROP), interpolation=cv2.INTER_AREA)


@settings(max_examples=60, deadline=None)
@given(pips=st.integers(1, 6), dx=st.integers(-2, 2), dy=st.integers(-2, 2),
       background=st.floats(0.05, 0.45))
def test_clean_pips_are_counted_wherever_the_tile_sits(pips, dx, dy, background):
    assert count_pips(tile_crop(pips, dx, dy, background)) == pips


def test_no_tile_and_a_blank_tile_count_zero():
    assert count_pips(np.full((CROP, CROP), 0.2, np.float32)) == 0
    assert count_pips(tile_crop(0)) == 0


def test_streaked_or_merged_pips_are_not_counted():
    streak = tile_crop(0)
    streak[8:16, 11:13] = 0.1                      # one pip smeared into a line
    assert count_pips(streak) == CANNOT_TELL
    merged = tile_crop(0)
    merged[10:13, 8:16] = 0.1                      # two pips run together
    assert count_pips(merged) == CANNOT_TELL
    # the old counter ignored such blobs and counted the rest: a confident wrong count
    half = tile_crop(2)
    half[13:15, 6:10] = 0.1
    assert count_pips(half) == CANNOT_TELL


def test_count_all_checks_only_the_selected_crops():
    batch = np.stack([tile_crop(3), tile_crop(5), tile_crop(6)])
    out = count_all(batch, np.array([True, False, True]))
    assert out.tolist() == [3, NOT_CHECKED, 6]


def _probs(cls: int, conf: float) -> np.ndarray:
    p = np.full((193, len(CLASSES)), 0.0, np.float32)
    p[:, 0] = 1.0
    p[0] = (1 - conf) / (len(CLASSES) - 1)
    p[0, cls] = conf
    return p


def test_reader_doubts_a_tile_the_count_cannot_confirm_unless_the_cnn_is_sure():
    crops = np.stack([np.full((CROP, CROP), 0.2, np.float32)] * 193)
    name = CELL_NAMES[0]
    # a clean four, read 4 at 0.75: the count confirms it
    crops[0] = tile_crop(4)
    assert decided(crops, _probs(4, 0.75)).cells.get(name) == 4
    # ... read 5 at 0.75: the count disagrees
    assert name in decided(crops, _probs(5, 0.75)).uncertain
    # a streaked tile: the count sees a tile but cannot tell its pips; the floor plus a
    # margin is enough on a sharp photo (0.65), the unconfirmed bar (0.8) on a blurred one
    assert RULES.min_confidence + RULES.uncounted_margin < 0.7 < RULES.unconfirmed_confidence
    streak = tile_crop(0)
    streak[6:18, 11:13] = 0.1
    crops[0] = streak
    assert count_pips(streak) == CANNOT_TELL
    assert name in decided(crops, _probs(3, 0.6)).uncertain
    assert decided(crops, _probs(3, 0.75)).cells.get(name) == 3
    assert name in decided(crops, _probs(3, 0.75), blurred=True).uncertain
    assert decided(crops, _probs(3, 0.85), blurred=True).cells.get(name) == 3
    # no tile to be seen where the CNN reads one, not quite sure: uncertain
    crops[0] = np.full((CROP, CROP), 0.2, np.float32)
    assert name in decided(crops, _probs(2, 0.75)).uncertain


def test_a_dark_cell_too_dark_for_a_tile_is_empty_even_when_the_cnn_hesitates(reader):
    from zatre_vision.vision.geometry import IS_LIGHT
    from zatre_vision.vision.reading.cell_evidence import too_dark_for_a_tile

    assert too_dark_for_a_tile(np.stack([np.full((CROP, CROP), 0.2, np.float32)]))[0]
    assert not too_dark_for_a_tile(np.stack([tile_crop(k) for k in range(1, 7)])).any()
    dark = next(i for i in range(193) if not IS_LIGHT[i])
    light = next(i for i in range(193) if IS_LIGHT[i])
    p = np.zeros((193, len(CLASSES)), np.float32)
    p[:, 0] = 1.0
    p[[dark, light]] = 0.0
    p[[dark, light], 0] = 0.5
    p[[dark, light], 2] = 0.45
    p[[dark, light], 7] = 0.05
    crops = np.stack([np.full((CROP, CROP), 0.2, np.float32)] * 193)
    res = decided(crops, p, reader.config)
    assert CELL_NAMES[dark] not in res.uncertain       # bare dark board
    # light cells: brightness says nothing (without their own raised odds of "empty",
    # test_light_empty_odds.py, the hesitation stands)
    unraised = decided(crops, p, replace(reader.config, light_empty_odds=1.0))
    assert CELL_NAMES[dark] not in unraised.uncertain
    assert CELL_NAMES[light] in unraised.uncertain
    crops[dark] = tile_crop(0, background=0.2)         # a blank bright square there
    assert CELL_NAMES[dark] in decided(crops, p, reader.config).uncertain


def hollow_crop(pips: int, speck: tuple[int, int] | None = None) -> np.ndarray:
    """A tile whose pips are hollow with a highlight inside: each keeps only a 2 x 1
    dark sliver at 20 px a cell (the outside renderer's glossy sixes)."""
    crop = tile_crop(0)
    c = CROP // 2
    for px, py in LAYOUTS[pips]:
        x, y = c + px * SPACING, c + py * SPACING
        crop[y, x - 1:x + 1] = 0.1
    if speck is not None:
        crop[speck[1], speck[0]:speck[0] + 2] = 0.1
    return crop


def test_hollow_pips_with_a_highlight_are_counted():
    for pips in range(1, 7):
        assert count_pips(hollow_crop(pips)) == pips


def test_a_speck_that_breaks_the_faces_symmetry_is_not_counted():
    # a two-pixel speck beside a one's big pip would make it a two
    one = tile_crop(1)
    one[7, 6:8] = 0.1
    assert count_pips(one) == CANNOT_TELL
    # ... and beside the slivers of a four it would make a five
    assert count_pips(hollow_crop(4, speck=(15, 12))) == CANNOT_TELL


def test_a_sure_count_vetoes_however_sure_the_network_is(reader):
    """The found failure: a six read as a four at 0.975, never cross-checked."""
    crops = np.stack([np.full((CROP, CROP), 0.2, np.float32)] * 193)
    name = CELL_NAMES[0]
    crops[0] = hollow_crop(6)
    for conf in (0.75, 0.975, 0.999):
        res = decided(crops, _probs(4, conf), reader.config)
        assert name in res.uncertain and name not in res.cells
    # the count agreeing leaves a sure reading alone, and so does one a pip away (the
    # counter's own errors: a speck, two pips merged), or any count on a blurred photo
    assert decided(crops, _probs(6, 0.999), reader.config).cells.get(name) == 6
    assert decided(crops, _probs(5, 0.999), reader.config).cells.get(name) == 5
    assert decided(crops, _probs(4, 0.999), reader.config, blurred=True).cells.get(name) == 4


def test_a_second_reading_never_settles_a_vetoed_cell(reader):
    from zatre_vision.vision.reading.decide import vetoed

    crops = np.stack([np.full((CROP, CROP), 0.2, np.float32)] * 193)
    crops[0] = hollow_crop(6)
    res = decided(crops, _probs(4, 0.99), reader.config)
    assert vetoed(res, 0, 4) and not vetoed(res, 0, 6)
