"""Camera vision: locate the board, cut cell crops, classify pips (ONNX), cross-check.

``location/`` finds the board (one entry point, ``location.locate_board``: frame in,
grid fits out); ``reading/`` reads the cells under a fit; ``reader.py`` joins the two
(``BoardReader``). ``geometry.py`` (grid model, cell names), ``quantile.py`` and
``onnx_session.py`` are shared by both sides.

Runtime needs numpy, OpenCV and onnxruntime only; torch lives in ``zatre_vision.training``.
"""
