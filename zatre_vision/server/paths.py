"""Where the dashboard's templates and static files are: the top-level ``web/`` folder
of a checkout (and of an editable install), or ``<prefix>/share/zatre-vision/web`` where
a wheel installs them (``[tool.setuptools.data-files]`` in pyproject.toml)."""

from __future__ import annotations

import sys
from pathlib import Path


def web_dir() -> Path:
    candidates = [
        Path(__file__).resolve().parents[2] / "web",
        Path(sys.prefix) / "share" / "zatre-vision" / "web",
    ]
    for path in candidates:
        if (path / "templates").is_dir():
            return path
    raise FileNotFoundError("the dashboard's web/ folder is missing from this installation")
