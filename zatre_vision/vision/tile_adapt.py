"""A table's own tiles: a small head, fitted in numpy on the pip model's features,
that corrects the base network's logits for one set of tiles (``zatre calibrate
tiles``).

The adapted logits of empty and the six values are the base logits plus a linear
function of the standardised features (and the cell kind), ``z = logits[:7] + x W +
b``; "occluded" keeps the base logit (calibration photos show no hands to learn it
from), and where the head and the base network disagree on whether a tile is there the
cell is left unsure (``ABSENT_PRESENT``). The head is fitted by gradient descent on the
cross-entropy of cells whose contents are known, each crop seen in the eight turns and
mirrors of a square, moved a pixel, blurred, and brighter or darker (``cell_samples``),
with a ridge penalty that keeps it near the base model where the photos say nothing. No
torch: a few thousand crops and a 97 x 7 matrix, seconds on one core.

``TileAdaptation.probabilities`` is the hook the reader uses: the classifier
(``classify.PipClassifier.adaptation``) hands it each crop's logits and features, and
every decision downstream (``reader.BoardReader``) weighs the adapted probabilities
with its usual thresholds. An adaptation that the held-back check found no better than
the base model is kept as a file that says so (``adapted`` false) and changes nothing.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from .cells import moved_crops, oriented
from .classify import CLASSES, OCCLUDED, softmax
from .geometry import IS_LIGHT

#: ABSENT_PRESENT: the head decides which value a tile shows, and whether a cell the base
#: network calls occluded holds a tile; it does not alone overturn the base network's
#: "empty" or "a tile". On a square-pips photo a head fitted on two calibration photos
#: read a bare light x2 cell as a four, sure of it (the base network: empty, 0.76);
#: where the two disagree so, the cell is left uncertain.
ABSENT_PRESENT = "mean of the two readings"
#: the classes the head tells apart: empty and the six tile values (not "occluded":
#: calibration photos show no hands to learn it from)
TILES = slice(0, 7)
TILE_VALUES = slice(1, 7)
N_TILES = 7
FORMAT = "zatre-tiles"
VERSION = 1
#: ridge penalty on the head's weights (standardised features, mean loss per crop).
#: Chosen on the held-out styles "grey-small", "square-pips" and "tiny-wide", eight
#: test photos each (0.03 and 0.01 left more frames held back; the last two styles are
#: also in the benchmark, so its figures for them are not fully held out)
RIDGE = 0.001
#: gradient-descent steps (Adam) and their size (fewer steps after the first benchmark
#: run: 300 took up to 13 s of one core for two photos, over a minute on a Pi 4)
STEPS = 200
STEP_SIZE = 0.06
#: each calibration crop is seen in the eight orientations of a square, each moved by
#: one of these (pixels): as the reader reads a doubtful cell again (``steadied``)
SAMPLE_SHIFTS = np.array([(0, 0), (1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, -1),
                          (0, 0)], np.int32)
#: ... and also from the board blurred by each of these (Gaussian sigma, board pixels at
#: 20 a cell): the calibration photos are sharp, a camera further away or out of focus
#: is not (the network's training blurs a share of its crops alike)
SAMPLE_BLURS = (0.8, 1.3)
#: ... and with its brightness scaled by each of these: the reader divides a board by
#: its bright level, which a board with fewer tiles, or glare, sets otherwise
SAMPLE_GAINS = (0.88, 1.12)


class TilesError(Exception):
    """A tiles file that is missing, unreadable or made for another pip model."""


@dataclass
class Samples:
    """Training rows: the base network's logits and features of crops whose class is
    known, with each crop's cell (index in ``CELL_NAMES`` order)."""

    logits: np.ndarray
    features: np.ndarray
    labels: np.ndarray
    cells: np.ndarray

    @classmethod
    def empty(cls, width: int) -> Samples:
        return cls(np.zeros((0, len(CLASSES))), np.zeros((0, width)), np.zeros(0, np.int64),
                   np.zeros(0, np.intp))

    def __add__(self, other: Samples) -> Samples:
        return Samples(*(np.concatenate([a, b]) for a, b in
                         zip((self.logits, self.features, self.labels, self.cells),
                             (other.logits, other.features, other.labels, other.cells),
                             strict=True)))

    def __len__(self) -> int:
        return len(self.labels)

    def subset(self, keep: np.ndarray) -> Samples:
        """The rows of the cells ``keep`` (a mask over ``CELL_NAMES``)."""
        return self.subset_rows(keep[self.cells])

    def subset_rows(self, rows: np.ndarray) -> Samples:
        return Samples(self.logits[rows], self.features[rows], self.labels[rows],
                       self.cells[rows])


