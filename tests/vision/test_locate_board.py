"""``location.locate_board``, the one entry point of board location, and its first
step ``propose`` (one frame in, each proposer's candidate fits and where they came from
out, proposer by proposer), through the package's public names only."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from zatre_vision.vision.location import (
    BoardLocator,
    GridModel,
    Proposals,
    make_calibration,
    propose,
)
from zatre_vision.vision.reader import work_image

DATA = Path(__file__).parent / "data"


def locate_board(*args, **kwargs) -> Proposals:
    """The first proposals ``propose`` gives (none: no candidates, "locate:none")."""
    return next(propose(*args, **kwargs), Proposals([], "locate:none"))


@pytest.fixture(scope="module")
def frame() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The hand photo as the reader works on it, its grey copy, and the true corners
    in work pixels."""
    image = cv2.imread(str(DATA / "hand-7001-67.jpg"), cv2.IMREAD_COLOR)
    truth = json.loads((DATA / "hand-7001-67.json").read_text())
    work, f = work_image(image)
    return work, cv2.cvtColor(work, cv2.COLOR_BGR2GRAY), np.array(truth["corners"]) * f


@pytest.fixture(scope="module")
def locator() -> BoardLocator:
    return BoardLocator()


def test_the_search_finds_the_board_and_says_how(frame, locator):
    work, grey, corners = frame
    fits = locate_board(work, grey, locator)
    assert isinstance(fits, Proposals)
    assert fits.source in ("locate:net", "locate:texture", "locate:classical")
    model, score = fits.candidates[0]
    assert isinstance(model, GridModel) and score > 0.35
    cell = np.linalg.norm(corners[1] - corners[0]) / 15
    assert np.abs(model.corners() - corners).max() < 0.5 * cell
    assert [s for _, s in fits.candidates] == sorted((s for _, s in fits.candidates),
                                                     reverse=True)


def test_a_calibration_that_still_fits_is_taken_as_it_stands(frame, locator):
    work, grey, _ = frame
    model, _ = locate_board(work, grey, locator).candidates[0]
    calibration = make_calibration(work, model)
    fits = locate_board(work, grey, locator, calibration=calibration)
    assert fits.source == "calibration" and len(fits.candidates) == 1
    h, w = work.shape[:2]
    np.testing.assert_allclose(fits.candidates[0][0].corners(),
                               calibration.model_for(w, h).corners())
    # a blank frame: the board has moved, and the search finds none
    blank = np.full_like(work, 90)
    moved = locate_board(blank, cv2.cvtColor(blank, cv2.COLOR_BGR2GRAY), locator,
                         calibration=calibration)
    assert moved.source.startswith("locate:") and moved.candidates == []


# -- the four steps ------------------------------------------------------------------------
from zatre_vision.vision.location import (  # noqa: E402
    MAX_CANDIDATES,
    Board,
    LocateFallbacks,
    ProofSetup,
    ProvedOnce,
    expectations,
)
from zatre_vision.vision.location import locate_board as four_steps  # noqa: E402
from zatre_vision.vision.location.print_proof import ProofConfig  # noqa: E402


class Quality:
    """A stand-in reading: its quality is given per fit, in the order fits are read."""

    def __init__(self, quality: float, model: GridModel):
        self.quality, self.model = quality, model


@pytest.fixture(scope="module")
def setup() -> ProofSetup:
    from zatre_vision.board_prints import load_prints

    prints = load_prints()
    return ProofSetup(ProofConfig(), expectations(prints), prints)


def test_the_four_steps_find_prove_and_name_the_board(frame, locator, setup):
    work, grey, corners = frame
    read_models = []

    def read(model):
        read_models.append(model)
        return Quality(-0.1, model)

    board = four_steps(work, grey, locator, read, setup)
    assert isinstance(board, Board) and board.found
    assert board.proof is not None and board.proof.proved
    assert board.board_print == "peri"
    assert board.reading.model is board.model or board.proof.moved != (0, 0)
    cell = np.linalg.norm(corners[1] - corners[0]) / 15
    assert np.abs(board.model.corners() - corners).max() < 0.5 * cell
    # every proposal up to the cap was read before any was proved
    assert len(read_models) >= min(len(board.proposals.candidates), MAX_CANDIDATES)


def test_the_most_confident_reading_is_proved_first(frame, locator, setup):
    """Two fits proposed: the second reads more confidently, so it is the one proved
    and picked, whatever the line scores say."""
    work, grey, corners = frame
    good = locate_board(work, grey, locator).candidates[0][0]
    off = GridModel(good.homography @ np.array([[1, 0, 40.0], [0, 1, 0], [0, 0, 1]]),
                    good.k, good.width, good.height)

    class Two(BoardLocator):
        def proposals(self, frame):
            yield Proposals([(off, 0.9), (good, 0.5)], "locate:net")

    two = Two(None)
    board = four_steps(work, grey, two, lambda m: Quality(0.0 if m is good else -1.0, m),
                       setup)
    assert board.found and board.score == 0.5


def test_no_fit_that_proves_itself_is_no_board_with_the_reason(locator, setup):
    """A photo of the table alone: whatever is proposed, nothing proves itself."""
    table = np.full((480, 640, 3), 120, np.uint8)
    cv2.randn(table, 120, 25)
    grey = cv2.cvtColor(table, cv2.COLOR_BGR2GRAY)
    board = four_steps(table, grey, locator, lambda m: Quality(0.0, m), setup)
    assert not board.found and board.model is None and board.reading is None


def test_a_proved_calibration_is_proved_once(frame, locator, setup):
    work, grey, _ = frame
    model = locate_board(work, grey, locator).candidates[0][0]
    calibration = make_calibration(work, model)
    once = ProvedOnce()
    first = four_steps(work, grey, locator, lambda m: Quality(0.0, m), setup,
                       calibration=calibration, proved_once=once)
    assert first.source == "calibration" and first.proof is not None
    assert once.calibration is calibration and once.board_print == first.board_print
    again = four_steps(work, grey, locator, lambda m: Quality(0.0, m), setup,
                       calibration=calibration, proved_once=once)
    assert again.found and again.proof is None and again.board_print == first.board_print


def test_fallback_switches_come_from_the_board_card(tmp_path):
    import shutil

    from zatre_vision.vision.location import DEFAULT_BOARD_MODEL, BoardModelError

    model = tmp_path / "board.onnx"
    shutil.copy(DEFAULT_BOARD_MODEL, model)
    card = json.loads(Path(str(DEFAULT_BOARD_MODEL) + ".json").read_text())
    card["locate_fallbacks"] = {"switches": {"mirrored": False, "texture": False}}
    (tmp_path / "board.onnx.json").write_text(json.dumps(card))
    assert BoardLocator(model).fallbacks == LocateFallbacks.switched(mirrored=False,
                                                                     texture=False)
    assert BoardLocator(model).fallbacks.proposers == ("line_search", "corner_moves")
    card["locate_fallbacks"] = {"switches": {"mirrorred": False}}
    (tmp_path / "board.onnx.json").write_text(json.dumps(card))
    with pytest.raises(BoardModelError, match="locate_fallbacks.switches: unknown field 'mirrorred'"):
        BoardLocator(model)
    card["locate_fallbacks"] = {"switches": {"texture": "no"}}
    (tmp_path / "board.onnx.json").write_text(json.dumps(card))
    with pytest.raises(BoardModelError, match="not true or false"):
        BoardLocator(model)
    assert BoardLocator(None).fallbacks == LocateFallbacks()
