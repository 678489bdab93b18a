"""Camera vision: locate the board, cut cell crops, classify pips (ONNX), cross-check.

Runtime needs numpy, OpenCV and onnxruntime only; torch lives in ``zatre_vision.training``.
"""
