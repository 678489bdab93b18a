"""An uncertain tile read again from crops moved ``recentre_shift`` pixels (the
re-centred reading: measured by ``measure.with_rereads``, weighed by ``decide.recentre``).

A tile off its cell's middle shows a one-pip tile's pip where a two's pips sit; one of
the moved crops brings it back to the middle, where the network is sure.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from zatre_vision.bench.vision_bench import _truth_labels
from zatre_vision.synth.config import SynthConfig
from zatre_vision.synth.photos import render_photo
from zatre_vision.synth.scene import Renderer
from zatre_vision.vision.geometry import CELL_NAMES
from zatre_vision.vision.reader import BoardReader
from zatre_vision.vision.reading.cells import CROP, SIDE
from zatre_vision.vision.reading.classify import CLASSES, OCCLUDED
from zatre_vision.vision.reading.decide import Photo, recentre, rereads_wanted
from zatre_vision.vision.reading.measure import recentre_shifts, with_rereads
from zatre_vision.vision.reading.read_result import ReadResult

from .cell_probs import RULES, cell_probs, evidence, prob_row
from .conftest import OLD_BOARD_NETWORK, OLD_NETWORK

K6, H9, C2 = (CELL_NAMES.index(n) for n in ("K6", "H9", "C2"))
MOVES = len(recentre_shifts(RULES))
RECENTRE_SURE, RECENTRE_RIVAL = RULES.recentre_sure, RULES.recentre_rival
RECENTRE_EMPTY_BELOW = RULES.recentre_empty_below


class ScriptedClassifier:
    """Answers each moved crop of a cell with the row scripted for that move."""

    def __init__(self, moves: dict[int, list[np.ndarray]]):
        self.moves = moves
        self.calls: list[tuple[int, np.ndarray]] = []

    def probabilities(self, crops: np.ndarray, cells: np.ndarray) -> np.ndarray:
        assert crops.shape[1:] == (CROP, CROP) and len(crops) == len(cells)
        self.calls.append((len(crops), np.asarray(cells)))
        per_move = len(cells) // MOVES
        return np.stack([self.moves[int(c)][k // per_move] for k, c in enumerate(cells)])


class Recentring:
    """The re-centred reading as the reader runs it, with a scripted network: the cells
    ``rereads_wanted`` names measured from moved crops (``with_rereads``), then weighed
    (``decide.recentre``)."""

    def __init__(self, classifier: ScriptedClassifier):
        self.classifier = classifier

    def recentred(self, board: np.ndarray, result: ReadResult) -> ReadResult:
        photo = Photo(blurred=False, clear=True, streaked=False)
        cells, _ = rereads_wanted(result, photo, RULES)
        measured = with_rereads(BLANK, self.classifier, board, cells, np.zeros(0, np.intp),
                                RULES)
        recentre(result, measured, RULES)
        return result


def _reader(moves: dict[int, list[np.ndarray]]) -> tuple[Recentring, ScriptedClassifier]:
    classifier = ScriptedClassifier(moves)   # no models: the network is scripted
    return Recentring(classifier), classifier


def _result(uncertain: list[str], steadied: dict[int, np.ndarray],
            occluded: list[str] = (), doubtful: bool = False) -> ReadResult:
    probs = np.zeros((len(CELL_NAMES), len(CLASSES)), np.float32)
    probs[:, 0] = 1.0
    for i, row in steadied.items():
        probs[i] = row
    classes = probs.argmax(axis=1)
    classes[[CELL_NAMES.index(n) for n in occluded]] = OCCLUDED
    return ReadResult(True, cells={"A9": 4}, uncertain=list(uncertain),
                      occluded=list(occluded), probabilities=probs, classes=classes,
                      doubtful_frame=doubtful)


BOARD = np.ones((SIDE, SIDE), np.float32)
#: the rest of a board's evidence, which the re-centred reading does not weigh
BLANK = evidence(np.ones((len(CELL_NAMES), CROP, CROP), np.float32), cell_probs({}))
TORN_1_2 = prob_row(_1=0.5, _2=0.45, occluded=0.05)
#: one move sure of "1", the others torn between 1 and 2 but never past the rival bar
CENTRED_ON_1 = [prob_row(_1=0.97, _2=0.03)] + [prob_row(_1=0.55, _2=0.45)] * (MOVES - 1)


def test_a_move_sure_of_a_tile_class_settles_the_cell():
    reader, clf = _reader({K6: CENTRED_ON_1})
    res = reader.recentred(BOARD, _result(["K6"], {K6: TORN_1_2}))
    assert res.cells == {"K6": 1, "A9": 4}
    assert list(res.cells) == ["K6", "A9"]  # reading order: row 6 before row 9
    assert res.uncertain == [] and res.recentred == ["K6"]
    assert clf.calls[0][0] == MOVES  # one cell, eight moved crops


def test_a_rival_class_keeps_the_cell_uncertain():
    rival = [prob_row(_1=0.97, _2=0.03), prob_row(_2=RECENTRE_RIVAL + 0.01, _1=0.09 - 0.01)]
    rival += [prob_row(_1=0.5, _2=0.5)] * (MOVES - 2)
    reader, _ = _reader({K6: rival})
    res = reader.recentred(BOARD, _result(["K6"], {K6: TORN_1_2}))
    assert res.uncertain == ["K6"] and "K6" not in res.cells and res.recentred == []


def test_not_sure_enough_keeps_the_cell_uncertain():
    below = RECENTRE_SURE - 0.01
    moves = [prob_row(_1=below, _2=1 - below)] + [prob_row(_1=0.5, _2=0.5)] * (MOVES - 1)
    reader, _ = _reader({K6: moves})
    res = reader.recentred(BOARD, _result(["K6"], {K6: TORN_1_2}))
    assert res.uncertain == ["K6"] and res.recentred == []


def test_a_class_the_cell_was_not_read_as_is_not_taken():
    """A moved crop sure of a five, on a cell torn between one and two."""
    moves = [prob_row(_5=0.99, _1=0.01)] + [prob_row(_1=0.5, _2=0.5)] * (MOVES - 1)
    reader, _ = _reader({K6: moves})
    res = reader.recentred(BOARD, _result(["K6"], {K6: TORN_1_2}))
    assert res.uncertain == ["K6"] and res.recentred == []


def test_a_move_sure_of_the_cells_second_class_leaves_it_uncertain():
    """The cell was read as a two: at a lower bar it would be reported a two, so a moved
    crop sure of "1" makes it a doubt, never a one."""
    reader, _ = _reader({K6: CENTRED_ON_1})
    torn_2_1 = prob_row(_2=0.5, _1=0.45, occluded=0.05)
    res = reader.recentred(BOARD, _result(["K6"], {K6: torn_2_1}))
    assert res.uncertain == ["K6"] and "K6" not in res.cells and res.recentred == []


def test_a_cell_the_network_may_see_empty_is_left_alone():
    """Moving the crop tells tile classes apart, not whether a tile is there."""
    reader, _ = _reader({K6: CENTRED_ON_1})
    torn = prob_row(_1=0.4, empty=RECENTRE_EMPTY_BELOW, _2=0.4 - RECENTRE_EMPTY_BELOW + 0.2)
    res = reader.recentred(BOARD, _result(["K6"], {K6: torn}))
    assert res.uncertain == ["K6"] and res.recentred == []
    below = prob_row(_1=0.45, _2=0.4, empty=RECENTRE_EMPTY_BELOW - 0.05)
    assert reader.recentred(BOARD, _result(["K6"], {K6: below})).recentred == ["K6"]


def test_empty_is_never_settled_this_way():
    moves = [prob_row(empty=0.99, _1=0.01)] + [prob_row(empty=0.5, _1=0.5)] * (MOVES - 1)
    reader, _ = _reader({C2: moves})
    res = reader.recentred(BOARD, _result(["C2"], {C2: prob_row(empty=0.5, _1=0.3, occluded=0.2)}))
    assert res.uncertain == ["C2"] and res.recentred == []


def test_occluded_calls_and_held_back_frames_are_not_read_again():
    reader, clf = _reader({K6: CENTRED_ON_1, H9: CENTRED_ON_1})
    res = reader.recentred(BOARD, _result(["K6", "H9"], {K6: TORN_1_2, H9: TORN_1_2},
                                          occluded=["H9"]))
    assert res.recentred == ["K6"] and res.uncertain == ["H9"]
    assert set(clf.calls[0][1].tolist()) == {K6}
    every = list(CELL_NAMES)
    held = reader.recentred(BOARD, _result(every, {K6: TORN_1_2}, doubtful=True))
    assert held.uncertain == every and held.recentred == [] and len(clf.calls) == 1


def test_a_cell_beside_an_occluded_call_is_not_read_again():
    """Next to a hand a moved crop can look past the hand's edge: K6 touches L7, which
    is called occluded, so K6 stays uncertain; H9, with no hand near, is settled."""
    reader, clf = _reader({K6: CENTRED_ON_1, H9: CENTRED_ON_1})
    res = reader.recentred(BOARD, _result(["K6", "L7", "H9"], {K6: TORN_1_2, H9: TORN_1_2},
                                          occluded=["L7"]))
    assert res.recentred == ["H9"] and res.uncertain == ["K6", "L7"]
    assert set(clf.calls[0][1].tolist()) == {H9}


def test_the_occluded_class_of_a_moved_crop_does_not_count():
    moves = [prob_row(occluded=0.99, _1=0.01)] + [prob_row(_1=0.96, _2=0.04)] * (MOVES - 1)
    reader, _ = _reader({K6: moves})
    res = reader.recentred(BOARD, _result(["K6"], {K6: TORN_1_2}))
    assert res.recentred == ["K6"] and res.cells["K6"] == 1
    assert len(CLASSES) - 1 == OCCLUDED


@pytest.fixture(scope="module")
def off_centre_photo() -> tuple[np.ndarray, dict]:
    """A wide-ranges photo (tuning seed 6201, photo 214; no hand, clear pips) with two
    one-pip tiles and a five lying off their cells' middles, which the network doubts."""
    cfg = SynthConfig.wide()
    jpeg, truth = render_photo(Renderer(cfg, 6201, 1280, 960), cfg, 6201, 214, {})
    return cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR), truth


