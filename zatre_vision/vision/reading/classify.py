"""The ONNX pip classifier and its model card (``models/pips.onnx`` + ``.json``).

The model takes normalised grey crops, shape (N, 1, CROP, CROP), and returns one row of
class scores per crop. Classes are named in the card: ``empty``, ``1`` .. ``6``,
``occluded``. A model with a second input, ``kind`` (N, 1), also takes each crop's printed
cell kind (1.0 on a light x2 cell): the caller then says which cell each crop shows.
A model with a second output, ``features`` (the penultimate layer, see the card's
``outputs``), can be adapted to a table's own tiles: with an ``adaptation``
(``tile_adapt.TileAdaptation``) the class probabilities come from it, computed from the
logits and features. Only onnxruntime and numpy are needed at run time.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..geometry import IS_LIGHT
from ..onnx_session import open_session
from .calibrated import CalibrationError, ProbabilityCalibration

DEFAULT_MODEL = Path(__file__).resolve().parents[3] / "models" / "pips.onnx"
CLASSES = ("empty", "1", "2", "3", "4", "5", "6", "occluded")
OCCLUDED = CLASSES.index("occluded")


class ModelError(Exception):
    """The model file or its card is missing or unusable."""


@dataclass(frozen=True)
class ModelCard:
    classes: tuple[str, ...]
    input_size: int
    data: dict

    @classmethod
    def load(cls, path: Path) -> ModelCard:
        try:
            d = json.loads(Path(path).read_text(encoding="utf-8"))
            return cls(tuple(d["classes"]), int(d["input_size"]), d)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ModelError(f"{path}: unusable model card ({exc})") from None


def kind_input(cells) -> np.ndarray:
    """The ``kind`` input for crops of ``cells`` (indices in ``CELL_NAMES`` order):
    (N, 1) float32, 1.0 on a light x2 cell. Training feeds the network the same."""
    return IS_LIGHT[np.asarray(cells)].astype(np.float32)[:, None]


def softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


#: crops per run of the network. Its first layer's output for a whole frame's 193
#: crops is ~7 MB, more than a core's cache, so one big batch waits on memory; in
#: batches of 32 the same outputs (bit for bit: each crop is computed on its own) come
#: ~30 % sooner (wide photos, a frame's two runs: 11.5 -> 8.1 ms).
BATCH = 32


class PipClassifier:
    """onnxruntime session, single-threaded by default, warmed up at load."""

    def __init__(self, model_path: Path | str = DEFAULT_MODEL, threads: int = 1):
        self.path = Path(model_path)
        if not self.path.is_file():
            raise ModelError(f"{self.path}: model file not found")
        self.card = ModelCard.load(self.path.with_suffix(self.path.suffix + ".json"))
        if self.card.classes != CLASSES:
            raise ModelError(f"{self.path}: classes {self.card.classes} are not {CLASSES}")
        self.session = open_session(self.path, threads, ModelError)
        inputs = [i.name for i in self.session.get_inputs()]
        if inputs not in (["crops"], ["crops", "kind"]):
            raise ModelError(f"{self.path}: inputs {inputs} are not crops (and kind)")
        #: the model also takes each crop's cell kind (light x2 cell or not)
        self.takes_kind = len(inputs) == 2
        outputs = [o.name for o in self.session.get_outputs()]
        #: the model gives out its penultimate layer too (``features``)
        self.has_features = "features" in outputs
        #: a table's own tiles (``tile_adapt.TileAdaptation``): when set, it turns each
        #: crop's logits and features into the class probabilities
        self.adaptation = None
        #: the card's fitted calibration (``calibrated.ProbabilityCalibration``;
        #: the identity for a card without one): every probability goes through it
        try:
            self.calibration = ProbabilityCalibration.from_card(
                (self.card.data.get("reader_thresholds") or {}).get("calibration"))
        except CalibrationError as exc:
            raise ModelError(f"{self.path}.json: {exc}") from None
        s = self.card.input_size
        self.probabilities(np.zeros((193, s, s), np.float32), np.arange(193))  # warm-up

    def probabilities(self, crops: np.ndarray, cells: np.ndarray | None = None
                      ) -> np.ndarray:
        """(N, 8) class probabilities for (N, S, S) normalised crops of the cells
        ``cells`` (N indices in ``CELL_NAMES`` order; needed when the model takes the
        cell kind). With an ``adaptation``, its probabilities; else the network's
        logits through the card's ``calibration``."""
        if self.adaptation is not None:
            logits, features = self.outputs(crops, cells)
            return self.adaptation.probabilities(logits, features, cells)
        logits = self.logits(crops, cells)
        if self.calibration.identity:
            return softmax(logits)
        return self.calibration.probabilities(logits, cells)

    def logits(self, crops: np.ndarray, cells: np.ndarray | None = None) -> np.ndarray:
        """The network's own (N, 8) logits (float64), before any calibration."""
        return self._run(crops, cells, ["logits"])[0].astype(np.float64)

    def outputs(self, crops: np.ndarray, cells: np.ndarray | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
        """The base network's (N, 8) logits and (N, C) features of the crops (float64);
        ModelError for a model without the ``features`` output."""
        if not self.has_features:
            raise ModelError(f"{self.path}: the model has no features output (add it with "
                             "python -m zatre_vision.training.features_output)")
        logits, features = self._run(crops, cells, ["logits", "features"])
        return logits.astype(np.float64), features.astype(np.float64)

    def _run(self, crops: np.ndarray, cells: np.ndarray | None, names: list[str]
             ) -> list[np.ndarray]:
        x = np.ascontiguousarray(crops[:, None, :, :], np.float32)
        kind = None
        if self.takes_kind:
            if cells is None or len(cells) != len(crops):
                raise ValueError("this pip model needs the cell of every crop")
            kind = kind_input(cells)
        runs = []
        for i in range(0, max(len(x), 1), BATCH):
            feed = {"crops": x[i:i + BATCH]}
            if kind is not None:
                feed["kind"] = kind[i:i + BATCH]
            runs.append(self.session.run(names, feed))
        return [np.concatenate([r[k] for r in runs]) for k in range(len(names))]
