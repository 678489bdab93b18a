"""The board reader as the live pipeline uses it.

A fixed camera needs to find the board only now and then. :class:`LiveBoardReader`
wraps the board reader: once the board is located, the fit
is kept as an in-memory calibration and reused on the following frames while the
reader's cheap "board moved" check passes (the lines are still where the fit says).
Every ``refresh_every`` frames it searches again and keeps whichever fit matches the
grid lines of the current frame better, so a first fit taken while a hand covered
part of the board does not stay for the whole game. When the board is bumped, the
check fails, the reader searches again, and the new fit is kept. This makes reading
cheap enough for the live pipeline, and gives the tracker the same cell crops frame
after frame.
"""

from __future__ import annotations

from dataclasses import replace

#: The live pipeline lets the weak classical pip count veto only cells the classifier
#: is less sure of than this (``zatre read`` uses the reader's stricter default): one
#: photo must say when it is unsure, while the tracker votes over many frames, and a
#: cell that keeps flickering to "unsure" would hold up the end of a turn.
LIVE_VETO_CONFIDENCE = 0.8


class LiveBoardReader:
    def __init__(self, reader, refresh_every: int = 15):
        self.reader = reader
        reader.config = replace(reader.config, veto_confidence=LIVE_VETO_CONFIDENCE)
        # one camera over one board: a bump loses the lines, and the contrast test
        # only adds searches on frames with an arm over the board
        reader.moved_contrast = False
        self.saved = reader.calibration is not None  # a calibration file: never replaced
        self.refresh_every = refresh_every
        self.relocated = 0
        self._since = 0

    def read(self, image):
        if self.saved:
            return self.reader.read(image)
        from ..vision.location import CalibrationError

        try:
            return self._read(image)
        except CalibrationError:
            # the camera came back with another frame shape: the fit kept from the old
            # frames does not apply, so the board is searched for again
            self.reader.calibration = None
            self._since = 0
            return self._read(image)

    def _read(self, image):
        # a read whose orientation is a guess (``ReadResult.orientation_known``) is
        # never kept as the calibration: every later frame would inherit the guess
        from ..vision.location import line_scores, make_calibration
        from ..vision.reader import work_image

        current = self.reader.calibration
        self._since += 1
        if current is not None and self._since >= self.refresh_every:
            self._since = 0
            self.reader.calibration = None  # search afresh, then keep the better fit
            fresh = self.reader.read(image)
            self.reader.calibration = current
            if (fresh.board_found and fresh.model is not None
                    and getattr(fresh, "orientation_known", True)):
                work = work_image(image)[0]
                h, w = work.shape[:2]
                new, old = line_scores(work, [fresh.model, current.model_for(w, h)])
                if new > old:
                    self.reader.calibration = make_calibration(work, fresh.model)
                    self.relocated += 1
                    return fresh
        result = self.reader.read(image)
        if (result.board_found and result.source.startswith("locate")
                and result.model is not None and getattr(result, "orientation_known", True)):
            self.reader.calibration = make_calibration(work_image(image)[0], result.model)
            self.relocated += 1
            self._since = 0
        return result
