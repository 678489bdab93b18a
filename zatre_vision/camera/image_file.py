"""Image files read with bounds: the one way `zatre read`, `zatre replay`, calibration
and the folder camera turn a file into pixels.

Before any pixel is decoded:

* only a regular file is opened (a FIFO, a device such as a link to /dev/zero, a
  socket or a folder is refused without blocking: the file is opened non-blocking and
  checked with fstat);
* at most ``MAX_FILE_BYTES`` are read;
* the format must be JPEG or PNG, by its first bytes (not by its name);
* the size the header declares must be at most ``MAX_SIDE`` on a side and
  ``MAX_PIXELS`` in all, so that a small file claiming 32000x32000 (an image bomb) is
  refused before the decoder allocates gigabytes.

The decoder's own complaints about a damaged stream (libjpeg's "Corrupt JPEG data"
lines on standard error) are caught and turn the file into a refusal.
"""

from __future__ import annotations

import os
import struct
import sys
from dataclasses import dataclass

from ..bounded_io import FileRefused, read_regular_file

MAX_FILE_BYTES = 50 * 1024 * 1024
MAX_SIDE = 10000
MAX_PIXELS = 40_000_000
JPEG_MAGIC = b"\xff\xd8\xff"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
#: JPEG start-of-frame markers (C4 DHT, C8 JPG and CC DAC are not frames)
_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


class ImageFileError(FileRefused):
    """A file that is not an image we read (one-line reason, without the path)."""


@dataclass(frozen=True)
class Header:
    format: str  # "jpeg" | "png"
    width: int
    height: int


def read_bounded(path: str | os.PathLike, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; ImageFileError otherwise.
    Never blocks on a FIFO, never reads a device."""
    try:
        return read_regular_file(path, limit, ImageFileError)
    except ImageFileError as exc:
        if str(exc) == "is a folder, not a file":
            raise ImageFileError("is a folder, not an image") from None
        raise


def _jpeg_size(data: bytes) -> tuple[int, int]:
    i, n = 2, len(data)
    while i < n:
        if data[i] != 0xFF:
            raise ImageFileError("corrupt JPEG (no marker where one belongs)")
        while i < n and data[i] == 0xFF:  # fill bytes
            i += 1
        if i >= n:
            break
        marker = data[i]
        i += 1
        if marker == 0xD8 or marker == 0x01 or 0xD0 <= marker <= 0xD7:
            continue  # no length
        if marker in (0xD9, 0xDA):
            raise ImageFileError("corrupt JPEG (no frame header before the image data)")
        if i + 2 > n:
            break
        (length,) = struct.unpack(">H", data[i:i + 2])
        if length < 2:
            raise ImageFileError("corrupt JPEG (a segment length below 2)")
        if marker in _SOF:
            if i + 7 > n:
                break
            height, width = struct.unpack(">HH", data[i + 3:i + 7])
            return width, height
        i += length
    raise ImageFileError("corrupt JPEG (cut off before its frame header)")


def read_header(data: bytes) -> Header:
    """Format and declared size, from the first bytes; ImageFileError for anything but
    a JPEG or PNG whose header can be read."""
    if data.startswith(PNG_MAGIC):
        if len(data) < 24 or data[12:16] != b"IHDR":
            raise ImageFileError("corrupt PNG (no IHDR header)")
        width, height = struct.unpack(">II", data[16:24])
        return Header("png", width, height)
    if data.startswith(JPEG_MAGIC):
        width, height = _jpeg_size(data)
        return Header("jpeg", width, height)
    if not data:
        raise ImageFileError("is empty")
    raise ImageFileError("not a JPEG or PNG image")


def check_header(header: Header, max_side: int = MAX_SIDE, max_pixels: int = MAX_PIXELS
                 ) -> None:
    w, h = header.width, header.height
    if w == 0 or h == 0:
        raise ImageFileError(f"{header.format.upper()} header declares a size of {w}x{h}")
    if max(w, h) > max_side or w * h > max_pixels:
        raise ImageFileError(f"image size {w}x{h} is over the limit ({max_side} px a side, "
                             f"{max_pixels // 1_000_000} megapixels)")


def decode(data: bytes):
    """(BGR image or None, the decoder's first complaint or "") for bytes whose header
    passed ``check_header``. libjpeg and libpng report damage they decode around only as
    a line on standard error; it is caught here (standard error is pointed at a
    temporary file meanwhile), so that a damaged file is refused, and nothing but our
    own one-line error reaches the terminal."""
    import tempfile

    import cv2
    import numpy as np

    buf = np.frombuffer(data, np.uint8)
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as log:
        os.dup2(log.fileno(), 2)
        try:
            img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        except cv2.error:
            img = None
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        log.seek(0)
        lines = [ln.strip() for ln in log.read(64 * 1024).decode("utf-8", "replace")
                 .splitlines() if ln.strip()]
    damage = [ln for ln in lines if any(w in ln.lower() for w in
                                        ("corrupt", "premature", "error", "bad", "invalid"))]
    return img, (damage[0][:120] if damage else "")


def load_image_file(path: str | os.PathLike, max_side: int = MAX_SIDE,
                    max_pixels: int = MAX_PIXELS, max_bytes: int = MAX_FILE_BYTES):
    """A BGR image from a JPEG or PNG file, within every bound above; ImageFileError
    with a one-line reason otherwise."""
    data = read_bounded(path, max_bytes)
    header = read_header(data)
    check_header(header, max_side, max_pixels)
    img, complaint = decode(data)
    if img is None:
        raise ImageFileError(f"not a readable {header.format.upper()} image (corrupt)")
    if complaint:
        raise ImageFileError(f"corrupt image ({complaint})")
    # (an EXIF orientation turns a phone photo: width and height swap)
    if (img.shape[1], img.shape[0]) not in ((header.width, header.height),
                                            (header.height, header.width)):
        raise ImageFileError("corrupt image (decoded size differs from its header)")
    return img


#: the smallest side of a photo the commands read
MIN_SIDE = 64


def load_image(path: str):
    """BGR image from a JPEG/PNG file; InputError with a one-line reason otherwise.
    Bounded before decoding (camera/image_file.py): regular files only, at most
    50 MB read, the header's size checked against the limits."""
    from ..errors import InputError

    try:
        img = load_image_file(path, max_side=MAX_SIDE)
    except ImageFileError as exc:
        raise InputError(f"{path}: {exc}") from None
    h, w = img.shape[:2]
    if min(h, w) < MIN_SIDE:
        raise InputError(f"{path}: image size {w}x{h} is outside {MIN_SIDE}..{MAX_SIDE} px")
    return img
