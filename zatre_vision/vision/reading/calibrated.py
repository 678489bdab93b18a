"""Calibrated class probabilities: the pip network's logits turned into probabilities
that mean what they say on the world the reader meets.

The network is trained with label smoothing, a class weighting of 1/sqrt(count) and
only 30 % of the empty cells kept, so its softmax is neither sharp nor sized like a
real board: "empty" comes out several times too unlikely, and a reading of 0.9 is
not right nine times in ten. A ``ProbabilityCalibration`` holds one temperature per
printed cell kind (dark cells, light x2 cells) and one log prior per class:

    p = softmax(logits / T[kind] + log_prior)

fitted by ``training/fit_reader.py`` on fitting photos (other makers' tiles, the
training prints, real-room conditions; never the bench seeds) and stored in the pip
model's card under ``reader_thresholds.calibration``. Pure numpy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..geometry import IS_LIGHT

#: bounds of a fitted temperature and of a class's log prior (outside them the card is
#: refused: a fit that ran away, or a hand-edited file)
TEMPERATURE_BOUNDS = (0.2, 5.0)
LOG_PRIOR_BOUNDS = (-6.0, 6.0)


class CalibrationError(ValueError):
    """A calibration entry that cannot be used (wrong shape, out of bounds)."""


def softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


@dataclass(frozen=True)
class ProbabilityCalibration:
    """A temperature per cell kind and a log prior per class (see the module)."""

    temperature_dark: float = 1.0
    temperature_light: float = 1.0
    log_prior: tuple[float, ...] = (0.0,) * 8

    def __post_init__(self) -> None:
        low, high = TEMPERATURE_BOUNDS
        for name in ("temperature_dark", "temperature_light"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and low <= value <= high):
                raise CalibrationError(f"calibration {name} = {value!r} is outside "
                                       f"{low}..{high}")
        if len(self.log_prior) != 8:
            raise CalibrationError(f"calibration log_prior has {len(self.log_prior)} "
                                   "values, not 8")
        low, high = LOG_PRIOR_BOUNDS
        if not all(isinstance(v, (int, float)) and low <= v <= high for v in self.log_prior):
            raise CalibrationError(f"calibration log_prior {list(self.log_prior)} is "
                                   f"outside {low}..{high}")

    @property
    def identity(self) -> bool:
        return (self.temperature_dark == 1.0 and self.temperature_light == 1.0
                and not any(self.log_prior))

    def scaled(self, logits: np.ndarray, cells: np.ndarray | None) -> np.ndarray:
        """The calibrated logits (N, 8) of crops of ``cells`` (indices in
        ``CELL_NAMES`` order; None: every crop a dark cell)."""
        logits = np.asarray(logits, np.float64)
        light = (IS_LIGHT[np.asarray(cells)] if cells is not None
                 else np.zeros(len(logits), bool))
        t = np.where(light, self.temperature_light, self.temperature_dark)[:, None]
        return logits / t + np.asarray(self.log_prior, np.float64)[None, :]

    def probabilities(self, logits: np.ndarray, cells: np.ndarray | None) -> np.ndarray:
        return softmax(self.scaled(logits, cells))

    def to_card(self) -> dict:
        return {"temperature": {"dark": round(self.temperature_dark, 5),
                                "light": round(self.temperature_light, 5)},
                "log_prior": [round(float(v), 5) for v in self.log_prior],
                "formula": "softmax(logits / temperature[cell kind] + log_prior)"}

    @classmethod
    def from_card(cls, entry: dict | None) -> ProbabilityCalibration:
        """From a card's ``reader_thresholds.calibration`` (None or missing: the
        identity, the network's own softmax). CalibrationError when unusable."""
        if entry is None:
            return cls()
        try:
            t = entry["temperature"]
            return cls(float(t["dark"]), float(t["light"]),
                       tuple(float(v) for v in entry["log_prior"]))
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, CalibrationError):
                raise
            raise CalibrationError(f"calibration entry unusable ({exc!r})") from None


__all__ = ["CalibrationError", "ProbabilityCalibration", "softmax"]
