"""On a clearly sharp photo a dark cell's odds of "empty" are raised
(``ReaderConfig.empty_odds_sharp``): training under-weights empty cells, so bare cells at a
hand's edge were called occluded. Light x2 cells and blurred photos are left alone."""

from __future__ import annotations

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from zatre_vision.vision import reader as reader_module
from zatre_vision.vision.geometry import CELL_NAMES, IS_LIGHT
from zatre_vision.vision.reading.cell_evidence import TOUCHING, empty_odds_raised
from zatre_vision.vision.reading.cells import CROP
from zatre_vision.vision.reading.classify import CLASSES, OCCLUDED
from zatre_vision.vision.reading.decide import Photo

from .cell_probs import RULES, decided
from .cell_probs import cell_probs as _probs

N = len(CELL_NAMES)
EMPTY_ODDS_SHARP = RULES.empty_odds_sharp
DARK_CROPS = np.full((N, CROP, CROP), 0.2, np.float32)
#: unsure between "occluded" and "empty", as at a hand's edge
EDGE = {OCCLUDED: 0.6, 0: 0.38, 3: 0.02}
#: surely under the hand
UNDER = {OCCLUDED: 0.98, 0: 0.02}


def _touching(i: int, light: bool) -> int:
    """A cell touching cell ``i`` whose kind is light x2 (or dark)."""
    for j in np.flatnonzero(TOUCHING[i]):
        if IS_LIGHT[j] == light:
            return int(j)
    raise AssertionError("no such neighbour")


def _patch(edge_light: bool) -> tuple[list[int], int, np.ndarray]:
    """A hand's patch: a cell and all cells touching it surely hidden but one, at the
    hand's edge, of the kind asked for."""
    for centre in range(N):
        try:
            edge = _touching(centre, edge_light)
        except AssertionError:
            continue
        under = [centre] + [int(j) for j in np.flatnonzero(TOUCHING[centre]) if j != edge]
        return under, edge, _probs({**{j: UNDER for j in under}, edge: EDGE})
    raise AssertionError("no patch")


@settings(max_examples=80, deadline=None)
@given(hnp.arrays(np.float64, (N, len(CLASSES)), elements=st.floats(0.001, 1.0)))
def test_raised_odds_keep_rows_whole_and_touch_only_the_empty_class_of_dark_cells(raw):
    probs = (raw / raw.sum(axis=1, keepdims=True)).astype(np.float32)
    out = empty_odds_raised(probs, ~IS_LIGHT, EMPTY_ODDS_SHARP)
    assert np.allclose(out.sum(axis=1), 1.0, atol=1e-5)
    assert np.array_equal(out[IS_LIGHT], probs[IS_LIGHT])
    dark = ~IS_LIGHT
    odds_before = probs[dark, 0] / (1 - probs[dark, 0])
    odds_after = out[dark, 0] / (1 - out[dark, 0])
    assert np.allclose(odds_after / odds_before, EMPTY_ODDS_SHARP, rtol=1e-3)
    # the other classes keep their proportions
    assert np.allclose(out[dark, 1:] / out[dark, 1:2], probs[dark, 1:] / probs[dark, 1:2],
                       rtol=1e-3)


def test_a_dark_cell_at_a_hands_edge_is_read_empty_on_a_clear_photo(reader):
    under, edge, probs = _patch(edge_light=False)
    plain = decided(DARK_CROPS, probs, reader.config)
    assert CELL_NAMES[edge] in plain.occluded   # called occluded, as before
    clear = decided(DARK_CROPS, probs, reader.config, clear=True)
    assert CELL_NAMES[edge] not in clear.uncertain and clear.classes[edge] == 0
    assert {CELL_NAMES[j] for j in under} <= set(clear.occluded)  # the hand stays


def test_a_light_cell_at_a_hands_edge_stays_occluded_on_a_clear_photo(reader):
    _, edge, probs = _patch(edge_light=True)
    res = decided(DARK_CROPS, probs, reader.config, clear=True)
    assert CELL_NAMES[edge] in res.occluded and CELL_NAMES[edge] in res.uncertain


def test_read_raises_the_odds_only_on_a_clearly_sharp_photo(photos, reader, monkeypatch):
    seen = []
    decide = reader_module.decide

    def spy(evidence, config):
        photo = Photo.of(evidence, config)
        seen.append((photo.blurred, photo.clear))
        return decide(evidence, config)

    monkeypatch.setattr(reader_module, "decide", spy)
    cfg = reader.config
    sharp = reader.read(cv2.imread(str(photos["full"][0])))
    assert sharp.sharpness >= cfg.clear_sharpness and seen[-1] == (False, True)
    middling = reader.read(cv2.imread(str(photos["some"][0])))
    assert cfg.sharp_enough <= middling.sharpness < cfg.clear_sharpness
    assert seen[-1] == (False, False)
