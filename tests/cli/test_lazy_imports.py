"""`zatre --help` and `zatre score` load no OpenCV, onnxruntime or Flask (issue 45):
the heavy commands are imported only when they run."""

import json
import subprocess
import sys

import click
import pytest

from zatre_vision.cli import LAZY_BENCH_COMMANDS, LAZY_COMMANDS, _load, main

HEAVY = ("cv2", "onnxruntime", "flask")
PROBE = (
    "import sys\n"
    "from zatre_vision.cli import main\n"
    "try:\n"
    "    main(sys.argv[1:], prog_name='zatre')\n"
    "except SystemExit:\n"
    "    pass\n"
    f"print('LOADED', sorted(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)\n"
)


def loaded(*args: str) -> tuple[subprocess.CompletedProcess, list[str]]:
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True,
                          text=True, timeout=60)
    line = [ln for ln in proc.stderr.splitlines() if ln.startswith("LOADED")][-1]
    return proc, eval(line[len("LOADED "):])  # a list literal we printed ourselves


def test_help_loads_no_heavy_library():
    proc, mods = loaded("--help")
    assert "serve" in proc.stdout and "replay" in proc.stdout and "backup" in proc.stdout
    assert mods == []


def test_score_loads_no_heavy_library(tmp_path):
    record = {"players": ["Ann", "Ben"],
              "turns": [{"player": "Ann", "placed": {"H8": 6, "H7": 5, "G7": 5}}]}
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    proc, mods = loaded("score", str(path))
    assert json.loads(proc.stdout)["sheets"]["Ann"]["total"] == 6
    assert mods == []


def test_a_heavy_command_still_loads_when_it_runs():
    proc, mods = loaded("serve", "--help")
    assert "--validate-config" in proc.stdout
    assert "flask" in mods


@pytest.mark.parametrize("table", [LAZY_COMMANDS, LAZY_BENCH_COMMANDS])
def test_each_stored_help_line_is_the_commands_own(table):
    for name, (target, line) in table.items():
        cmd = _load(target)
        assert isinstance(cmd, click.Command)
        assert cmd.get_short_help_str(1000) == click.Command(name, help=line).get_short_help_str(1000), name


def test_unknown_command_is_one_line(zatre):
    proc = zatre("nosuch")
    assert proc.returncode == 2 and "No such command" in proc.stderr
    assert main.get_command(click.Context(main), "nosuch") is None


def test_a_long_error_is_cut_to_300_characters(zatre, tmp_path):
    record = {"players": ["Ann", "Ben"], "turns": [{"player": "x" * 100_000, "placed": {}}]}
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    proc = zatre("score", str(path))
    assert proc.returncode == 2
    line = proc.stderr.strip()
    assert "\n" not in line and len(line) <= len("zatre: error: ") + 300, len(line)
