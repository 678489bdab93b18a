"""The calibrated probabilities the decision weighs (``prob_calibration.py``): a
temperature per photo band and a log prior per band and cell kind, fitted by
``training/fit_reader.py`` and read from the model card. They replaced the hand-set odds
of "empty" (dark cells of clear photos, light cells) and the blurred photos' own bar."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from zatre_vision.vision import reader as reader_module
from zatre_vision.vision.cell_evidence import TOUCHING
from zatre_vision.vision.cells import CROP
from zatre_vision.vision.classify import CLASSES, DEFAULT_MODEL, OCCLUDED
from zatre_vision.vision.geometry import CELL_NAMES, IS_LIGHT
from zatre_vision.vision.prob_calibration import BANDS, KINDS, ProbabilityCalibration, band_of
from zatre_vision.vision.reader import (
    CLEAR_SHARPNESS,
    SHARP_ENOUGH,
    UNFITTED,
    BoardReader,
    ReaderConfig,
    card_thresholds,
)

from .cell_probs import RULES
from .cell_probs import cell_probs as _probs

N = len(CELL_NAMES)
DARK_CROPS = np.full((N, CROP, CROP), 0.2, np.float32)
#: unsure between "occluded" and "empty", as at a hand's edge
EDGE = {OCCLUDED: 0.6, 0: 0.38, 3: 0.02}
#: surely under the hand
UNDER = {OCCLUDED: 0.98, 0: 0.02}
ROWS = hnp.arrays(np.float64, (12, len(CLASSES)), elements=st.floats(0.001, 1.0))


def _prior(kind: str, band: str, empty: float) -> ProbabilityCalibration:
    """A calibration that multiplies the odds of "empty" by ``empty`` on cells of
    ``kind`` in photos of ``band``, and leaves everything else as it is."""
    b = np.zeros((len(KINDS), len(BANDS), len(CLASSES)))
    b[KINDS.index(kind), BANDS.index(band), 0] = np.log(empty)
    return ProbabilityCalibration(log_prior=tuple(tuple(tuple(r) for r in k) for k in b))


@settings(max_examples=60, deadline=None)
@given(ROWS, st.integers(0, 2))
def test_the_identity_leaves_the_probabilities_as_they_are(raw, band):
    probs = raw / raw.sum(axis=1, keepdims=True)
    out = ProbabilityCalibration.identity().apply(probs, np.zeros(len(probs), bool), band)
    assert np.allclose(out, probs, rtol=1e-9, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(ROWS, st.floats(1.1, 5.0), st.integers(0, 2))
def test_a_higher_temperature_makes_the_reading_less_sure_not_another_class(raw, t, band):
    probs = raw / raw.sum(axis=1, keepdims=True)
    temps = [1.0, 1.0, 1.0]
    temps[band] = t
    out = ProbabilityCalibration(temperature=tuple(temps)).apply(
        probs, np.zeros(len(probs), bool), band)
    assert np.allclose(out.sum(axis=1), 1.0)
    assert np.array_equal(out.argmax(axis=1), probs.argmax(axis=1))
    assert np.all(out.max(axis=1) <= probs.max(axis=1) + 1e-12)
    other = (band + 1) % 3   # another band's photos keep their probabilities
    assert np.allclose(ProbabilityCalibration(temperature=tuple(temps)).apply(
        probs, np.zeros(len(probs), bool), other), probs)


@settings(max_examples=60, deadline=None)
@given(ROWS, st.floats(1.5, 10.0))
def test_a_prior_on_empty_multiplies_its_odds_on_its_kind_and_band_only(raw, odds):
    probs = raw / raw.sum(axis=1, keepdims=True)
    light = np.arange(len(probs)) % 2 == 0
    cal = _prior("dark", "clear", odds)
    out = cal.apply(probs, light, BANDS.index("clear"))
    dark = ~light
    ratio = (out[dark, 0] / out[dark, 1]) / (probs[dark, 0] / probs[dark, 1])
    assert np.allclose(ratio, odds, rtol=1e-6)
    # the other classes keep their proportions; light cells and other bands untouched
    assert np.allclose(out[dark, 2] / out[dark, 1], probs[dark, 2] / probs[dark, 1])
    assert np.allclose(out[light], probs[light])
    assert np.allclose(cal.apply(probs, light, BANDS.index("sharp")), probs)


def test_the_card_form_round_trips_and_bad_values_are_refused():
    cal = ProbabilityCalibration((1.5, 1.1, 0.9), _prior("light", "sharp", 4.0).log_prior)
    again = ProbabilityCalibration.from_card(json.loads(json.dumps(cal.to_card())))
    assert np.allclose(again.temperature, cal.temperature)
    assert np.allclose(again.log_prior, cal.log_prior, atol=1e-4)
    with pytest.raises(ValueError, match="temperature"):
        ProbabilityCalibration((0.0, 1.0, 1.0))
    with pytest.raises(ValueError, match="log_prior"):
        ProbabilityCalibration(log_prior=((0.0,) * 8,))
    with pytest.raises(ValueError, match="unusable"):
        ProbabilityCalibration.from_card({"temperature": {"blurred": 1.0}})


def test_the_band_follows_the_sharpness_bars():
    assert band_of(SHARP_ENOUGH - 1e-3, SHARP_ENOUGH, CLEAR_SHARPNESS) == 0
    assert band_of(SHARP_ENOUGH, SHARP_ENOUGH, CLEAR_SHARPNESS) == 1
    assert band_of(CLEAR_SHARPNESS, SHARP_ENOUGH, CLEAR_SHARPNESS) == 2


def _patch(edge_light: bool) -> tuple[list[int], int, np.ndarray]:
    """A hand's patch: a cell and all cells touching it surely hidden but one, at the
    hand's edge, of the kind asked for."""
    for centre in range(N):
        for j in np.flatnonzero(TOUCHING[centre]):
            if IS_LIGHT[j] == edge_light:
                under = [centre] + [int(k) for k in np.flatnonzero(TOUCHING[centre])
                                    if k != j]
                return under, int(j), _probs({**{k: UNDER for k in under}, int(j): EDGE})
    raise AssertionError("no patch")


