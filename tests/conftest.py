import subprocess
import sys

import pytest


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
