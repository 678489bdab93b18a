"""Bounded image reading (camera/image_file.py): the header's size is checked before any
pixel is decoded, only regular JPEG/PNG files are read, and at most so many bytes."""

import os
import struct
import threading

import cv2
import numpy as np
import pytest

from zatre_vision.camera.image_file import (
    ImageFileError,
    load_image_file,
    read_bounded,
    read_header,
)


def jpeg_claiming(width: int, height: int) -> bytes:
    """A real small JPEG whose frame header is rewritten to claim another size."""
    ok, buf = cv2.imencode(".jpg", np.full((16, 16, 3), 90, np.uint8))
    data = bytearray(buf.tobytes())
    i = data.index(b"\xff\xc0")
    data[i + 5:i + 9] = struct.pack(">HH", height, width)
    return bytes(data)


def test_a_good_jpeg_and_png_are_read(tmp_path):
    img = np.random.default_rng(1).integers(0, 255, (80, 120, 3), np.uint8)
    for ext in (".jpg", ".png"):
        path = tmp_path / f"a{ext}"
        cv2.imwrite(str(path), img)
        got = load_image_file(path)
        assert got.shape == (80, 120, 3)
        assert read_header(path.read_bytes()).width == 120


def test_a_jpeg_bomb_is_refused_before_decoding(tmp_path):
    path = tmp_path / "bomb.jpg"
    path.write_bytes(jpeg_claiming(32000, 32000))
    assert read_header(path.read_bytes()).width == 32000
    with pytest.raises(ImageFileError, match="32000x32000 is over the limit"):
        load_image_file(path)


def test_a_within_side_but_over_pixel_limit_is_refused(tmp_path):
    path = tmp_path / "wide.jpg"
    path.write_bytes(jpeg_claiming(9000, 9000))
    with pytest.raises(ImageFileError, match="megapixels"):
        load_image_file(path)


@pytest.mark.parametrize("ext,params", [(".bmp", []), (".tiff", []), (".webp", [])])
def test_other_formats_are_refused_whatever_their_name(tmp_path, ext, params):
    src = tmp_path / f"x{ext}"
    cv2.imwrite(str(src), np.zeros((64, 64, 3), np.uint8))
    disguised = tmp_path / "x.jpg"
    disguised.write_bytes(src.read_bytes())
    for path in (src, disguised):
        with pytest.raises(ImageFileError, match="not a JPEG or PNG"):
            load_image_file(path)


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "frame.jpg"
    os.mkfifo(fifo)
    result = {}

    def go():
        try:
            load_image_file(fifo)
        except ImageFileError as exc:
            result["error"] = str(exc)

    t = threading.Thread(target=go, daemon=True)
    t.start()
    t.join(5)
    assert not t.is_alive(), "reading a FIFO blocked"
    assert "not a regular file" in result["error"]


def test_a_link_to_dev_zero_is_refused(tmp_path):
    link = tmp_path / "zero.png"
    link.symlink_to("/dev/zero")
    with pytest.raises(ImageFileError, match="not a regular file"):
        load_image_file(link)


def test_bytes_read_are_capped(tmp_path):
    path = tmp_path / "big.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(5000))
    with pytest.raises(ImageFileError, match="byte limit"):
        read_bounded(path, limit=4096)
    assert len(read_bounded(path, limit=8192)) == 5008


@pytest.mark.parametrize("data", [b"", b"\xff\xd8\xff", b"\xff\xd8\xff\xe0\x00\x01",
                                  b"\x89PNG\r\n\x1a\n\x00", b"\xff\xd8\xff\xda\x00\x02"])
def test_cut_headers_are_refused(tmp_path, data):
    path = tmp_path / "cut.jpg"
    path.write_bytes(data)
    with pytest.raises(ImageFileError):
        load_image_file(path)


def test_read_refuses_bmp_and_a_fifo_in_one_line(zatre, tmp_path):
    bmp = tmp_path / "board.bmp"
    cv2.imwrite(str(bmp), np.zeros((100, 100, 3), np.uint8))
    proc = zatre("read", str(bmp))
    assert proc.returncode == 2 and "not a JPEG or PNG" in proc.stderr
    fifo = tmp_path / "pipe.jpg"
    os.mkfifo(fifo)
    proc = zatre("read", str(fifo))
    assert proc.returncode == 2 and "not a regular file" in proc.stderr
    assert proc.stderr.count("\n") == 1


def test_replay_of_a_folder_of_non_images_is_bad_input(zatre, tmp_path):
    rec = tmp_path / "rec"
    rec.mkdir()
    for i in range(3):
        (rec / f"{i:06d}.jpg").write_text("not an image")
    proc = zatre("replay", str(rec), "--no-progress")
    assert proc.returncode == 2, proc.stderr
    assert "none of its 3 frame files could be read" in proc.stderr
    assert "not a JPEG or PNG" in proc.stderr


def test_a_phone_photo_turned_by_exif_is_read(tmp_path):
    """EXIF orientation 6 (turned 90 degrees): decoded as height x width."""
    ok, buf = cv2.imencode(".jpg", np.full((60, 100, 3), 80, np.uint8))
    data = buf.tobytes()
    tiff = (b"MM\x00\x2a\x00\x00\x00\x08" + b"\x00\x01"  # one IFD entry
            + b"\x01\x12\x00\x03\x00\x00\x00\x01\x00\x06\x00\x00" + b"\x00\x00\x00\x00")
    app1 = b"Exif\x00\x00" + tiff
    data = data[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + data[2:]
    path = tmp_path / "phone.jpg"
    path.write_bytes(data)
    assert read_header(data).width == 100
    assert load_image_file(path).shape[:2] == (100, 60)  # turned, and not refused
