"""Calibrated class probabilities: the pip network's probabilities, tempered and
weighed by a class prior, so that "0.9 sure" means right nine times in ten on photos
like the validation split's.

Per photo band (``BANDS``: blurred, sharp, clearly sharp; the reader's ``sharpness``
bars) a temperature T, and per band and printed cell kind (dark, light x2) a log prior
b over the 8 classes: q = softmax(log p / T + b). Training shows the network few empty
cells and weights the classes, so its "empty" is too unlikely against a real board;
the prior puts that right where the data says so (it replaced the hand-set odds
``EMPTY_ODDS_SHARP`` and ``LIGHT_EMPTY_ODDS``), and a larger temperature on blurred
photos replaced their own, higher bar. Fitted by ``zatre_vision.training.fit_reader``
on a validation split (maximum likelihood), stored in the model card. Pure numpy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: the photo bands: blurred (sharpness below ``sharp_enough``), sharp, and clearly sharp
#: (from ``clear_sharpness``)
BANDS = ("blurred", "sharp", "clear")
#: the printed cell kinds
KINDS = ("dark", "light")
N_CLASSES = 8


def band_of(sharpness: float, sharp_enough: float, clear_sharpness: float) -> int:
    """The index in ``BANDS`` of a photo of this ``sharpness``."""
    return 0 if sharpness < sharp_enough else 2 if sharpness >= clear_sharpness else 1


@dataclass(frozen=True)
class ProbabilityCalibration:
    """Temperatures per band and log priors per (kind, band, class)."""

    temperature: tuple[float, ...] = (1.0, 1.0, 1.0)
    #: log prior, [kind][band][class]; zeros: the network as it is
    log_prior: tuple[tuple[tuple[float, ...], ...], ...] = tuple(
        tuple((0.0,) * N_CLASSES for _ in BANDS) for _ in KINDS)

    def __post_init__(self) -> None:
        t = np.asarray(self.temperature, float)
        b = np.asarray(self.log_prior, float)
        if t.shape != (len(BANDS),) or not np.all((t >= 0.2) & (t <= 10.0)):
            raise ValueError(f"calibration temperature {self.temperature} must be "
                             f"{len(BANDS)} values in 0.2..10")
        if b.shape != (len(KINDS), len(BANDS), N_CLASSES) or not np.all(np.abs(b) <= 10.0):
            raise ValueError("calibration log_prior must be [kind][band][class] "
                             f"({len(KINDS)} x {len(BANDS)} x {N_CLASSES}), each within "
                             "-10..10")

    @classmethod
    def identity(cls) -> ProbabilityCalibration:
        """The network's own probabilities."""
        return cls()

    def apply(self, probs: np.ndarray, is_light: np.ndarray, band: int) -> np.ndarray:
        """(N, 8) calibrated probabilities of (N, 8) network probabilities for cells of
        kinds ``is_light`` (N booleans) on a photo of band ``band``."""
        z = np.log(np.clip(np.asarray(probs, np.float64), 1e-12, 1.0))
        z = z / self.temperature[band] + np.asarray(self.log_prior)[
            np.asarray(is_light, np.intp), band]
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)

    def to_card(self) -> dict:
        return {"temperature": {b: round(float(t), 4)
                                for b, t in zip(BANDS, self.temperature, strict=True)},
                "log_prior": {k: {b: [round(float(v), 4) for v in self.log_prior[i][j]]
                                  for j, b in enumerate(BANDS)}
                              for i, k in enumerate(KINDS)}}

    @classmethod
    def from_card(cls, d: dict) -> ProbabilityCalibration:
        """From ``to_card``'s form; ValueError when it does not fit."""
        try:
            t = tuple(float(d["temperature"][b]) for b in BANDS)
            prior = tuple(tuple(tuple(float(v) for v in d["log_prior"][k][b])
                                for b in BANDS) for k in KINDS)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"unusable probability calibration ({exc})") from None
        return cls(t, prior)


__all__ = ["BANDS", "KINDS", "ProbabilityCalibration", "band_of"]
