"""The reader on real rendered photos: location accuracy, cells, hands, empty and full."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zatre_vision.vision.geometry import CELL_NAMES


def _corner_error_cells(res, truth) -> float:
    err = np.linalg.norm(np.array(res.corners) - np.array(truth["corners"]), axis=1).max()
    return float(err / res.model.cell_size_px())


@pytest.mark.parametrize(("kind", "tolerance"),
                         [("empty", 0.25), ("some", 0.25), ("hand", 0.25),
                          # a full board hides the lines: the fit follows the tile tops,
                          # which parallax shifts by ~0.1 cell, and the corners are
                          # extrapolated beyond the cross
                          ("full", 0.35)])
def test_corners_within_a_fraction_of_a_cell(photos, reader, kind, tolerance):
    path, truth = photos[kind]
    res = reader.read(cv2.imread(str(path)))
    assert res.board_found
    assert _corner_error_cells(res, truth) < tolerance


def test_empty_board_has_no_tiles(photos, reader):
    res = reader.read(cv2.imread(str(photos["empty"][0])))
    assert res.cells == {}
    assert len(res.uncertain) <= 2


def test_full_board(photos, reader):
    path, truth = photos["full"]
    res = reader.read(cv2.imread(str(path)))
    wrong = [n for n, v in res.cells.items() if truth["cells"][n] != v]
    assert not wrong
    assert len(res.cells) >= 0.95 * 193


def test_hand_over_board(photos, reader):
    path, truth = photos["hand"]
    res = reader.read(cv2.imread(str(path)))
    hidden = set(truth["hidden"])
    assert hidden, "the test photo should have a hand over the board"
    # a hidden cell read anyway is read right (the tile shows past the hand's edge),
    # and most hidden cells are flagged
    assert all(res.cells[n] == truth["cells"].get(n, 0) for n in hidden & set(res.cells))
    assert len(hidden & set(res.uncertain)) >= 0.8 * len(hidden)
    visible = {n: v for n, v in truth["cells"].items() if n not in hidden}
    right = sum(res.cells.get(n) == v for n, v in visible.items())
    assert right >= 0.9 * len(visible)
    assert set(res.occluded) <= set(res.uncertain)


def test_per_cell_outputs_for_the_tracker(photos, reader):
    from zatre_vision.vision.reading.classify import OCCLUDED

    res = reader.read(cv2.imread(str(photos["some"][0])))
    assert res.probabilities.shape == (193, 8)
    assert np.allclose(res.probabilities.sum(axis=1), 1, atol=1e-5)
    assert res.classes.shape == (193,)
    # row i is the cell CELL_NAMES[i]: the cells read are their rows' classes, and the
    # cells called occluded the rows of the occluded class
    assert res.cells and all(res.classes[CELL_NAMES.index(n)] == v
                             for n, v in res.cells.items())
    assert [n for n, c in zip(CELL_NAMES, res.classes, strict=True) if c == OCCLUDED] \
        == sorted(res.occluded, key=CELL_NAMES.index)


def test_large_and_small_frames(photos, reader):
    img = cv2.imread(str(photos["some"][0]))
    small = reader.read(cv2.resize(img, (640, 480), interpolation=cv2.INTER_AREA))
    assert small.board_found
    big = reader.read(cv2.resize(img, (1920, 1440)))
    assert big.board_found
    ref = reader.read(img)
    assert np.allclose(np.array(big.corners) / 2, np.array(ref.corners), atol=2.0)


def test_a_bright_square_looks_like_a_tile_but_bright_veins_do_not():
    from zatre_vision.vision.reader import ReaderConfig
    from zatre_vision.vision.reading.cell_evidence import looks_like_tiles

    yy, xx = np.mgrid[0:24, 0:24]
    blurred_tile = np.full((24, 24), 0.1, np.float32)
    blurred_tile[3:21, 3:21] = 0.85                      # a tile, pips blurred away
    veins = np.where((xx + yy) % 6 < 4, 0.9, 0.05).astype(np.float32)  # 2/3 bright streaks
    dark_cell = np.full((24, 24), 0.08, np.float32)
    bar = ReaderConfig().tile_bright
    assert looks_like_tiles(np.stack([blurred_tile, veins, dark_cell]), bar).tolist() == \
        [True, False, False]


def test_dark_empty_cells_too_dark_for_a_tile_are_not_read_again(photos, reader):
    """Given the crops, a doubtful dark cell read empty whose middle is too dark for a
    tile keeps its first reading (``decide`` takes it as bare board anyway); the other
    doubtful cells are read again as before."""
    from zatre_vision.vision.geometry import IS_LIGHT
    from zatre_vision.vision.reading.cell_evidence import too_dark_for_a_tile
    from zatre_vision.vision.reading.cells import crops, model_maps, normalise, rectify_board
    from zatre_vision.vision.reading.measure import steadied

    img = cv2.imread(str(photos["hand"][0]))
    res = reader.read(img)
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    board = normalise(rectify_board(grey, model_maps(res.model), res.model.cell_size_px()))
    cr = crops(board)
    first = reader.classifier.probabilities(cr, np.arange(len(CELL_NAMES)))
    # make some cells doubtful dark empties, as a shadow would
    dark = np.flatnonzero(~IS_LIGHT & too_dark_for_a_tile(cr))[:6]
    assert len(dark) == 6
    first[dark] = 0.0
    first[dark, 0] = 0.6
    first[dark, 3] = 0.4
    recheck = reader.config.recheck_below
    all_again = steadied(reader.classifier, board, first, recheck_below=recheck)
    skipped = steadied(reader.classifier, board, first, cr, recheck)
    doubtful = first.max(axis=1) < recheck
    bare = doubtful & (first.argmax(axis=1) == 0) & ~IS_LIGHT & too_dark_for_a_tile(cr)
    assert bare[dark].all()
    assert np.array_equal(skipped[bare], first[bare])
    assert not np.allclose(all_again[dark], first[dark])
    others = doubtful & ~bare
    assert others.any()
    # (the same readings in a smaller batch: equal but for float rounding)
    assert np.allclose(skipped[others], all_again[others], atol=1e-5)
    assert np.array_equal(skipped[~doubtful], first[~doubtful])


def test_doubtful_cells_are_read_again_from_crops_a_pixel_away_and_turned(photos, reader):
    from zatre_vision.vision.reading.cells import (
        CROP_ORIGINS,
        crops,
        model_maps,
        normalise,
        oriented,
        rectify_board,
    )
    from zatre_vision.vision.reading.measure import ORIENTATIONS, SHIFTS, steadied

    img = cv2.imread(str(photos["hand"][0]))
    res = reader.read(img)
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    board = normalise(rectify_board(grey, model_maps(res.model), res.model.cell_size_px()))
    first = reader.classifier.probabilities(crops(board), np.arange(len(CELL_NAMES)))
    recheck = reader.config.recheck_below
    steady = steadied(reader.classifier, board, first, recheck_below=recheck)
    doubtful = first.max(axis=1) < recheck
    assert doubtful.any(), "a hand over the board leaves some cells in doubt"
    # sure cells keep their reading; a doubtful cell gets the mean of nine readings,
    # each moved crop shown in another orientation
    assert np.array_equal(steady[~doubtful], first[~doubtful])
    assert sorted(ORIENTATIONS) == list(range(8))
    j = int(np.flatnonzero(doubtful)[0])
    nine = [first[j]] + [reader.classifier.probabilities(
        oriented(crops(board, CROP_ORIGINS[j:j + 1] + s), k), [j])[0]
        for s, k in zip(SHIFTS, ORIENTATIONS, strict=True)]
    assert np.allclose(steady[j], np.mean(nine, axis=0), atol=1e-6)
    unturned = [first[j]] + [reader.classifier.probabilities(
        crops(board, CROP_ORIGINS[j:j + 1] + s), [j])[0] for s in SHIFTS]
    assert not np.allclose(steady[j], np.mean(unturned, axis=0), atol=1e-4)
    assert np.allclose(steady.sum(axis=1), 1, atol=1e-5)
    # and the reader decides on the steadied readings (given the crops: bare dark cells
    # are not read again)
    assert np.allclose(res.probabilities,
                       steadied(reader.classifier, board, first, crops(board), recheck),
                       atol=1e-5)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_the_eight_orientations_are_the_turns_and_mirrors_of_a_square(seed):
    from zatre_vision.vision.reading.cells import oriented

    crop = np.random.default_rng(seed).random((1, 6, 6)).astype(np.float32)
    views = [oriented(crop, k)[0] for k in range(8)]
    assert np.array_equal(views[0], crop[0])
    # all eight differ on a crop with no symmetry, and each keeps the same pixels
    assert len({v.tobytes() for v in views}) == 8
    assert all(np.array_equal(np.sort(v, axis=None), np.sort(crop, axis=None)) for v in views)
    # they are exactly the group of the square: turns and mirrored turns
    group = [np.rot90(crop[0], q) for q in range(4)] + [np.rot90(crop[0], q)[:, ::-1]
                                                        for q in range(4)]
    assert all(any(np.array_equal(v, gv) for gv in group) for v in views)


@pytest.mark.parametrize("name", ["empty", "some", "full", "hand"])
def test_sharpness_of_the_board_falls_with_blur_and_marks_blurred_photos(photos, reader, name):
    img = cv2.imread(str(photos[name][0]))
    seen = []
    for sigma in (0, 1, 2):
        blurred = img if sigma == 0 else cv2.GaussianBlur(img, (0, 0), sigma)
        res = reader.read(blurred)
        assert res.board_found
        seen.append(res.sharpness)
    assert seen[0] > seen[1] > seen[2]
    assert seen[0] >= reader.config.sharp_enough > seen[2]


def test_a_blurred_photo_needs_the_higher_bar():
    from zatre_vision.vision.reading.cells import CROP
    from zatre_vision.vision.reading.classify import CLASSES

    from .cell_probs import RULES, decided

    assert RULES.blurred_confidence > RULES.min_confidence
    mid = (RULES.min_confidence + RULES.blurred_confidence) / 2
    p = np.zeros((193, len(CLASSES)), np.float32)
    p[:, 0] = 1.0
    j = CELL_NAMES.index("K10")   # a dark cell, its crop grey: neither bare board nor a tile
    p[j] = 0.0
    p[j, 0], p[j, 2] = mid, 1 - mid
    crops = np.full((193, CROP, CROP), 0.5, np.float32)
    assert "K10" not in decided(crops, p).uncertain
    assert "K10" in decided(crops, p, blurred=True).uncertain


def test_the_reader_config_is_typed_bounded_and_the_reader_reads_by_it(photos):
    """The reader reads by the config it is given, and by a config set on it later: a
    frame with a hand over the board is read under the default hold-back and held back
    (no cell reported) once ``doubtful_frame`` is set to 1."""
    from dataclasses import replace

    from zatre_vision.vision.reader import BoardReader, ReaderConfig

    lines = ReaderConfig.describe()
    assert all(": " in line and line.split(": ", 1)[1] for line in lines)
    with pytest.raises(ValueError, match="min_confidence"):
        ReaderConfig(min_confidence=1.5)
    img = cv2.imread(str(photos["hand"][0]))
    plain = BoardReader().read(img)
    assert not plain.doubtful_frame and plain.cells
    strict = BoardReader(config=replace(ReaderConfig(), doubtful_frame=1)).read(img)
    assert strict.doubtful_frame and strict.cells == {}
    assert sorted(strict.uncertain) == sorted(CELL_NAMES)
    # one way in: the config. The older keyword arguments are refused, and the reader
    # has no attribute beside its config that could disagree with it
    reader = BoardReader()
    with pytest.raises(TypeError, match="light_empty_odds"):
        BoardReader(light_empty_odds=1.0)
    assert not any(hasattr(reader, name) for name in (
        "min_confidence", "blurred_confidence", "veto_confidence", "unconfirmed_confidence",
        "light_empty_odds", "print_proof"))
    # a config set on a reader in use is the one its next read follows
    reader.config = replace(reader.config, doubtful_frame=1)
    again = reader.read(img)
    assert again.doubtful_frame and again.cells == {}


def test_the_model_card_lists_the_model_dependent_thresholds_in_use():
    import json

    from zatre_vision.vision.reader import BoardReader, ReaderConfig
    from zatre_vision.vision.reading.classify import DEFAULT_MODEL

    card = json.loads(DEFAULT_MODEL.with_suffix(".onnx.json").read_text())
    entry = card["reader_thresholds"]
    assert set(ReaderConfig.MODEL_DEPENDENT) <= set(entry["values"])
    # the reader in use is the one the card gives
    assert BoardReader().config == ReaderConfig.from_card(card)
