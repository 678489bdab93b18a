"""``zatre bench bad-input``: generated bad input under a memory cap.

Corrupt and odd images (image bombs among them), special files and mutated game
records go through the code `zatre read`, `zatre replay` (the folder camera) and
`zatre score` use, in a child process whose address space is capped (512 MB by
default, ``resource.setrlimit``). Every case must end in a result or a one-line
refusal: anything else is a crash, a case longer than ``CASE_TIMEOUT_S`` a hang.
The child's peak RSS is reported.
"""

from __future__ import annotations

import json
import os
import random
import resource
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

CAP_MB = 512
CASE_TIMEOUT_S = 20


class Hang(Exception):
    pass


# -- images ---------------------------------------------------------------------------------
def _png_chunk(kind: bytes, body: bytes) -> bytes:
    return (struct.pack(">I", len(body)) + kind + body
            + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))


def png_of(width: int, height: int, rows: bytes | None = None, color: int = 2) -> bytes:
    """A PNG declaring ``width``x``height`` (8-bit; ``color`` 2 RGB, 0 grey) whose image
    data is ``rows`` compressed (all zero rows when None: a real decompression bomb)."""
    if rows is None:
        channels = 3 if color == 2 else 1
        comp = zlib.compressobj(9)
        row = b"\x00" * (1 + width * channels)
        parts = [comp.compress(row) for _ in range(height)]
        data = b"".join(parts) + comp.flush()
    else:
        data = zlib.compress(rows)
    header = struct.pack(">IIBBBBB", width, height, 8, color, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", header) + _png_chunk(b"IDAT", data)
            + _png_chunk(b"IEND", b""))


def _encode(ext: str, img, params=()) -> bytes:
    import cv2

    ok, buf = cv2.imencode(ext, img, list(params))
    assert ok
    return buf.tobytes()


def _claim(jpeg: bytes, width: int, height: int) -> bytes:
    data = bytearray(jpeg)
    i = data.find(b"\xff\xc0")
    if i < 0:
        i = data.find(b"\xff\xc2")
    data[i + 5:i + 9] = struct.pack(">HH", height, width)
    return bytes(data)


