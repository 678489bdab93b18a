"""The board network sure of a board but wrong about where it is: ``find_board.texture_fit``
(grid fits from the classical search's coarse outline) and when the texture proposer
(``proposers.Texture``) proposes one."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import zatre_vision.vision.location.find_board as fb
import zatre_vision.vision.location.proposers as pr
from zatre_vision.vision.location import BoardLocator, ProofSetup, expectations, locate_board
from zatre_vision.vision.location.board_net import BoardOutline
from zatre_vision.vision.location.find_board import (
    corner_gap_cells,
    fits_agree,
    inside,
    texture_fit,
)
from zatre_vision.vision.location.grid_fit import FitResult, plain_model
from zatre_vision.vision.location.grid_fit import shifted as shift_model
from zatre_vision.vision.location.locate import LocateResult, coarse_grid_corners, to_grey
from zatre_vision.vision.location.print_proof import ProofConfig

from .conftest import OLD_BOARD_NETWORK


def _photo(photos, name):
    path, truth = photos[name]
    corners = np.asarray(truth["corners"], np.float64)
    return cv2.imread(str(path)), corners, float(np.linalg.norm(corners[1] - corners[0])) / 15


def _bulging(corners: np.ndarray, cells: float, cell: float) -> np.ndarray:
    """An upright box around ``corners`` grown by ``cells`` cells on every side: the
    outline of a sure mask that bulges over the table (as on a blue cloth), whose
    corners are all several cells from the grid's."""
    x0, y0 = corners.min(axis=0) - cells * cell
    x1, y1 = corners.max(axis=0) + cells * cell
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])


@pytest.mark.parametrize("name", ["some", "full", "hand"])
def test_texture_fit_finds_the_grid_with_no_help_from_the_network(photos, name):
    img, truth, cell = _photo(photos, name)
    grey = to_grey(img)
    starts = coarse_grid_corners(grey)
    assert starts and all(s.shape == (4, 2) for s in starts)
    fit = texture_fit(grey)
    assert fit is not None and fit.score >= fb.MIN_SCORE
    assert corner_gap_cells(fit.model.corners(), truth, cell) < 0.3


def _misled(monkeypatch, outline: BoardOutline) -> BoardLocator:
    """A locator whose network returns ``outline`` (for the mirrored frame too) and whose
    classical search finds nothing."""
    locator = BoardLocator()
    monkeypatch.setattr(locator.finder, "find", lambda image: outline)
    monkeypatch.setattr(pr, "mirrored_corners", lambda finder, image: None)
    monkeypatch.setattr(pr, "locate", lambda grey: LocateResult(None, 0.0, 0, ()))
    return locator


def _texture(fit):
    """A stand-in for ``texture_fit`` that finds ``fit``."""
    return lambda grey, border_moves=True, corner_moves=True: fit


@pytest.mark.parametrize(("confidence", "method"), [
    (0.95, "texture"), (pr.TEXTURE_MIN_CONFIDENCE + 0.02, "texture"),
    (pr.TEXTURE_MIN_CONFIDENCE - 0.02, "none"), (0.5, "none")])
def test_a_sure_network_that_misplaces_the_whole_board_is_mended_by_the_texture(
        photos, monkeypatch, confidence, method):
    """Every corner of the network's outline five cells out: no fit from there finds
    the grid, and no single corner move mends it. Where the network is sure there is a
    board, the fits from the textured region find it; where it is not, nothing is
    reported (cloth grain alone can look like a grid)."""
    img, truth, cell = _photo(photos, "some")
    box = _bulging(truth, 5.0, cell)
    locator = _misled(monkeypatch, BoardOutline(box, confidence))
    from_net = fb.settled_fit(to_grey(img), BoardOutline(box, confidence).starts(),
                              polish=False)
    assert from_net is None or not fb._good(from_net)
    found = locator.locate(img)
    assert found.method == method
    if method == "texture":
        assert corner_gap_cells(found.result.model.corners(), truth, cell) < 0.3
        assert found.result.score >= fb.MIN_SCORE
    else:
        assert not found.result.found


