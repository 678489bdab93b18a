import subprocess
import sys

import pytest

from .chromium import CHROMIUM_ARGS, chromium_path


def run_zatre(*args: str, input: str | None = None, cwd=None) -> subprocess.CompletedProcess:
    """Run the real `zatre` command in a subprocess (as a user would)."""
    return subprocess.run([sys.executable, "-m", "zatre_vision", *args], input=input,
                          capture_output=True, text=True, cwd=cwd, timeout=300)


@pytest.fixture
def zatre():
    return run_zatre


def pytest_report_header(config):
    """Says which databases the store and server tests run on (tests/databases.py)."""
    import os

    url = os.environ.get("ZATRE_TEST_POSTGRES")
    if not url:
        return "databases: SQLite only (set ZATRE_TEST_POSTGRES for PostgreSQL too)"
    return f"databases: SQLite and PostgreSQL at {url.split('@')[-1]}"


@pytest.fixture(scope="session")
def browser():
    """One Chromium for the whole session (see tests/chromium.py); skipped, with the
    reason, where no Chromium binary or no Playwright exists."""
    exe = chromium_path()
    if exe is None:
        pytest.skip("no Chromium binary (apt-get install -y chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed (pip install playwright)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
        yield b
        b.close()
