"""The re-reading passes behind ``BoardReader.refine`` (``recentred``, ``beside_hand``)
on real rendered photos, as properties over a handful of photos from a seed that
nothing was tuned or fitted on (wide ranges, seed ``SEED``), not as one photo's exact
board: a pass only takes cells out of ``uncertain``, never changes a cell already
read, never settles a frame held back, and every visible cell it settles is right."""

from __future__ import annotations

import copy

import cv2
import numpy as np
import pytest

from zatre_vision.synth.config import SynthConfig
from zatre_vision.synth.photos import render_photo
from zatre_vision.synth.scene import Renderer
from zatre_vision.vision.bench import _truth_labels
from zatre_vision.vision.classify import OCCLUDED
from zatre_vision.vision.geometry import CELL_NAMES
from zatre_vision.vision.reader import BoardReader

#: a seed no threshold was tuned on and no benchmark or fit uses
SEED = 4711
#: photos of that seed with a board: hands' edges (6, 7, 22, 39), a frame held back (9)
PHOTOS = (6, 7, 9, 22, 35, 39)


@pytest.fixture(scope="module")
def stages():
    """Per photo: its truth, the decision before refining, and after each pass."""
    cfg = SynthConfig.wide()
    renderer = Renderer(cfg, SEED, 1280, 960)
    reader = BoardReader()
    out = []
    for index in PHOTOS:
        jpeg, truth = render_photo(renderer, cfg, SEED, index, {})
        img = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        seen = reader.look(img)
        assert seen.model is not None, f"photo {index}: no board"
        decided = reader.decide(seen.crops, seen.probs, blurred=seen.blurred,
                                clear=seen.clear)
        after = [decided]
        for name in BoardReader.REFINE_PASSES:
            result = copy.deepcopy(after[-1])
            getattr(reader, name)(seen.board, result, blurred=seen.blurred, clear=seen.clear)
            after.append(result)
        whole = reader.read(img)
        out.append((index, truth, after, whole))
    return out


def test_read_is_decide_then_every_refine_pass(stages):
    for index, _, after, whole in stages:
        assert whole.cells == after[-1].cells, index
        assert whole.uncertain == after[-1].uncertain, index


def test_a_pass_only_takes_cells_out_of_uncertain(stages):
    for index, _, after, _ in stages:
        for before, done, name in zip(after[:-1], after[1:], BoardReader.REFINE_PASSES,
                                      strict=True):
            settled = set(getattr(done, name))
            assert settled <= set(before.uncertain), (index, name)
            assert set(done.uncertain) == set(before.uncertain) - settled, (index, name)
            # cells read before keep their values
            assert {n: v for n, v in done.cells.items() if n not in settled} == before.cells
            if before.doubtful_frame:
                assert not settled


def test_every_visible_cell_a_pass_settles_is_right(stages):
    settled_visible = 0
    for index, truth, after, _ in stages:
        labels = dict(zip(CELL_NAMES, _truth_labels(truth), strict=True))
        final = after[-1]
        for name in BoardReader.REFINE_PASSES:
            for cell in getattr(final, name):
                if labels[cell] == OCCLUDED:
                    continue   # under the hand: the truth has no value to hold it to
                settled_visible += 1
                assert final.cells.get(cell, 0) == labels[cell], (index, name, cell)
    # the set is chosen so that the passes have work to do
    assert settled_visible >= 1