def _mutate(data: bytes, rng: random.Random) -> bytes:
    b = bytearray(data)
    kind = rng.randrange(5)
    if kind == 0 and len(b) > 4:  # cut off
        return bytes(b[:rng.randrange(2, len(b))])
    if kind == 1:  # random bytes overwritten
        for _ in range(rng.randint(1, 40)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        return bytes(b)
    if kind == 2:  # a run zeroed
        start = rng.randrange(len(b))
        b[start:start + rng.randint(10, 2000)] = bytes(min(len(b) - start, 2000))
        return bytes(b)
    if kind == 3:  # bytes inserted in the header area
        at = rng.randrange(2, min(len(b), 200))
        return bytes(b[:at]) + bytes(rng.randrange(256) for _ in range(rng.randint(1, 30))) \
            + bytes(b[at:])
    # the frame-size bytes of a JPEG / the IHDR of a PNG set at random
    if b[:4] == b"\x89PNG":
        b[16:24] = struct.pack(">II", rng.choice([0, 1, 65535, 2**31 - 1, 2**32 - 1,
                                                   rng.randrange(1, 100000)]),
                               rng.choice([0, 1, 65535, 2**31 - 1, rng.randrange(1, 100000)]))
        return bytes(b)
    i = b.find(b"\xff\xc0")
    if i >= 0:
        b[i + 5:i + 9] = struct.pack(">HH", rng.randrange(65536), rng.randrange(65536))
    return bytes(b)


def generate_images(folder: Path, n: int, seed: int = 45) -> dict[str, str]:
    """``n`` image files in ``folder``; name -> kind ("good" files must be read)."""
    import numpy as np

    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    kinds: dict[str, str] = {}
    bases = []
    for w, h in ((160, 120), (320, 240), (97, 131)):
        img = nrng.integers(0, 255, (h, w, 3), np.uint8)
        bases += [("jpg", _encode(".jpg", img)), ("png", _encode(".png", img)),
                  ("jpg", _encode(".jpg", img, (1, 90, 2, 1))),  # progressive
                  ("png", _encode(".png", img[:, :, 0]))]
    fixed: list[tuple[str, str, bytes]] = [
        ("bomb", "jpg", _claim(bases[0][1], 32000, 32000)),
        ("bomb", "jpg", _claim(bases[0][1], 65535, 65535)),
        ("bomb", "jpg", _claim(bases[0][1], 9000, 9000)),
        ("bomb", "png", png_of(30000, 30000, b"\x00" * 64)),
        ("bomb", "png", png_of(60000, 60000, b"\x00" * 64)),
        ("bomb", "png", png_of(20000, 20000, color=0)),  # 400 MB of zeros in ~400 KB
        ("big-ok", "png", png_of(5000, 5000, color=0)),  # 25 MP: within the limits
        ("other-format", "jpg", _encode(".bmp", nrng.integers(0, 255, (64, 64, 3), np.uint8))),
        ("other-format", "png", _encode(".tiff", nrng.integers(0, 255, (64, 64, 3), np.uint8))),
        ("other-format", "jpg", _encode(".webp", nrng.integers(0, 255, (64, 64, 3), np.uint8))),
        ("other-format", "jpg", b"GIF89a" + bytes(200)),
        ("empty", "jpg", b""),
        ("text", "png", b"hello, this is not an image\n" * 20),
        ("random", "jpg", bytes(rng.randrange(256) for _ in range(3000))),
        ("zero-size", "png", png_of(0, 10, b"")),
        ("zero-size", "jpg", _claim(bases[0][1], 0, 0)),
    ]
    for i in range(n):
        if i < len(fixed):
            kind, ext, data = fixed[i]
        elif i % 5 == 0:
            ext, data = bases[rng.randrange(len(bases))]
            kind = "good"
        else:
            ext, base = bases[rng.randrange(len(bases))]
            data, kind = _mutate(base, rng), "mutated"
        name = f"{i:06d}.{ext}"
        (folder / name).write_bytes(data)
        kinds[name] = kind
    return kinds


def make_special_files(folder: Path) -> dict[str, str]:
    """FIFOs, device links, a folder and a sparse giant with image names."""
    folder.mkdir(parents=True, exist_ok=True)
    made = {}

    def add(name: str, kind: str, make) -> None:
        try:
            make(folder / name)
        except OSError:
            return  # this system cannot make it (no mkfifo, no /dev/zero)
        made[name] = kind

    add("fifo.jpg", "fifo", os.mkfifo)
    add("zero.png", "device", lambda p: p.symlink_to("/dev/zero"))
    add("urandom.jpg", "device", lambda p: p.symlink_to("/dev/urandom"))
    add("dangling.jpg", "dangling", lambda p: p.symlink_to(folder / "no-such-file"))
    add("folder.jpg", "folder", os.mkdir)

    def sparse(p: Path) -> None:
        with open(p, "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\n")
            f.truncate(20 * 1024 ** 3)  # 20 GB claimed, nothing on disk

    add("sparse.png", "sparse", sparse)
    return made


# -- records ----------------------------------------------------------------------------------
BASE_RECORD = {
    "players": ["Ann", "Ben", "Cleo"],
    "starter": "Ann",
    "turns": [
        {"player": "Ann", "placed": {"H8": 6, "H7": 5, "G7": 5}},
        {"player": "Ben", "placed": {"I8": 4}, "hand": [4, 6]},
        {"player": "Cleo", "placed": {}},
    ],
    "minus": {"Ann": 0, "Ben": 5, "Cleo": 2},
}
ODD_VALUES = [None, True, False, 0, -1, 6.0, 6.5, 7, 10**9, 10**30, -(10**30), 1e308, "",
              "x" * 100_000, "6", [], {}, [[[[[]]]]], {"a": {"b": {"c": {}}}}, "H8", "Z99",
              "\u00b2", "\x00", ["Ann"] * 7, list(range(1000))]


def _paths(node, path=()) -> list[tuple]:
    """Every place in a JSON value, as key paths."""
    out = [path]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*path, i))
    return out


def mutate_record(rng: random.Random) -> object:
    rec = json.loads(json.dumps(BASE_RECORD))
    for _ in range(rng.randint(1, 4)):
        path = rng.choice(_paths(rec))
        value = json.loads(json.dumps(rng.choice(ODD_VALUES)))  # a copy: never shared
        if not path:
            rec = value
            continue
        parent = rec
        for key in path[:-1]:
            parent = parent[key]
        if rng.random() < 0.15 and isinstance(parent, dict):
            parent.pop(path[-1], None)
        else:
            parent[path[-1]] = value
    if rng.random() < 0.1 and isinstance(rec, dict):
        rec["teams"] = {"Ann": rng.choice([1, 2, 3, 10**9, -1, 2.5])}
    return rec


def raw_record_texts(rng: random.Random) -> list[str]:
    text = json.dumps(BASE_RECORD)
    return ["", "{", "[" * 100_000, "1" * 100_000, text[: rng.randrange(len(text))],
            text.replace('"H8"', '"H8\\ud800"'), '{"players": NaN}', "\ufeff" + text]


