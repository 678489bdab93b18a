"""The board's prints (editions) as data: one JSON profile per print in the top-level
``calibration/prints/`` folder, read here and nowhere else.

The renderer draws a print from its profile (``synth.board_art``), the print proof
checks a fitted grid against every profile (``vision.location.print_proof``) and names
the print it found, and the board finder's training photos show every training print
(``training.board_data``). Adding an edition is adding a profile; the fields are
described in ``docs/vision-location.md`` (*The prints*).

Where the folder is: the top-level ``calibration/prints/`` of a checkout (and of an
editable install), or ``<prefix>/share/zatre-vision/calibration/prints`` where a wheel
installs it (``[tool.setuptools.data-files]`` in pyproject.toml), as
``server/paths.py`` finds ``web/``.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
#: the start cell every print marks (the rules' centre cell)
START_CELL = "H8"

Colour = tuple[float, float, float]
Box = tuple[float, float, float, float]


class PrintProfileError(ValueError):
    """A print profile is missing, unreadable or incomplete (one line, with its file)."""


def prints_dir() -> Path:
    """The folder of the print profiles (see the module's doc)."""
    candidates = [
        PACKAGE_DIR.parent / "calibration" / "prints",
        Path(sys.prefix) / "share" / "zatre-vision" / "calibration" / "prints",
    ]
    for path in candidates:
        if path.is_dir() and any(path.glob("*.json")):
            return path
    raise PrintProfileError("the board print profiles (calibration/prints/) are missing "
                            "from this installation")


@dataclass(frozen=True)
class PrintMark:
    """A printed text or patch: its text, box (u0, v0, u1, v1 in grid units) and colour."""

    text: str
    box: Box
    bgr: Colour


@dataclass(frozen=True)
class PrintProfile:
    """One print of the board (``calibration/prints/<name>.json``).

    Grid units: (0, 0) is the outer top-left corner of the 15 x 15 grid, one cell 1.0;
    colours BGR 0-255; level ranges are what the renderer draws from."""

    name: str
    title: str
    #: never drawn in any training photo (a held-out measure of the finder and reader)
    held_out: bool
    #: "profile": drawn from this profile's fields; "peri": the renderer's own drawing
    #: of the Peri print (``board_art.make_board_texture``)
    drawing: str
    #: "marble" or "plain" cells, and their colour
    cell_texture: str
    cell_bgr: Colour
    #: the x2 cells: grey level range and a tint added to it
    x2_level: tuple[float, float]
    x2_tint: Colour
    start_cell: str
    start_bgr: Colour
    line_level: tuple[float, float]
    #: line width in cells
    line_width: float
    #: the cardboard outside the 193 cells: its colour (None: the cells' surface) and
    #: whether it shows "dark" or "bright" beside the x2 cells (the print proof's
    #: expectation there)
    border_bgr: Colour | None
    border_shade: str
    logo: PrintMark | None
    label: PrintMark | None
    folds: bool
    #: areas printed with something other than cells or plain border (logo, label,
    #: text), whole cells: the print proof takes no evidence there
    proof_zones: tuple[Box, ...]
    #: a scan of the print, and its grid file, relative to the zatre_vision package
    #: (None: drawn only)
    scan_image: str | None = None
    scan_grid: str | None = None
    #: listing order (training prints are drawn in this order)
    order: int = 100
    #: the colours a camera sees of it, one look each for its scan and its drawing
    #: (``python -m zatre_vision.synth.measure_print``): "x2", "cells" (bare dark
    #: cells), "border"; empty: the declared colours stand in
    appearance: tuple[dict[str, Colour], ...] = ()

    def scan_path(self) -> Path | None:
        return PACKAGE_DIR / self.scan_image if self.scan_image else None


def _colour(raw, where: str) -> Colour:
    if not (isinstance(raw, list) and len(raw) == 3
            and all(isinstance(x, (int, float)) and 0 <= x <= 255 for x in raw)):
        raise PrintProfileError(f"{where}: expected three numbers 0-255 (B, G, R)")
    return (float(raw[0]), float(raw[1]), float(raw[2]))


def _tint(raw, where: str) -> Colour:
    if not (isinstance(raw, list) and len(raw) == 3
            and all(isinstance(x, (int, float)) and -255 <= x <= 255 for x in raw)):
        raise PrintProfileError(f"{where}: expected three numbers -255..255")
    return (float(raw[0]), float(raw[1]), float(raw[2]))


def _range(raw, where: str) -> tuple[float, float]:
    if not (isinstance(raw, list) and len(raw) == 2
            and all(isinstance(x, (int, float)) for x in raw) and 0 <= raw[0] <= raw[1] <= 255):
        raise PrintProfileError(f"{where}: expected [low, high] within 0-255")
    return (float(raw[0]), float(raw[1]))


def _box(raw, where: str) -> Box:
    if not (isinstance(raw, list) and len(raw) == 4
            and all(isinstance(x, (int, float)) for x in raw)
            and raw[0] < raw[2] and raw[1] < raw[3]
            and all(-2.0 <= x <= 17.0 for x in raw)):
        raise PrintProfileError(f"{where}: expected a box [u0, v0, u1, v1] in grid units")
    return (float(raw[0]), float(raw[1]), float(raw[2]), float(raw[3]))


def _mark(raw, where: str) -> PrintMark | None:
    if raw is None:
        return None
    if not isinstance(raw, dict) or not isinstance(raw.get("text"), str):
        raise PrintProfileError(f"{where}: expected {{\"text\", \"box\", \"bgr\"}} or null")
    return PrintMark(raw["text"], _box(raw.get("box"), f"{where}.box"),
                     _colour(raw.get("bgr"), f"{where}.bgr"))


def parse_profile(raw: dict, where: str) -> PrintProfile:
    """A profile from its JSON object; ``where`` names it in errors."""
    if not isinstance(raw, dict):
        raise PrintProfileError(f"{where}: not a JSON object")
    try:
        name = raw["name"]
        cells, x2, start, lines, border = (raw["cells"], raw["x2_cells"], raw["start_cell"],
                                           raw["lines"], raw["border"])
    except KeyError as exc:
        raise PrintProfileError(f"{where}: missing field {exc.args[0]!r}") from None
    if not isinstance(name, str) or not name or (
            where.endswith(".json") and Path(where).stem != name):
        raise PrintProfileError(f"{where}: 'name' must be the file's name without .json")
    drawing = raw.get("drawing", "profile")
    if drawing not in ("profile", "peri"):
        raise PrintProfileError(f"{where}: 'drawing' must be \"profile\" or \"peri\"")
    if cells.get("texture") not in ("marble", "plain", "wood"):
        raise PrintProfileError(f"{where}: cells.texture must be \"marble\", \"plain\" or "
                                "\"wood\"")
    if start.get("cell") != START_CELL:
        raise PrintProfileError(f"{where}: start_cell.cell must be {START_CELL} (the rules' "
                                "start)")
    if border.get("shade") not in ("dark", "bright"):
        raise PrintProfileError(f"{where}: border.shade must be \"dark\" or \"bright\"")
    width = lines.get("width")
    if not isinstance(width, (int, float)) or not 0.005 <= width <= 0.2:
        raise PrintProfileError(f"{where}: lines.width must be 0.005-0.2 cell")
    scan = raw.get("scan")
    if scan is not None and not (isinstance(scan, dict) and isinstance(scan.get("image"), str)):
        raise PrintProfileError(f"{where}: scan must be {{\"image\", \"grid\"}} or null")
    zones = raw.get("proof_zones", [])
    if not isinstance(zones, list):
        raise PrintProfileError(f"{where}: proof_zones must be a list of boxes")
    return PrintProfile(
        name=name, title=str(raw.get("title", name)), held_out=bool(raw.get("held_out")),
        drawing=drawing, cell_texture=cells["texture"],
        cell_bgr=_colour(cells.get("bgr"), f"{where}: cells.bgr"),
        x2_level=_range(x2.get("level"), f"{where}: x2_cells.level"),
        x2_tint=_tint(x2.get("tint", [0, 0, 0]), f"{where}: x2_cells.tint"),
        start_cell=START_CELL, start_bgr=_colour(start.get("bgr"), f"{where}: start_cell.bgr"),
        line_level=_range(lines.get("level"), f"{where}: lines.level"),
        line_width=float(width),
        border_bgr=(None if border.get("bgr") is None
                    else _colour(border["bgr"], f"{where}: border.bgr")),
        border_shade=border["shade"],
        logo=_mark(raw.get("logo"), f"{where}: logo"),
        label=_mark(raw.get("label"), f"{where}: label"),
        folds=bool(raw.get("folds", True)),
        proof_zones=tuple(_box(z, f"{where}: proof_zones") for z in zones),
        scan_image=scan["image"] if scan else None,
        scan_grid=scan.get("grid") if scan else None,
        order=int(raw.get("order", 100)),
        appearance=_appearance(raw.get("appearance"), where))


def _appearance(raw, where: str) -> tuple[dict[str, Colour], ...]:
    if raw is None:
        return ()
    if isinstance(raw, dict):       # one look
        raw = [raw]
    if not isinstance(raw, list) or not all(
            isinstance(look, dict) and set(look) <= {"x2", "cells", "border"} for look in raw):
        raise PrintProfileError(f"{where}: appearance must be a list of looks, each mapping "
                                "x2, cells, border to colours")
    return tuple({k: _colour(v, f"{where}: appearance.{k}") for k, v in look.items()}
                 for look in raw)


def profile_json(raw: dict) -> str:
    """A profile's JSON text as the files keep it: indented, numbers' lists on one line."""
    text = json.dumps(raw, indent=2)
    return re.sub(r"\[\s*([-0-9.,\s]+?)\s*\]",
                  lambda m: "[" + ", ".join(x.strip() for x in m.group(1).split(",")) + "]",
                  text) + "\n"


def load_prints(folder: Path | None = None) -> dict[str, PrintProfile]:
    """Every profile in ``folder`` (default ``prints_dir()``), by name, in listing
    order (``order``, then name)."""
    folder = Path(folder) if folder is not None else prints_dir()
    profiles = []
    for path in sorted(folder.glob("*.json")):
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise PrintProfileError(f"{path}: unreadable print profile ({exc})") from None
        profiles.append(parse_profile(raw, path.name))
    if not profiles:
        raise PrintProfileError(f"{folder}: no print profiles (*.json)")
    profiles.sort(key=lambda p: (p.order, p.name))
    return {p.name: p for p in profiles}


def training_print_names(prints: dict[str, PrintProfile]) -> tuple[str, ...]:
    """The prints training photos may show, in listing order."""
    return tuple(n for n, p in prints.items() if not p.held_out)


def held_out_print_names(prints: dict[str, PrintProfile]) -> tuple[str, ...]:
    """The prints no training photo shows, in listing order."""
    return tuple(n for n, p in prints.items() if p.held_out)


__all__ = ["PrintMark", "PrintProfile", "PrintProfileError", "held_out_print_names",
           "load_prints", "parse_profile", "prints_dir", "profile_json",
           "training_print_names"]