def test_a_texture_fit_away_from_the_networks_board_is_not_taken(photos, monkeypatch):
    """The network is sure of a board in a corner of the frame where there is none: a
    grid the texture fit finds elsewhere is not taken on the network's word."""
    img, truth, cell = _photo(photos, "some")
    h, w = img.shape[:2]
    far = np.array([[0.0, 0.0], [0.12 * w, 0.0], [0.12 * w, 0.12 * h], [0.0, 0.12 * h]])
    right = fb.fit_from_corners(to_grey(img), truth)
    assert not inside(far, right.model) and inside(truth, right.model)
    for outline, method in ((far, "none"), (_bulging(truth, 3.0, cell), "texture")):
        locator = _misled(monkeypatch, BoardOutline(outline, 0.95))
        monkeypatch.setattr(pr, "settled_fit", lambda grey, starts, polish=True: None)
        monkeypatch.setattr(pr, "one_corner_off", lambda grey, corners: None)
        monkeypatch.setattr(pr, "texture_fit", _texture(right))
        assert locator.locate(img).method == method


def test_no_board_is_reported_on_a_table_without_one(photos):
    img = cv2.imread(str(photos["none"][0]))
    found = BoardLocator().locate(img)
    assert not found.result.found


def _faint(model, score: float) -> FitResult:
    return FitResult(model, score, (score,) * 4, (0, 0))


def test_fits_agree_only_on_the_same_grid_and_above_the_floor(photos):
    img, truth, _ = _photo(photos, "some")
    model = fb.fit_from_corners(to_grey(img), truth).model
    assert fits_agree(_faint(model, 0.5), _faint(model, 0.45))
    assert not fits_agree(_faint(model, 0.5), None)
    assert not fits_agree(_faint(model, 0.5), _faint(shift_model(model, 1, 0), 0.5))
    low = fb.MIN_SCORE_AGREEING - 0.05
    assert not fits_agree(_faint(model, 0.5), _faint(model, low))
    assert not fits_agree(_faint(model, low), _faint(model, 0.5))


@pytest.mark.parametrize("witness", [True, False])
def test_a_faint_texture_fit_needs_a_faint_network_fit_on_the_same_grid(
        photos, monkeypatch, witness):
    """Beyond the training blur the right grid's lines are faint (0.45-0.6): a texture
    fit that faint is the board only when the fit from the network's corners, too faint
    to stand alone, landed on the same grid."""
    img, truth, cell = _photo(photos, "some")
    right = fb.fit_from_corners(to_grey(img), truth).model
    net_fit = right if witness else shift_model(right, 2, 1)
    box = _bulging(truth, 3.0, cell)
    locator = _misled(monkeypatch, BoardOutline(box, 0.95))
    monkeypatch.setattr(pr, "settled_fit", lambda grey, starts, polish=True: _faint(net_fit, 0.45))
    monkeypatch.setattr(pr, "texture_fit", _texture(_faint(right, 0.5)))
    monkeypatch.setattr(pr, "one_corner_off", lambda grey, corners: None)
    found = locator.locate(img)
    if witness:
        assert found.method == "texture" and found.result.score == 0.5
        assert corner_gap_cells(found.result.model.corners(), truth, cell) < 0.3
    else:
        assert found.method == "none"


@pytest.mark.parametrize("above", [True, False])
def test_a_texture_fit_inside_the_outline_stands_alone_from_its_own_bar(
        photos, monkeypatch, above):
    """With no witness (the network's own fit is elsewhere), a texture fit inside the
    network's sure outline is the board from TEXTURE_MIN_SCORE on, and not below it."""
    img, truth, cell = _photo(photos, "some")
    right = fb.fit_from_corners(to_grey(img), truth).model
    score = pr.TEXTURE_MIN_SCORE + (0.01 if above else -0.01)
    locator = _misled(monkeypatch, BoardOutline(_bulging(truth, 3.0, cell), 0.95))
    monkeypatch.setattr(pr, "settled_fit", lambda grey, starts, polish=True: _faint(
        shift_model(right, 2, 1), 0.45))
    monkeypatch.setattr(pr, "texture_fit", _texture(_faint(right, score)))
    monkeypatch.setattr(pr, "one_corner_off", lambda grey, corners: None)
    found = locator.locate(img)
    assert found.method == ("texture" if above else "none")