# -- running -----------------------------------------------------------------------------------
def _alarm(signum, frame):
    raise Hang()


def _run_case(fn) -> str:
    """"ok" | "refused" | "crash: ..." | "hang"."""
    from ..errors import InputError

    signal.alarm(CASE_TIMEOUT_S)
    try:
        fn()
        return "ok"
    except InputError:
        return "refused"
    except Hang:
        return "hang"
    except BaseException as exc:  # noqa: BLE001 - every other outcome is the defect sought
        return f"crash: {exc.__class__.__name__}: {str(exc)[:120]}"
    finally:
        signal.alarm(0)


def run_cases(work: Path, n_images: int, n_records: int, seed: int = 45) -> dict:
    """All cases in this process (the child); the counts and the peak RSS."""
    from ..camera.folder import FolderSource
    from ..camera.image_file import load_image
    from ..errors import InputError
    from ..json_files import read_json_file
    from ..rules.record import RecordError
    from ..variants import score_record

    signal.signal(signal.SIGALRM, _alarm)
    t0 = time.perf_counter()
    images = generate_images(work / "images", n_images, seed)
    specials = make_special_files(work / "images")
    outcomes: dict[str, dict[str, int]] = {}
    problems: list[str] = []

    def count(group: str, kind: str, outcome: str, name: str) -> None:
        key = outcome if not outcome.startswith("crash") else "crash"
        outcomes.setdefault(group, {}).setdefault(key, 0)
        outcomes[group][key] += 1
        bad = key in ("crash", "hang") or (kind in ("good", "big-ok") and key != "ok") \
            or (kind in ("bomb", "other-format", "fifo", "device", "sparse", "folder")
                and key == "ok")
        if bad:
            problems.append(f"{group} {name} ({kind}): {outcome}")

    for name, kind in {**images, **specials}.items():
        path = str(work / "images" / name)
        count("images", kind, _run_case(lambda p=path: load_image(p)), name)

    # the folder camera (zatre replay, a recorded game as the camera) over the same files
    src = FolderSource(work / "images")
    frames_read = [0]

    def through_folder():
        src.open()
        while src.read() is not None:
            frames_read[0] += 1
        src.close()

    outcome = _run_case(through_folder)
    count("folder", "mixed", outcome, "images/")
    folder_read = {"frames_read": frames_read[0], "skipped": len(src.skipped)}

    rng = random.Random(seed)
    rec_path = work / "record.json"

    def score(text: str) -> None:
        rec_path.write_text(text, encoding="utf-8", errors="surrogatepass")
        data = read_json_file(str(rec_path))
        try:
            score_record(data)
        except RecordError as exc:
            raise InputError(str(exc)) from None

    texts = raw_record_texts(rng)
    for i in range(n_records):
        text = texts[i] if i < len(texts) else json.dumps(mutate_record(rng))
        count("records", "mutated", _run_case(lambda t=text: score(t)), f"#{i}")
    for name, kind in specials.items():  # a record file that is a FIFO, a device, ...
        path = str(work / "images" / name)
        count("record-files", kind, _run_case(lambda p=path: read_json_file(p)), name)

    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "cases": {"images": len(images), "special_files": len(specials),
                  "records": n_records},
        "outcomes": outcomes,
        "folder_source": folder_read,
        "crashes": sum(1 for p in problems if ": crash" in p),
        "hangs": sum(1 for p in problems if p.endswith(": hang")),
        "problems": problems[:50],
        "peak_rss_mb": round(peak_kb / 1024, 1),
        "seconds": round(time.perf_counter() - t0, 1),
    }


def _cap_memory(mb: int):
    def apply():
        limit = mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return apply


def run_capped(n_images: int, n_records: int, cap_mb: int = CAP_MB, seed: int = 45,
               timeout: float = 1800) -> dict:
    """The cases in a child process under an address-space cap of ``cap_mb``."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    with tempfile.TemporaryDirectory(prefix="zatre-bad-input-") as work:
        cmd = [sys.executable, "-m", "zatre_vision.bench.bad_input", work, str(n_images),
               str(n_records), str(seed)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env,
                              preexec_fn=_cap_memory(cap_mb), stdin=subprocess.DEVNULL)
    if proc.returncode != 0 or not proc.stdout.strip():
        return {"crashes": 1, "hangs": 0, "child_exit": proc.returncode,
                "problems": [f"the child died: {proc.stderr.strip()[-300:]}"]}
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    result["memory_cap_mb"] = cap_mb
    return result


if __name__ == "__main__":
    work_dir, n_img, n_rec, sd = sys.argv[1:5]
    print(json.dumps(run_cases(Path(work_dir), int(n_img), int(n_rec), int(sd))))
