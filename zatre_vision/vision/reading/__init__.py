"""Cell reading: what each of the 193 cells holds, given a grid fit.

``cells`` (rectify the board, cut the crops), ``classify`` (the ONNX pip classifier and
its card), ``pips`` (the classical pip count that cross-checks it), ``cell_evidence``
(hands, tiles, sharpness), ``hires`` (doubtful cells read again at the camera's
resolution), ``tile_adapt`` (a table's own tiles) and ``read_result`` (what a read
says). The thresholds that decide with them live in ``vision/reader.py``, which joins
board location (``vision/location``) and this package.
"""