def cell_samples(classifier, board: np.ndarray, cells: np.ndarray, labels: np.ndarray
                 ) -> Samples:
    """Rows for the ``cells`` of a rectified, normalised ``board`` whose classes are
    ``labels`` (0 empty, 1..6): every crop in the eight orientations, each moved by one
    of SAMPLE_SHIFTS, read by the base network (``classifier.outputs``)."""
    cells = np.asarray(cells, np.intp)
    shown = []
    variants = [(0.0, 1.0)] + [(b, 1.0) for b in SAMPLE_BLURS] + [(0.0, g)
                                                                   for g in SAMPLE_GAINS]
    for blur, gain in variants:
        b = board if blur == 0 else cv2.GaussianBlur(board, (0, 0), blur)
        moved = moved_crops(b * np.float32(gain), cells, SAMPLE_SHIFTS)
        shown += [oriented(m, k) for k, m in enumerate(moved)]
    index = np.tile(cells, len(shown))
    logits, features = classifier.outputs(np.concatenate(shown), index)
    return Samples(logits, features, np.tile(np.asarray(labels, np.int64), len(shown)),
                   index)



def _design(features: np.ndarray, cells, mean: np.ndarray, scale: np.ndarray
            ) -> np.ndarray:
    kind = IS_LIGHT[np.asarray(cells, np.intp)].astype(np.float64)[:, None]
    return np.hstack([(features - mean) / scale, kind])


@dataclass
class TileAdaptation:
    """The fitted head (``weights`` (C + 1, 8), ``bias`` (8,), feature ``mean`` and
    ``scale``) and what the fit found (``report``)."""

    weights: np.ndarray
    bias: np.ndarray
    mean: np.ndarray
    scale: np.ndarray
    #: the held-back check found it better than the base model (else it is not used)
    adapted: bool = True
    report: dict = field(default_factory=dict)
    #: the pip model it was fitted on (its card's name and the file's size in bytes)
    model: dict = field(default_factory=dict)

    # -- the hook --------------------------------------------------------------------
    def tile_logits(self, logits: np.ndarray, features: np.ndarray, cells) -> np.ndarray:
        """(N, 7) adapted logits of empty and the six tile values."""
        delta = _design(features, cells, self.mean, self.scale) @ self.weights + self.bias
        return logits[:, TILES] + delta

    def probabilities(self, logits: np.ndarray, features: np.ndarray, cells) -> np.ndarray:
        """(N, 8) class probabilities of crops from the base ``logits`` and
        ``features`` of the cells ``cells``: the adapted logits of empty and the six
        values, the base logit of "occluded". Where the head and the base network
        disagree on whether a tile is there (one reads empty, the other a value; for
        the base network: half its probability or more on empty, or on the values), the
        mean of their two readings: unsure, so the reader leaves the cell uncertain
        (ABSENT_PRESENT)."""
        if cells is None:
            raise ValueError("an adaptation needs the cell of every crop")
        z = logits.copy()
        z[:, TILES] = self.tile_logits(logits, features, cells)
        adapted = softmax(z)
        base = softmax(logits)
        a = adapted.argmax(axis=1)
        tile_a = (a > 0) & (a < OCCLUDED)
        disagree = (((base[:, 0] >= 0.5) & tile_a)
                    | ((base[:, TILE_VALUES].sum(axis=1) >= 0.5) & (a == 0)))
        adapted[disagree] = (base[disagree] + adapted[disagree]) / 2
        return adapted

    # -- fitting ---------------------------------------------------------------------
    @classmethod
    def fit(cls, samples: Samples, ridge: float | None = None, steps: int | None = None,
            step_size: float | None = None) -> TileAdaptation:
        """The head that best tells the classes of ``samples`` apart, as a correction
        of the base logits (each class's crops weighted alike in total, so that a few
        tiles of one value count)."""
        ridge = RIDGE if ridge is None else ridge
        steps = STEPS if steps is None else steps
        step_size = STEP_SIZE if step_size is None else step_size
        tiles = samples
        if len(tiles) == 0:
            raise ValueError("no calibration cell to learn from")
        mean = tiles.features.mean(axis=0)
        scale = tiles.features.std(axis=0) + 1e-3
        x = _design(tiles.features, tiles.cells, mean, scale).astype(np.float32)
        n, d = x.shape
        k = N_TILES
        labels = tiles.labels
        y = np.zeros((n, k))
        y[np.arange(n), labels] = 1.0
        counts = np.bincount(labels, minlength=k).astype(np.float64)
        w = (1.0 / np.maximum(counts, 1))[labels]  # absent classes have no rows
        w = w / w.sum()
        base = tiles.logits.astype(np.float32)
        w = w.astype(np.float32)
        weights, bias = np.zeros((d, k), np.float32), np.zeros(k, np.float32)
        m_w, v_w = np.zeros((d, k), np.float32), np.zeros((d, k), np.float32)
        m_b, v_b = np.zeros(k, np.float32), np.zeros(k, np.float32)
        b1, b2 = 0.9, 0.999
        y = np.hstack([y, np.zeros((n, base.shape[1] - k))]).astype(np.float32)
        z = base.copy()
        for t in range(1, steps + 1):
            z[:, TILES] = base[:, TILES] + x @ weights + bias
            g = ((softmax(z) - y) * w[:, None])[:, TILES]
            g_w = x.T @ g + 2 * ridge * weights
            g_b = g.sum(axis=0)
            m_w = b1 * m_w + (1 - b1) * g_w
            v_w = b2 * v_w + (1 - b2) * g_w ** 2
            m_b = b1 * m_b + (1 - b1) * g_b
            v_b = b2 * v_b + (1 - b2) * g_b ** 2
            lr = step_size * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
            weights -= lr * m_w / (np.sqrt(v_w) + 1e-8)
            bias -= lr * m_b / (np.sqrt(v_b) + 1e-8)
        return cls(weights.astype(np.float64), bias.astype(np.float64), mean, scale)

    # -- the file --------------------------------------------------------------------
    def to_json(self) -> dict:
        return {"format": FORMAT, "version": VERSION, "adapted": self.adapted,
                "model": self.model, "report": self.report,
                "head": {"weights": np.round(self.weights, 7).tolist(),
                         "bias": np.round(self.bias, 7).tolist(),
                         "mean": np.round(self.mean, 7).tolist(),
                         "scale": np.round(self.scale, 7).tolist()}}

    @classmethod
    def from_json(cls, d: object, where: str = "tiles file") -> TileAdaptation:
        try:
            if not isinstance(d, dict) or d.get("format") != FORMAT:
                raise TilesError(f"{where}: not a tiles file (zatre calibrate tiles)")
            if d.get("version") != VERSION:
                raise TilesError(f"{where}: tiles file version {d.get('version')!r} is not "
                                 f"{VERSION}")
            h = d["head"]
            arrays = [np.asarray(h[k], np.float64) for k in ("weights", "bias", "mean",
                                                              "scale")]
            w, b, mean, scale = arrays
            c = len(mean)
            if (w.shape != (c + 1, N_TILES) or b.shape != (N_TILES,)
                    or scale.shape != (c,) or not all(np.isfinite(a).all() for a in arrays)
                    or (scale <= 0).any()):
                raise TilesError(f"{where}: the tiles file's head is damaged")
            return cls(w, b, mean, scale, adapted=bool(d.get("adapted", False)),
                       report=dict(d.get("report") or {}), model=dict(d.get("model") or {}))
        except (KeyError, TypeError, ValueError, AttributeError):
            raise TilesError(f"{where}: the tiles file's head is damaged") from None

    def save(self, path: Path | str) -> None:
        """Write the file atomically (a reader never sees half a file)."""
        path = Path(path)
        text = json.dumps(self.to_json(), ensure_ascii=False) + "\n"
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or Path("."))
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    @classmethod
    def load(cls, path: Path | str) -> TileAdaptation:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise TilesError(f"{path}: no such file") from None
        except IsADirectoryError:
            raise TilesError(f"{path}: is a folder, not a tiles file") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise TilesError(f"{path}: cannot be read ({exc.__class__.__name__})") from None
        try:
            d = json.loads(text)
        except (ValueError, RecursionError):
            raise TilesError(f"{path}: not valid JSON") from None
        return cls.from_json(d, str(path))


