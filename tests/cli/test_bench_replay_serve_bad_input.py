"""Bad input to ``zatre``'s groups, benchmarks, ``replay``, ``serve`` and ``demo``: one
line ``zatre: error: ...`` and exit status 2, never a hang, a traceback or exit 1."""

from __future__ import annotations

import json
import struct
import time
import zlib

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from zatre_vision.camera.base import SourceError
from zatre_vision.camera.folder import FolderSource, read_meta
from zatre_vision.cli import main as zatre_main


def invoke(*args: str):
    return CliRunner().invoke(zatre_main, list(args))


def assert_one_line_error(res, *words: str) -> None:
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("zatre: error: "), res.output
    assert "Traceback" not in res.output
    for word in words:
        assert word in lines[0]


def png_header_only(width: int, height: int) -> bytes:
    """A PNG whose header claims ``width`` x ``height`` pixels and holds none."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IEND", b"")


def nested_json(depth: int) -> str:
    return '{"a": ' * depth + "1" + "}" * depth


# -- a group without a command --------------------------------------------------------

@pytest.mark.parametrize("group", [[], ["synth"], ["bench"], ["calibrate"]])
def test_a_group_without_a_command_prints_its_help(zatre, group):
    proc = zatre(*group)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert proc.stdout == zatre(*group, "--help").stdout
    assert proc.stdout.startswith("Usage: ") and len(proc.stdout.splitlines()) > 5


# -- zatre bench ---------------------------------------------------------------------

def test_bench_tracking_refuses_too_few_turns_before_any_work(monkeypatch):
    from zatre_vision.bench import tracking_bench

    monkeypatch.setattr(tracking_bench, "run_tracking_benchmark",
                        lambda *a, **k: pytest.fail("the benchmark ran"))
    res = invoke("bench", "tracking", "--games", "1", "--max-turns", "2")
    assert_one_line_error(res, "--max-turns")


def test_the_search_for_games_with_held_tiles_is_bounded(monkeypatch):
    from zatre_vision.bench import tracking_bench

    monkeypatch.setattr(tracking_bench, "SEEDS_PER_GAME", 40)
    t0 = time.perf_counter()
    with pytest.raises(tracking_bench.NoHeldTilesError, match="first 40 seeds"):
        tracking_bench.games_with_held_tiles(1, 3)   # none keeps tiles back in 3 turns
    assert time.perf_counter() - t0 < 30


def test_games_with_held_tiles_are_still_found():
    from zatre_vision.bench.tracking_bench import SEED_BASE, games_with_held_tiles

    assert games_with_held_tiles(2, 5) == [SEED_BASE + 22, SEED_BASE + 146]


def test_bench_tracking_without_such_games_exits_2(monkeypatch, tmp_path):
    from zatre_vision.bench import tracking_bench

    def fake_run(reader_factory, games, max_turns, **options):
        raise tracking_bench.NoHeldTilesError("only 0 of the first 2000 seeds ...")

    monkeypatch.setattr(tracking_bench, "run_tracking_benchmark", fake_run)
    res = invoke("bench", "tracking", "--games", "1", "--max-turns", "4",
                 "--out", str(tmp_path / "t.json"))
    assert_one_line_error(res, "first 2000 seeds")
    assert not (tmp_path / "t.json").exists()


@pytest.fixture
def no_benchmark_runs(monkeypatch):
    """Every benchmark fails the test if it is started."""
    from zatre_vision.bench import rules_bench, tracking_bench
    from zatre_vision.bench import vision_bench as bench

    def ran(*args, **kwargs):
        pytest.fail("the benchmark ran before --out was checked")

    monkeypatch.setattr(rules_bench, "run_rules_benchmark", ran)
    monkeypatch.setattr(tracking_bench, "run_tracking_benchmark", ran)
    monkeypatch.setattr(bench, "run_vision_benchmark", ran)


@pytest.mark.parametrize("bench", [["rules", "--positions", "5"], ["tracking", "--games", "1"],
                                   ["vision", "--photos", "5", "--no-card"]])
@pytest.mark.parametrize("under", ["", "deeper/"])
def test_bench_out_under_a_file_is_refused_before_the_run(bench, under, tmp_path,
                                                          no_benchmark_runs):
    (tmp_path / "g0.json").write_text("{}")
    out = tmp_path / "g0.json" / under / "x.json"
    res = invoke("bench", *bench, "--out", str(out))
    assert_one_line_error(res, "g0.json is a file, not a folder")
    assert (tmp_path / "g0.json").read_text() == "{}"


@pytest.mark.parametrize("bench", ["rules", "tracking", "vision"])
def test_bench_out_that_is_a_folder_is_refused(bench, tmp_path, no_benchmark_runs):
    res = invoke("bench", bench, "--out", str(tmp_path))
    assert_one_line_error(res, "--out")


def test_bench_out_in_missing_folders_is_fine(tmp_path, monkeypatch):
    from zatre_vision.bench import rules_bench

    monkeypatch.setattr(rules_bench, "run_rules_benchmark",
                        lambda positions, progress: {"summary": {"positions": positions}})
    out = tmp_path / "a" / "b" / "rules.json"
    res = invoke("bench", "rules", "--positions", "5", "--out", str(out))
    assert res.exit_code == 0, res.output
    data = json.loads(out.read_text())
    assert data["summary"] == {"positions": 5}
    assert all(data[k] for k in ("commit", "date", "machine", "command"))


def test_bench_vision_with_a_missing_model_exits_2(tmp_path):
    out = tmp_path / "v.json"
    res = invoke("bench", "vision", "--photos", "5", "--no-card",
                 "--model", str(tmp_path / "nope.onnx"), "--out", str(out))
    assert_one_line_error(res, "nope.onnx")
    assert not out.exists()


# -- zatre demo ----------------------------------------------------------------------

@pytest.mark.parametrize("delay", ["nan", "NaN", "inf", "-inf"])
def test_demo_refuses_a_delay_that_is_no_number_before_playing(zatre, delay):
    proc = zatre("demo", "--seed", "1", "--delay", delay)
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert proc.stderr.startswith("zatre: error: ") and len(proc.stderr.splitlines()) == 1
    assert "--delay" in proc.stderr


# -- zatre serve ---------------------------------------------------------------------

@pytest.mark.parametrize("host", ["999.1.1.1", "not a host", "1.2.3", "-x.org", "a..b", "",
                                  "host_name", "x" * 64 + ".org"])
def test_serve_refuses_a_host_that_is_neither_address_nor_name(host):
    res = invoke("serve", "--host", host, "--validate-config")
    assert_one_line_error(res, "--host")


@pytest.mark.parametrize("host", ["0.0.0.0", "127.0.0.1", "localhost", "::", "::1",
                                  "zatre-pi.local", "table3"])
def test_serve_takes_addresses_and_host_names(host):
    res = invoke("serve", "--host", host, "--validate-config")
    assert res.exit_code == 0, res.output


def test_a_host_in_the_settings_file_is_checked_too(tmp_path):
    cfg = tmp_path / "zatre.yaml"
    cfg.write_text("server:\n  host: 999.1.1.1\n")
    res = invoke("serve", "--config", str(cfg), "--validate-config")
    assert_one_line_error(res, "server.host")


def test_serve_on_a_host_name_that_does_not_resolve_exits_2(tmp_path, monkeypatch):
    import waitress

    def create_server(*args, **kwargs):
        raise ValueError("Invalid host/port specified.")   # as waitress says it

    monkeypatch.setattr(waitress, "create_server", create_server)
    res = invoke("serve", "--host", "nosuch.invalid", "--port", "18099",
                 "--data-dir", str(tmp_path / "data"))
    assert_one_line_error(res, "cannot listen on nosuch.invalid:18099")


def test_serve_refuses_a_deeply_nested_settings_file(tmp_path):
    cfg = tmp_path / "deep.yaml"
    cfg.write_text("server: " + "[" * 20000 + "]" * 20000 + "\n")
    res = invoke("serve", "--config", str(cfg), "--validate-config")
    assert_one_line_error(res, "nested too deeply")


@pytest.mark.parametrize("pin", ["١٢٣٤", "１２３４", "12３4"])
def test_a_pin_is_ascii_digits_only(pin, monkeypatch):
    res = invoke("serve", "--pin", pin, "--validate-config")
    assert_one_line_error(res, "PIN")
    monkeypatch.setenv("ZATRE_SERVER__PIN", pin)
    assert_one_line_error(invoke("serve", "--validate-config"), "PIN")


def test_an_ascii_pin_is_still_valid():
    assert invoke("serve", "--pin", "0123", "--validate-config").exit_code == 0


# -- zatre replay ----------------------------------------------------------------------

@pytest.fixture
def replay_dir(tmp_path):
    """A replay folder with one good frame, an empty one and one whose PNG header
    claims 60000 x 60000 pixels."""
    folder = tmp_path / "rec"
    folder.mkdir()
    cv2.imwrite(str(folder / "000001.png"), np.full((96, 128, 3), 120, np.uint8))
    (folder / "000002.jpg").write_bytes(b"")
    (folder / "000003.png").write_bytes(png_header_only(60000, 60000))
    return folder


def test_empty_and_oversized_frames_are_skipped(replay_dir):
    source = FolderSource(replay_dir)
    source.open()
    frame = source.read()
    assert frame is not None and frame.index == 1
    assert source.read() is None
    assert source.skipped == ["000002.jpg", "000003.png"]


def test_replay_skips_them_too(zatre, replay_dir):
    proc = zatre("replay", str(replay_dir), "--no-progress")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["replay"]["skipped_files"] == ["000002.jpg", "000003.png"]


def _events(folder, content) -> None:
    path = folder / "events.jsonl"
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content if isinstance(content, bytes) else content.encode())


@pytest.mark.parametrize("content, reason", [
    (None, "is a folder"),
    (b'\xff\xfe{"event": "undo", "frame": 1}\n', "not UTF-8"),
    ('{"event": ["undo"], "frame": 1}\n', "event must be one of"),
    ('{"event": {"undo": 1}, "frame": 1}\n', "event must be one of"),
    ("[" * 100000 + "]" * 100000 + "\n", "nested too deeply"),
    (nested_json(100000) + "\n", "nested too deeply"),
])
def test_a_bad_events_file_is_a_source_error(replay_dir, content, reason):
    _events(replay_dir, content)
    with pytest.raises(SourceError, match=reason):
        read_meta(replay_dir)


@pytest.mark.parametrize("content, reason", [
    (None, "is a folder"),
    (b"\xff\xfe{}", "not UTF-8"),
    (nested_json(100000), "nested too deeply"),
])
def test_a_bad_meta_file_is_a_source_error(replay_dir, content, reason):
    path = replay_dir / "meta.json"
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(SourceError, match=reason):
        read_meta(replay_dir)


@pytest.mark.parametrize("content", ['{"event": ["undo"], "frame": 1}\n',
                                     nested_json(100000) + "\n"])
def test_replay_with_a_bad_events_file_exits_2(zatre, replay_dir, content):
    _events(replay_dir, content)
    proc = zatre("replay", str(replay_dir), "--no-progress")
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("zatre: error: ")
    assert "events.jsonl line 1" in lines[0]


def test_replay_of_an_empty_path_is_refused_not_the_current_folder(zatre, replay_dir):
    proc = zatre("replay", "", "--no-progress", cwd=replay_dir)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "DIR is empty" in proc.stderr


@pytest.mark.parametrize("extra", [("--demo",), ("--source", "picamera2"), ("--table", "t2")])
def test_serve_club_takes_no_camera_and_no_table(extra):
    res = invoke("serve", "--club", *extra, "--validate-config")
    assert res.exit_code == 2 and "--club" in res.output and "Traceback" not in res.output


def test_serve_club_settings_are_valid():
    assert invoke("serve", "--club", "--validate-config").exit_code == 0