def test_a_prior_on_empty_reads_a_bare_cell_at_a_hands_edge_on_its_band_only():
    """The case the hand-set EMPTY_ODDS_SHARP was for: the network under-weights
    "empty", so a bare dark cell at a hand's edge is called occluded. A prior raising
    "empty" on dark cells of clear photos reads it empty there, and nowhere else."""
    reader = BoardReader(config=replace(RULES, calibration=_prior("dark", "clear", 4.0)))
    under, edge, probs = _patch(edge_light=False)
    plain = reader.decide(DARK_CROPS, probs)
    assert CELL_NAMES[edge] in plain.occluded   # called occluded on a middling photo
    clear = reader.decide(DARK_CROPS, probs, clear=True)
    assert CELL_NAMES[edge] not in clear.uncertain and clear.classes[edge] == 0
    assert {CELL_NAMES[j] for j in under} <= set(clear.occluded)  # the hand stays
    # a light cell there keeps the network's reading
    _, edge, probs = _patch(edge_light=True)
    res = reader.decide(DARK_CROPS, probs, clear=True)
    assert CELL_NAMES[edge] in res.occluded and CELL_NAMES[edge] in res.uncertain
    # the result reports the network's own probabilities
    assert np.array_equal(res.probabilities, probs)


def test_read_calibrates_by_the_photos_band(photos, reader, monkeypatch):
    seen = []
    decide = reader_module.BoardReader.decide

    def spy(self, cr, probs, blurred=False, clear=False, counts=None):
        seen.append((blurred, clear))
        return decide(self, cr, probs, blurred=blurred, clear=clear, counts=counts)

    monkeypatch.setattr(reader_module.BoardReader, "decide", spy)
    sharp = reader.read(cv2.imread(str(photos["full"][0])))
    assert sharp.sharpness >= CLEAR_SHARPNESS and seen[-1] == (False, True)
    middling = reader.read(cv2.imread(str(photos["some"][0])))
    assert SHARP_ENOUGH <= middling.sharpness < CLEAR_SHARPNESS
    assert seen[-1] == (False, False)


def test_the_reader_takes_its_numbers_from_the_models_card(tmp_path):
    values, cal = card_thresholds(DEFAULT_MODEL)
    card = json.loads(DEFAULT_MODEL.with_suffix(".onnx.json").read_text())
    assert "fit_reader" in card["reader_thresholds"]["fitted_by"]
    # fitted for this very model: after a retrain, run fit_reader again
    from zatre_vision.training.fit_reader import model_digest

    assert card["reader_thresholds"]["fit"]["model_sha256_16"] == model_digest(DEFAULT_MODEL)
    assert cal is not None and set(values) == set(UNFITTED)
    default = ReaderConfig()
    assert all(getattr(default, k) == v for k, v in values.items())
    assert default.calibration == cal
    # a model whose card has no fitted numbers: the network's own probabilities
    bare = tmp_path / "pips.onnx"
    shutil.copy(DEFAULT_MODEL, bare)
    card.pop("reader_thresholds")
    (tmp_path / "pips.onnx.json").write_text(json.dumps(card))
    plain = BoardReader(bare, board_model_path=None).config
    assert plain.calibration == ProbabilityCalibration.identity()
    assert all(getattr(plain, k) == v for k, v in UNFITTED.items())
    # every field has bounds or is an object, and a line saying what it does
    assert all(": " in line and line.split(": ", 1)[1] for line in ReaderConfig.describe())
    with pytest.raises(ValueError, match="min_confidence"):
        ReaderConfig(min_confidence=1.5)


def test_a_tables_own_head_is_weighed_as_it_is():
    """The card's calibration is the base network's: probabilities from a table's own
    head (``zatre calibrate tiles``) are not tempered with it."""
    hot = ProbabilityCalibration(temperature=(3.0, 3.0, 3.0))
    reader = BoardReader(config=replace(RULES, calibration=hot), board_model_path=None)
    crops = np.full((N, CROP, CROP), 0.5, np.float32)   # neither bare board nor a tile
    cell = CELL_NAMES.index("K10")
    probs = _probs({cell: {0: 0.8, 2: 0.1, 3: 0.1}})
    assert "K10" in reader.decide(crops, probs).uncertain          # tempered: 0.8 -> unsure
    reader.classifier.adaptation = object()   # what tile_adapt.attach sets
    assert "K10" not in reader.decide(crops, probs).uncertain      # as it is: sure enough