def test_off_centre_tiles_of_a_real_photo_are_read(off_centre_photo):
    """The network before issue 60 (``OLD_NETWORK``), on the board network's fit before
    the print world (``OLD_BOARD_NETWORK``), doubts the off-centre tiles of this photo
    and the re-centred reading settles them, right; the committed pair reads the photo
    without a silent cell."""
    img, truth = off_centre_photo
    assert not truth.get("hidden") and not truth.get("partly_hidden")
    labels = _truth_labels(truth)
    now = BoardReader().read(img)
    assert now.board_found
    assert all(now.cells.get(n, 0) == labels[j] for j, n in enumerate(CELL_NAMES)
               if n not in now.uncertain)
    res = BoardReader(OLD_NETWORK, board_model_path=OLD_BOARD_NETWORK).read(img)
    assert res.board_found and not res.doubtful_frame
    assert res.uncertain == []
    assert res.cells == {n: int(v) for n, v in zip(CELL_NAMES, labels, strict=True) if v}
    # (two before issue 43; the other is now read sure without it, and right)
    assert len(res.recentred) >= 1
    assert any(truth["cells"][n] == 1 for n in res.recentred)

    # without the re-centred reading the same cells are left uncertain
    old = BoardReader(OLD_NETWORK).config
    plain = BoardReader(OLD_NETWORK, config=replace(old, pass_recentred=False),
                        board_model_path=OLD_BOARD_NETWORK).read(img)
    assert plain.uncertain == res.recentred
    assert plain.cells == {n: v for n, v in res.cells.items() if n not in res.recentred}
