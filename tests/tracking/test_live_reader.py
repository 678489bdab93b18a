"""The live pipeline's reader keeps a fit between frames; a camera that comes back with
another frame shape makes it search again instead of stopping."""

from types import SimpleNamespace

import pytest

from zatre_vision.tracking.live_reader import LIVE_VETO_CONFIDENCE, LiveBoardReader
from zatre_vision.vision.location.calibration import CalibrationError
from zatre_vision.vision.reader import ReaderConfig


class ShapeBoundReader:
    """Reads with a kept fit only on frames of the fit's shape (as Calibration.model_for
    does), and searches otherwise."""

    def __init__(self):
        self.calibration = None
        self.searches = 0
        self.config = ReaderConfig()

    def read(self, image):
        if self.calibration is not None:
            if image != self.calibration:
                raise CalibrationError(f"frame size {image} does not match {self.calibration}")
            return SimpleNamespace(board_found=True, source="calibration", model=None)
        self.searches += 1
        return SimpleNamespace(board_found=True, source="locate", model=None)


def test_a_new_frame_shape_drops_the_kept_fit_and_searches():
    inner = ShapeBoundReader()
    live = LiveBoardReader(inner)
    # the live pipeline's own veto bar, set through the reader's config
    assert inner.config == ReaderConfig(veto_confidence=LIVE_VETO_CONFIDENCE)
    inner.calibration = "960x720"           # a fit kept from the first frames
    assert live.read("960x720").source == "calibration"
    result = live.read("960x600")           # the camera came back cropped
    assert result.source == "locate" and inner.searches == 1
    assert inner.calibration is None


def test_a_saved_calibration_file_is_never_dropped():
    inner = ShapeBoundReader()
    inner.calibration = "960x720"
    live = LiveBoardReader(inner)           # the file's calibration: the user's choice
    with pytest.raises(CalibrationError, match="does not match"):
        live.read("960x600")                # the service reports it and tries again
    assert inner.calibration == "960x720"
