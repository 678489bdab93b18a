"""``zatre calibrate``: set a fixed camera up once.

- ``target``: a printable ChArUco board or chessboard (A4, 300 dpi) for the lens;
- ``lens``: lens intrinsics from photos of that target (optional: the reader's radial
  term copes with ordinary lenses);
- ``board``: automatic board registration, with a preview of the corners found (the
  dashboard's Calibration page shows it for confirmation);
- ``exposure``: lets the Pi camera's auto exposure and white balance settle, then
  locks them;
- ``tiles``: learns the table's own tiles from photos whose contents are known
  (``tiles.py``; the head itself is ``vision/reading/tile_adapt.py``), kept in a file of its
  own (the live service reads ``calibration.tiles.json`` beside the calibration).

Everything goes into one calibration file (``camera.calibration`` in the settings),
which ``zatre read --calibration`` and the live service use. The board and lens part
is the vision package's :class:`~zatre_vision.vision.location.Calibration` format,
unchanged; the exposure lock rides along under the extra key ``camera_controls``
(which that class ignores), see :mod:`.files`.
"""
