"""A fixed camera needs to find the board only once.

:class:`FixedCameraReader` wraps the board reader: after the board is located, the
fit is kept as an in-memory calibration and reused on the following frames while the
reader's cheap "board moved" check passes (the lines are still where the fit says).
When the board is bumped, the check fails, the reader searches again, and the new fit
is kept. This is what makes reading cheap enough for the live pipeline, and it gives
the tracker the same cell crops frame after frame.
"""

from __future__ import annotations

import cv2


class FixedCameraReader:
    def __init__(self, reader):
        self.reader = reader
        self.saved = reader.calibration is not None  # a calibration file: never replaced
        self.relocated = 0

    def read(self, image):
        result = self.reader.read(image)
        if (not self.saved and result.board_found and result.source == "locate"
                and result.model is not None):
            from ..vision.calibration import make_calibration
            from ..vision.reader import WORK_SIDE

            h, w = image.shape[:2]
            f = min(1.0, WORK_SIDE / max(h, w))
            work = image if f == 1.0 else cv2.resize(
                image, (round(w * f), round(h * f)), interpolation=cv2.INTER_AREA)
            self.reader.calibration = make_calibration(work, result.model)
            self.relocated += 1
        return result