def test_a_board_the_network_misplaces_is_read_end_to_end():
    """A real rendered photo (wide ranges, seed 7001, photo 56: a blue cloth, the board
    turned 40 degrees, a hand at its edge) on which the board network before the print
    world (``OLD_BOARD_NETWORK``) is sure of a board but its outline is 12 cells off and
    the classical search finds nothing: the reader finds it through the texture fit and
    reads its tiles. The committed board network places it itself."""
    from zatre_vision.bench.vision_bench import _truth_labels
    from zatre_vision.synth.config import SynthConfig
    from zatre_vision.synth.photos import render_photo
    from zatre_vision.synth.scene import Renderer
    from zatre_vision.vision.geometry import CELL_NAMES
    from zatre_vision.vision.reader import BoardReader
    from zatre_vision.vision.reading.classify import OCCLUDED

    cfg = SynthConfig.wide()
    jpeg, truth = render_photo(Renderer(cfg, 7001, 1280, 960), cfg, 7001, 56, {})
    img = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    corners = np.asarray(truth["corners"], np.float64)
    cell = float(np.linalg.norm(corners[1] - corners[0])) / 15
    labels = _truth_labels(truth)
    assert int((labels > 0).sum() - (labels == OCCLUDED).sum()) > 60
    for board_model, source in ((OLD_BOARD_NETWORK, "locate:texture"), (None, None)):
        if board_model is None:
            reader = BoardReader()
        else:
            reader = BoardReader(board_model_path=board_model)
            outline = reader.locator.finder.find(img)
            assert outline is not None and outline.confidence >= pr.SURE_OUTLINE
            assert corner_gap_cells(outline.corners, corners, cell) > 5
        res = reader.read(img)
        assert res.board_found
        assert source is None or res.source == source
        gap = float(np.linalg.norm(np.array(res.corners) - corners, axis=1).max()) / cell
        assert gap < 0.3
        wrong = sum(1 for j, n in enumerate(CELL_NAMES) if labels[j] != OCCLUDED
                    and n not in res.uncertain and res.cells.get(n, 0) != labels[j])
        assert wrong <= 2


class _Reading:
    quality = 0.0


@pytest.mark.parametrize(("on_the_board", "source"), [(True, "locate:classical"),
                                                      (False, "locate:texture")])
def test_a_search_result_is_replaced_by_a_texture_fit_only_where_it_fails_the_proof(
        photos, monkeypatch, on_the_board, source):
    """A faint search result (0.55) on the board's grid proves itself and is the board;
    one on the table beside it does not, and the texture fit's grid is proved and
    picked. (Before the proposers, the clearer line contrast on another grid decided.)"""
    from zatre_vision.board_prints import load_prints

    img, truth, cell = _photo(photos, "some")
    right = fb.fit_from_corners(to_grey(img), truth)
    h, w = img.shape[:2]
    searched = right.model if on_the_board else plain_model(
        np.array([[0.0, 0.0], [0.2 * w, 0.0], [0.2 * w, 0.2 * h], [0.0, 0.2 * h]]), w, h)
    locator = _misled(monkeypatch, BoardOutline(_bulging(truth, 3.0, cell), 0.95))
    monkeypatch.setattr(pr, "locate", lambda grey: LocateResult(
        searched, 0.55, 100, ((searched, 0.55),)))
    monkeypatch.setattr(pr, "settled_fit", lambda grey, starts, polish=True: None)
    monkeypatch.setattr(pr, "one_corner_off", lambda grey, corners: None)
    monkeypatch.setattr(pr, "texture_fit", _texture(right))
    prints = load_prints()
    board = locate_board(img, to_grey(img), locator, lambda model: _Reading(),
                         ProofSetup(ProofConfig(), expectations(prints), prints))
    assert board.found and board.source == source
    assert corner_gap_cells(board.model.corners(), truth, cell) < 0.3
