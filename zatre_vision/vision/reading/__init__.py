"""Cell reading: what each of the 193 cells holds, given a grid fit.

``cells`` (rectify the board, cut the crops), ``classify`` (the ONNX pip classifier and
its card), ``pips`` (the classical pip count that cross-checks it), ``cell_evidence``
(hands, tiles, sharpness), ``hires`` (doubtful cells read again at the camera's
resolution), ``tile_adapt`` (a table's own tiles); ``measure`` makes the ``Evidence``
(``evidence``) of one board from them, ``decide`` weighs it against the
``ReaderConfig`` (``reader_config``, every tuned number) into a ``ReadResult``
(``read_result``). ``vision/reader.py`` joins board location (``vision/location``) and
this package: locate -> measure -> decide.
"""
