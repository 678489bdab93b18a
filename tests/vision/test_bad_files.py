"""Damaged photos and wrong files given to `zatre read` and `zatre calibrate`: one line on
stderr, exit status 2, and no file that was there before is overwritten or changed. Run
as a user runs them (a subprocess), since the decoder's own complaints go to the
process's standard error."""

from __future__ import annotations

import json
import struct
import zlib

import pytest

GAME_RECORD = {"players": ["Ann", "Ben"], "turns": [], "minus": {"Ann": 0}}


def one_error_line(proc) -> str:
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2, proc.stderr
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("zatre") and "Traceback" not in proc.stderr
    return lines[0]


def garbled_copy(src, dst):
    """The photo with a run of its entropy-coded bytes overwritten: libjpeg decodes
    around the damage and only complains on stderr."""
    data = bytearray(src.read_bytes())
    start = len(data) // 2
    data[start:start + 400] = bytes(400)
    dst.write_bytes(bytes(data[:len(data) - 2000]) + b"\xff\xd9")
    return dst


def png_claiming(width: int, height: int) -> bytes:
    """A PNG whose header claims a size and whose data is one tiny chunk."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(b"\x00" * 16)) + chunk(b"IEND", b""))


def test_a_garbled_jpeg_is_refused_in_one_line(zatre, photos, tmp_path):
    bad = garbled_copy(photos["some"][0], tmp_path / "garbled.jpg")
    line = one_error_line(zatre("read", str(bad)))
    assert "garbled.jpg: corrupt image" in line


@pytest.mark.parametrize("size", [(60000, 60000), (9000, 9000)])
def test_a_png_claiming_a_huge_size_is_refused_in_one_line(zatre, tmp_path, size):
    bad = tmp_path / "huge.png"
    bad.write_bytes(png_claiming(*size))
    line = one_error_line(zatre("read", str(bad)))
    assert "huge.png" in line


def test_several_images_go_on_past_a_damaged_one(zatre, photos, tmp_path):
    good = str(photos["some"][0])
    bad = garbled_copy(photos["some"][0], tmp_path / "garbled.jpg")
    proc = zatre("read", good, str(bad), good)
    assert proc.returncode == 2
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [line["image"] for line in lines] == [good, good]
    assert all(line["board_found"] for line in lines)
    assert "garbled.jpg: corrupt image" in proc.stderr
    assert "1 of 3 images could not be read" in proc.stderr


@pytest.mark.parametrize("content", [
    [1, 2], "a string", GAME_RECORD,
    {"version": 1, "homography": [[0] * 3] * 3, "k": 0.0, "image_size": [640, 480]},
    {"version": 1, "homography": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "k": 0.0,
     "image_size": [0, 0]},
    {"version": 1, "homography": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "k": 1e308,
     "image_size": [640, 480]},
])
def test_an_unusable_calibration_file_is_bad_input(zatre, photos, tmp_path, content):
    cal = tmp_path / "cal.json"
    cal.write_text(json.dumps(content))
    line = one_error_line(zatre("read", str(photos["some"][0]), "--calibration", str(cal)))
    assert "cal.json" in line


def test_saving_a_calibration_keeps_the_locked_exposure(zatre, photos, tmp_path):
    cal = tmp_path / "cal.json"
    cal.write_text(json.dumps({"camera_controls": {"AeEnable": False, "ExposureTime": 12000}}))
    proc = zatre("read", str(photos["some"][0]), "--save-calibration", str(cal))
    assert proc.returncode == 0, proc.stderr
    saved = json.loads(cal.read_text())
    assert saved["camera_controls"] == {"AeEnable": False, "ExposureTime": 12000}
    assert len(saved["homography"]) == 3
    again = zatre("read", str(photos["some"][0]), "--calibration", str(cal))
    assert again.returncode == 0 and json.loads(again.stdout)["board_found"]


def test_saving_a_calibration_never_overwrites_other_data(zatre, photos, tmp_path):
    record = tmp_path / "game.json"
    record.write_text(json.dumps(GAME_RECORD))
    before = record.read_bytes()
    proc = zatre("read", str(photos["some"][0]), "--save-calibration", str(record))
    assert "not a calibration file" in one_error_line(proc)
    assert proc.stdout == ""  # refused before any reading
    assert record.read_bytes() == before
    missing = zatre("read", str(photos["some"][0]), "--save-calibration",
                    str(tmp_path / "no" / "such" / "cal.json"))
    assert "no folder" in one_error_line(missing) and missing.stdout == ""


def test_calibrate_never_overwrites_a_file_that_is_not_a_calibration(zatre, photos, tmp_path):
    record = tmp_path / "game.json"
    record.write_text(json.dumps(GAME_RECORD))
    before = record.read_bytes()
    one_error_line(zatre("calibrate", "board", str(photos["some"][0]), "--out", str(record)))
    one_error_line(zatre("calibrate", "exposure", "--unlock", "--out", str(record)))
    assert record.read_bytes() == before


@pytest.mark.parametrize("args,needle", [
    (["calibrate", "target", "target.txt"], "as .png"),
    (["calibrate", "board", "--camera", "/no/such/camera", "--out", "cal.json"],
     "camera source"),
])
def test_calibrate_bad_arguments_are_one_line(zatre, tmp_path, args, needle):
    proc = zatre(*args, cwd=tmp_path)
    assert needle in one_error_line(proc)


def test_a_preview_into_a_missing_folder_is_refused_before_any_work(zatre, photos, tmp_path):
    cal = tmp_path / "cal.json"
    proc = zatre("calibrate", "board", str(photos["some"][0]), "--out", str(cal),
                 "--preview", str(tmp_path / "no" / "p.jpg"))
    assert "no folder" in one_error_line(proc)
    assert not cal.exists()


def test_synth_never_renders_over_an_earlier_recording(zatre, tmp_path):
    rec = tmp_path / "rec"
    rec.mkdir()
    (rec / "meta.json").write_text('{"players": ["Ann", "Ben"]}')
    (rec / "000040.jpg").write_bytes(b"an old frame")
    proc = zatre("synth", "game", str(rec), "--max-turns", "1", "--size", "640x480",
                 "--no-progress")
    assert "not empty" in one_error_line(proc)
    assert sorted(p.name for p in rec.iterdir()) == ["000040.jpg", "meta.json"]
    assert (rec / "meta.json").read_text() == '{"players": ["Ann", "Ben"]}'
    assert "OUT is empty" in one_error_line(zatre("synth", "photos", "", "--n", "1"))
