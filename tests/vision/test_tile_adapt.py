"""The numpy head of ``tile_adapt``: it learns a correction of the base logits, keeps
the occluded class as the base network has it, and its file round-trips."""

from __future__ import annotations

import json

import numpy as np
import pytest

from zatre_vision.vision.reading.classify import OCCLUDED, PipClassifier, softmax
from zatre_vision.vision.reading.tile_adapt import Samples, TileAdaptation, TilesError, attach


def _samples(n: int = 600, seed: int = 0) -> Samples:
    """Features that tell the class; base logits that confuse 4 with 6 (the pips of a
    set the base network never saw)."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 7, n)
    centres = np.random.default_rng(99).normal(0, 1, (7, 96))  # the same set of tiles
    features = np.abs(centres[labels] + rng.normal(0, 0.3, (n, 96)))
    logits = np.zeros((n, 8))
    logits[np.arange(n), labels] = 4.0
    swap = labels == 4
    logits[swap, 4], logits[swap, 6] = 0.0, 4.0
    return Samples(logits, features, labels, rng.integers(0, 193, n))


def test_the_head_corrects_the_values_and_leaves_empty_and_occluded_alone():
    train, test = _samples(seed=1), _samples(seed=2)
    assert (softmax(test.logits).argmax(axis=1) == test.labels).mean() < 0.9
    head = TileAdaptation.fit(train)
    p = head.probabilities(test.logits, test.features, test.cells)
    assert (p.argmax(axis=1) == test.labels).mean() > 0.99
    # "occluded" keeps the base logit: its odds against each class are the base's
    # occluded logit against the adapted one
    z = head.tile_logits(test.logits, test.features, test.cells)
    assert np.allclose(np.log(p[:, OCCLUDED] / p[:, 0]), test.logits[:, OCCLUDED] - z[:, 0])
    assert np.allclose(p.sum(axis=1), 1.0)


def test_the_file_round_trips_and_a_damaged_one_is_refused(tmp_path):
    head = TileAdaptation.fit(_samples())
    head.report = {"photos": 2}
    head.save(tmp_path / "t.json")
    again = TileAdaptation.load(tmp_path / "t.json")
    s = _samples(seed=3)
    assert np.allclose(again.probabilities(s.logits, s.features, s.cells),
                       head.probabilities(s.logits, s.features, s.cells), atol=1e-5)
    d = json.loads((tmp_path / "t.json").read_text())
    d["head"]["scale"][0] = -1
    (tmp_path / "bad.json").write_text(json.dumps(d))
    with pytest.raises(TilesError, match="damaged"):
        TileAdaptation.load(tmp_path / "bad.json")
    (tmp_path / "calib.json").write_text('{"corners": []}')
    with pytest.raises(TilesError, match="not a tiles file"):
        TileAdaptation.load(tmp_path / "calib.json")


def test_an_adaptation_the_check_rejected_leaves_the_base_model():
    clf = PipClassifier()
    head = TileAdaptation.fit(_samples())
    head.adapted = False
    attach(clf, head)
    assert clf.adaptation is None
    head.adapted = True
    attach(clf, head)
    assert clf.adaptation is head
    crops = np.random.default_rng(0).uniform(0, 1, (10, 24, 24)).astype(np.float32)
    logits, features = clf.outputs(crops, np.arange(10))
    assert np.allclose(clf.probabilities(crops, np.arange(10)),
                       head.probabilities(logits, features, np.arange(10)))


def test_the_live_service_finds_the_tables_tiles_beside_its_calibration(tmp_path, capsys):
    from zatre_vision.vision.reading.tile_adapt import load_beside, tiles_path

    cal = tmp_path / "calibration.json"
    assert tiles_path(cal) == tmp_path / "calibration.tiles.json"
    assert load_beside(cal) is None and load_beside(None) is None
    head = TileAdaptation.fit(_samples())
    head.save(tiles_path(cal))
    found = load_beside(cal)   # the head saved there: it reads as the one fitted
    rows = _samples(seed=3)
    assert np.allclose(found.probabilities(rows.logits, rows.features, rows.cells),
                       head.probabilities(rows.logits, rows.features, rows.cells))
    tiles_path(cal).write_text("{damaged")
    assert load_beside(cal) is None
    assert "reading with the base model" in capsys.readouterr().err


def test_the_sets_own_pip_counts_agree_only_where_its_tiles_got_them():
    from zatre_vision.vision.reading.pips import CANNOT_TELL, NOT_CHECKED
    from zatre_vision.vision.reading.tile_adapt import COUNT_MAX, count_table

    # this set's fours are counted as six (packed pips) on 3 of 10 tiles, never as two
    labels = np.array([4] * 10 + [5] * 10)
    counts = np.array([4] * 7 + [6] * 3 + [5] * 9 + [CANNOT_TELL])
    table = count_table(counts, labels)
    assert table.shape == (7, COUNT_MAX + 1)
    assert table[4, 6] == pytest.approx(0.3) and table[5, 5] == pytest.approx(1.0)
    head = TileAdaptation.fit(_samples())
    head.counts = table
    cls = np.array([4, 4, 4, 5, 6, 0, 4])
    seen = np.array([6, 2, CANNOT_TELL, 6, 4, 0, NOT_CHECKED])
    out = head.counts_for(seen, cls)
    # a six counted on a four agrees (this set's way); a two, an abstention, an
    # unchecked cell and counts never seen for the value stay as counted
    assert out.tolist() == [4, 2, CANNOT_TELL, 6, 4, 0, NOT_CHECKED]
    head.count_seen = 0.5  # 30 % is then not enough
    assert head.counts_for(seen, cls)[0] == 6
    head.adapted = False
    assert (head.counts_for(seen, cls) == seen).all()


def test_temperature_and_count_table_round_trip_and_are_checked(tmp_path):
    from zatre_vision.vision.reading.tile_adapt import COUNT_MAX

    head = TileAdaptation.fit(_samples())
    head.temperature = 1.5
    head.counts = np.zeros((7, COUNT_MAX + 1))
    head.counts[4, 6] = 0.25
    head.save(tmp_path / "t.json")
    again = TileAdaptation.load(tmp_path / "t.json")
    assert again.temperature == 1.5 and again.counts[4, 6] == 0.25
    s = _samples(seed=4)
    # a temperature above 1 makes the head less sure, never more
    cool = TileAdaptation.load(tmp_path / "t.json")
    cool.temperature = 1.0
    assert (again.probabilities(s.logits, s.features, s.cells).max(axis=1)
            <= cool.probabilities(s.logits, s.features, s.cells).max(axis=1) + 1e-9).all()
    d = json.loads((tmp_path / "t.json").read_text())
    for key, bad in (("temperature", 0.0), ("counts", [[2.0] * (COUNT_MAX + 1)] * 7)):
        (tmp_path / "bad.json").write_text(json.dumps({**d, key: bad}))
        with pytest.raises(TilesError, match="damaged"):
            TileAdaptation.load(tmp_path / "bad.json")
    # a file written before the count table and temperature still loads
    del d["counts"], d["temperature"], d["count_seen"]
    (tmp_path / "old.json").write_text(json.dumps(d))
    old = TileAdaptation.load(tmp_path / "old.json")
    assert old.counts is None and old.temperature == 1.0


def test_the_adaptation_constants_are_bounded():
    from zatre_vision.vision.reading.tile_adapt import AdaptConfig

    AdaptConfig()
    for bad in ({"ridge": 0.0}, {"temperature": 9.0}, {"count_seen": 0.0}, {"steps": 5}):
        with pytest.raises(ValueError, match="outside"):
            AdaptConfig(**bad)
