"""Board location as proposers (``location/proposers.py``): each way of proposing is a
plugin with one method, the pipeline runs them in order, gives their candidates the one
shared refine and the print proof, and stops at the first that proves itself."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

import zatre_vision.vision.location.proposers as pr
from zatre_vision.vision.location import (
    DEFAULT_BOARD_MODEL,
    MARKERLESS,
    BoardLocator,
    Candidate,
    FallbacksError,
    LocateFallbacks,
    ProofSetup,
    expectations,
    locate_board,
)
from zatre_vision.vision.location.fallbacks import LAST_RESORT, NAMES, REFINE_STEPS
from zatre_vision.vision.location.find_board import corner_gap_cells
from zatre_vision.vision.location.grid_fit import plain_model
from zatre_vision.vision.location.locate import to_grey
from zatre_vision.vision.location.print_proof import ProofConfig


class _Reading:
    quality = 0.0


@pytest.fixture(scope="module")
def setup() -> ProofSetup:
    from zatre_vision.board_prints import load_prints

    prints = load_prints()
    return ProofSetup(ProofConfig(), expectations(prints), prints)


def _photo(photos, name="some"):
    path, truth = photos[name]
    corners = np.asarray(truth["corners"], np.float64)
    return cv2.imread(str(path)), corners, float(np.linalg.norm(corners[1] - corners[0])) / 15


def _table(img) -> np.ndarray:
    """A grid over the table in the frame's top-left corner, where there is no board."""
    h, w = img.shape[:2]
    return plain_model(np.array([[0.0, 0.0], [0.2 * w, 0.0], [0.2 * w, 0.2 * h],
                                 [0.0, 0.2 * h]]), w, h)


class _Fixed:
    """A proposer that proposes ``models`` and counts its calls."""

    def __init__(self, name: str, *models):
        self.name, self.models, self.calls = name, models, 0

    def propose(self, frame):
        self.calls += 1
        return [Candidate(m, 0.9, self.name) for m in self.models]


def _locate(img, locator, setup):
    return locate_board(img, to_grey(img), locator, lambda model: _Reading(), setup)


def _counting(monkeypatch) -> dict[str, int]:
    """Counts every call of every markerless proposer's ``propose``."""
    calls = {n: 0 for n in MARKERLESS}
    for cls in (pr.Network, pr.LineSearch, pr.CornerMoves, pr.Mirrored, pr.Texture):
        real = cls.propose

        def counted(self, frame, real=real):
            calls[self.name] += 1
            return real(self, frame)
        monkeypatch.setattr(cls, "propose", counted)
    return calls


def test_a_normal_photo_costs_the_networks_proposal_alone(photos, setup, monkeypatch):
    """The network's fit proves itself: no fallback proposer is asked."""
    img, truth, cell = _photo(photos)
    calls = _counting(monkeypatch)
    board = _locate(img, BoardLocator(), setup)
    assert board.found and board.source == "locate:net"
    assert corner_gap_cells(board.model.corners(), truth, cell) < 0.3
    assert calls == {"network": 1, "line_search": 0, "corner_moves": 0, "mirrored": 0,
                     "texture": 0}


@pytest.mark.parametrize("off", LAST_RESORT)
def test_a_proposer_switched_off_is_never_asked(off, setup, monkeypatch):
    """On a table without a board nothing proves itself, so every proposer switched on
    is asked once, and the one switched off never."""
    table = np.full((480, 640, 3), 120, np.uint8)
    cv2.randn(table, 120, 25)
    calls = _counting(monkeypatch)
    locator = BoardLocator()
    locator.fallbacks = LocateFallbacks().without(off)
    board = _locate(table, locator, setup)
    assert not board.found
    assert calls[off] == 0
    assert all(calls[n] == 1 for n in LAST_RESORT if n != off)
    assert [p.name for p in locator.proposers()] == [
        "network", *(n for n in LAST_RESORT if n != off)]


def test_candidates_that_fail_the_proof_are_never_returned(photos, setup):
    """The first proposer's grid lies on the table: it is not returned, and the next
    proposer's grid, which proves itself, is."""
    img, truth, cell = _photo(photos)
    right = BoardLocator().locate(img).result.model
    table, board_fit = _Fixed("network", _table(img)), _Fixed("line_search", right)
    locator = BoardLocator()
    locator.proposers = lambda: [table, board_fit]
    board = _locate(img, locator, setup)
    assert board.found and board.source == "locate:classical"
    assert corner_gap_cells(board.model.corners(), truth, cell) < 0.3
    assert table.calls == board_fit.calls == 1
    # nothing proves itself: no board, with the proof that failed
    locator.proposers = lambda: [_Fixed("network", _table(img))]
    nothing = _locate(img, locator, setup)
    assert not nothing.found and nothing.proof is not None and not nothing.proof.proved


def test_the_first_proposer_whose_candidate_proves_wins(photos, setup):
    """Two proposers with a grid that proves: the first is picked and the second is
    never asked."""
    img, _, _ = _photo(photos)
    right = BoardLocator().locate(img).result.model
    first, second = _Fixed("texture", right), _Fixed("line_search", right)
    locator = BoardLocator()
    locator.proposers = lambda: [first, second]
    board = _locate(img, locator, setup)
    assert board.found and board.source == "locate:texture"
    assert (first.calls, second.calls) == (1, 0)


def test_a_proposer_that_proposes_nothing_is_passed_over(photos, setup):
    img, _, _ = _photo(photos)
    right = BoardLocator().locate(img).result.model
    empty, found = _Fixed("network"), _Fixed("mirrored", right)
    locator = BoardLocator()
    locator.proposers = lambda: [empty, found]
    assert _locate(img, locator, setup).source == "locate:net"
    assert (empty.calls, found.calls) == (1, 1)


def test_every_fallback_in_the_committed_card_is_known():
    card = json.loads(Path(str(DEFAULT_BOARD_MODEL) + ".json").read_text())
    switches = card["locate_fallbacks"]["switches"]
    assert set(switches) == set(NAMES) == set(LAST_RESORT) | set(REFINE_STEPS)
    loaded = LocateFallbacks.from_card(card)
    assert loaded.as_dict() == switches          # loads meaning the same
    assert set(loaded.proposers) == {n for n in LAST_RESORT if switches[n]}
    assert set(MARKERLESS) == {"network", *LAST_RESORT}


def test_an_unknown_proposer_gives_a_clear_one_line_error():
    with pytest.raises(FallbacksError) as err:
        LocateFallbacks.from_card({"locate_fallbacks": {"switches": {"textures": False}}})
    message = str(err.value)
    assert "\n" not in message and "'textures'" in message and "texture" in message
    with pytest.raises(FallbacksError, match="unknown fallback 'magic'"):
        LocateFallbacks.of(("line_search", "magic"))
    with pytest.raises(FallbacksError, match="no fallback 'magic'"):
        LocateFallbacks().without("magic")


def test_the_fallbacks_keep_their_order_whatever_order_they_are_given_in():
    on = LocateFallbacks.of(("texture", "line_search", "border_moves"))
    assert on.on == ("border_moves", "line_search", "texture")
    assert on.proposers == ("line_search", "texture")
    assert "texture" in on and "mirrored" not in on
    assert LocateFallbacks.switched(**on.as_dict()) == on