def model_identity(classifier) -> dict:
    """What ties an adaptation to its pip model: the card's name, the features' width
    and the model file's size."""
    width = None
    for out in classifier.session.get_outputs():
        if out.name == "features" and isinstance(out.shape[1], int):
            width = int(out.shape[1])
    return {"name": classifier.card.data.get("name"), "features": width,
            "bytes": classifier.path.stat().st_size}


def attach(classifier, adaptation: TileAdaptation | None, where: str = "tiles file") -> None:
    """Use ``adaptation`` in ``classifier`` (None, or one not ``adapted``: the base
    model). TilesError when it was fitted on another pip model."""
    if adaptation is None or not adaptation.adapted:
        classifier.adaptation = None
        return
    if not classifier.has_features:
        raise TilesError(f"{where}: the pip model {classifier.path} has no features output")
    if adaptation.model and adaptation.model != model_identity(classifier):
        raise TilesError(f"{where}: made for another pip model "
                         f"({adaptation.model.get('name')}, {adaptation.model.get('bytes')} "
                         "bytes); run zatre calibrate tiles again")
    if len(adaptation.mean) != model_identity(classifier)["features"]:
        raise TilesError(f"{where}: made for another pip model; run zatre calibrate tiles "
                         "again")
    classifier.adaptation = adaptation


def tiles_path(calibration: Path | str) -> Path:
    """Where a table keeps its own tiles: beside its calibration file
    (``calibration.json`` -> ``calibration.tiles.json``); the live service reads them
    from there."""
    calibration = Path(calibration)
    return calibration.with_name(calibration.stem + ".tiles.json")


def load_beside(calibration: Path | str | None) -> TileAdaptation | None:
    """The table's own tiles stored beside ``calibration``, or None when there are none
    (or the file cannot be used: the base model then reads, and a line on standard
    error says why)."""
    if not calibration:
        return None
    path = tiles_path(calibration)
    if not path.is_file():
        return None
    try:
        return TileAdaptation.load(path)
    except TilesError as exc:
        import sys

        print(f"zatre: {exc}; reading with the base model", file=sys.stderr)
        return None
