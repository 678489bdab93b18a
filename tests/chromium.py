"""Debian's Chromium driven by Playwright, shared by every test that opens a page.

Playwright's sync API runs an event loop on the thread that started it, so a test
session has ONE Playwright and one browser (the ``browser`` fixture in
``tests/conftest.py``); a test that started its own beside it would be refused."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium_path() -> str | None:
    for candidate in (os.environ.get("ZATRE_CHROMIUM"), "/usr/bin/chromium",
                      shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and Path(candidate).exists():
            return candidate
    return None
