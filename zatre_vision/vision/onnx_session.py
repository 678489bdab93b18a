"""One way to open an ONNX model for the reader: CPU, a fixed number of threads,
sequential, quiet; a model that will not load raises the caller's one-line error. Shared by the board network
(``location/board_net.py``) and the pip classifier (``reading/classify.py``)."""

from __future__ import annotations

from pathlib import Path


def open_session(path: Path, threads: int, error: type[Exception]):
    """An onnxruntime ``InferenceSession`` for ``path``; ``error`` on failure."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.log_severity_level = 3
    try:
        return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
    except Exception as exc:  # noqa: BLE001 - onnxruntime raises its own types
        raise error(f"{path}: cannot load ({exc.__class__.__name__})") from None
