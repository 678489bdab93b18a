"""``ReadResult``: what ``BoardReader.read`` says about one frame, and how cells that a
second look settles are taken out of its uncertain ones (``settle``).

``to_json`` gives the contract's form (``zatre read``), plus ``board_print`` on a board
found (additive); the other fields are the reader's evidence, kept for the benchmark, the live tracker and tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..geometry import CELL_NAMES, GridModel, reading_key
from ..location import Proof


@dataclass
class ReadResult:
    board_found: bool
    corners: list[list[float]] | None = None
    cells: dict[str, int] = field(default_factory=dict)
    uncertain: list[str] = field(default_factory=list)
    occluded: list[str] = field(default_factory=list)
    elapsed_ms: float = 0.0
    #: per cell (CELL_NAMES order): class index (0 empty, 1..6 pips, 7 occluded)
    classes: np.ndarray | None = None
    #: per cell: the network's probabilities of the 8 classes (steadied; before
    #: ``decide`` raises any odds or gives away the occluded share)
    probabilities: np.ndarray | None = None
    #: per cell: classical pip count (pips.NOT_CHECKED -2, pips.CANNOT_TELL -1, 0 no tile)
    pip_counts: np.ndarray | None = None
    #: True when the frame had ``ReaderConfig.doubtful_frame`` doubtful cells or more
    #: (or ``doubtful_frame_streaked`` on a streaked photo), or its orientation is a
    #: guess, so that no cell was reported: all 193 are uncertain (``held_back``)
    doubtful_frame: bool = False
    #: the rectified board's ``sharpness``; below ``ReaderConfig.sharp_enough`` the
    #: higher bar was used
    sharpness: float | None = None
    model: GridModel | None = None
    locate_score: float = 0.0
    source: str = "locate"
    #: uncertain cells that the re-centred reading settled (``decide.recentre``; they
    #: are in ``cells``)
    recentred: list[str] = field(default_factory=list)
    #: uncertain cells at a hand's edge that ``decide.beside_hand`` settled (tiles
    #: among them are in ``cells``)
    beside_hand: list[str] = field(default_factory=list)
    #: how the grid proved itself against the print (``print_proof.Proof``; on a board
    #: not found, the fit that failed to, if any); None where not checked
    print_proof: Proof | None = None
    #: cells the classical pip count, sure and two pips or more away, contradicted
    #: (uncertain however sure the network was; ``decide.sure_count_disagrees``)
    vetoed: list[str] = field(default_factory=list)
    #: the print the grid proved itself against, named by its colours
    #: (``calibration/prints/``; None: no board, or not checked)
    board_print: str | None = None
    #: False: the board was found but which way round it lies is a guess (a print with
    #: no label or logo seen, turned about 45 degrees, no calibration): the frame is
    #: doubtful, every cell uncertain
    orientation_known: bool = True

    def held_back(self) -> None:
        """No cell reported: every one of them uncertain, the frame doubtful."""
        self.cells = {}
        self.uncertain = sorted(CELL_NAMES, key=reading_key)
        self.doubtful_frame = True

    def to_json(self) -> dict:
        d: dict = {"board_found": self.board_found}
        if self.board_found:
            d["corners"] = self.corners
        d["cells"] = self.cells
        d["uncertain"] = self.uncertain
        d["occluded"] = self.occluded
        d["elapsed_ms"] = round(self.elapsed_ms, 1)
        if self.board_found:
            d["board_print"] = self.board_print   # additive: docs/api-additions.md
        return d


def settle(result: ReadResult, settled: list[str]) -> None:
    """Take the ``settled`` cells of ``result`` as read: out of ``uncertain`` and
    ``occluded`` (their values, if tiles, are already in ``result.cells``), and the
    cells back in reading order."""
    if not settled:
        return
    done = set(settled)
    result.uncertain = [n for n in result.uncertain if n not in done]
    result.occluded = [n for n in result.occluded if n not in done]
    result.cells = {n: result.cells[n] for n in sorted(result.cells, key=reading_key)}
