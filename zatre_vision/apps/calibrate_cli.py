"""``zatre calibrate target|lens|board|exposure|tiles`` (registered by ``zatre_vision.cli``)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..errors import InputError, check_folder


def _settings(config_file: str | None):
    """The settings the command finds (--config, $ZATRE_CONFIG, /etc/zatre/config.yaml)."""
    return _found_settings(config_file)[0]


def _found_settings(config_file: str | None):
    from ..config import ConfigError, load_command_settings

    try:
        settings, line, found = load_command_settings(config_file)
    except ConfigError as exc:
        raise InputError(str(exc)) from None
    return settings, line, found


def _calibration_out(out: str | None, config_file: str | None) -> tuple[Path, str]:
    """--out, else the settings' calibration file (what the live service uses), refused
    in a data folder no table uses; and the line that says which settings those are
    (the command prints it when it is done)."""
    if out:
        return Path(out), f"calibration file {out} (--out)"
    from ..config import ConfigError, calibration_path, check_table_folder

    settings, line, found = _found_settings(config_file)
    target = calibration_path(settings)
    if settings.camera.calibration is None:
        try:
            check_table_folder(settings, found, target.name)
        except ConfigError as exc:
            raise InputError(f"{exc} (or --out FILE)") from None
    return target, f"calibration file {target}, the service's ({line})"


@click.group()
def calibrate() -> None:
    """Set up a fixed camera: lens target and lens, board registration, exposure lock;
    and learn the table's own tiles."""


@calibrate.command()
@click.argument("out", metavar="OUT.png", type=click.Path(dir_okay=False, writable=True))
@click.option("--kind", type=click.Choice(["charuco", "chessboard"]), default="charuco",
              show_default=True)
@click.option("--cols", type=click.IntRange(3, 12), default=5, show_default=True,
              help="Squares across.")
@click.option("--rows", type=click.IntRange(3, 16), default=7, show_default=True,
              help="Squares down.")
@click.option("--square-mm", type=click.FloatRange(5, 60), default=35.0, show_default=True)
@click.option("--dpi", type=click.IntRange(72, 600), default=300, show_default=True)
def target(out: str, kind: str, cols: int, rows: int, square_mm: float, dpi: int) -> None:
    """Write a printable lens target (A4 portrait; the square size is printed on it)."""
    import cv2

    from ..calibrate.target import TargetSpec, render_target

    if Path(out).suffix.lower() not in (".png", ".tif", ".tiff"):
        raise InputError(f"{out}: write the target as .png (a lossless image)")
    check_folder(out)
    spec = TargetSpec(kind, cols, rows, square_mm)
    try:
        page = render_target(spec, dpi)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    try:
        written = cv2.imwrite(out, page)
    except cv2.error:
        written = False
    if not written:
        raise InputError(f"{out}: cannot write the image")
    click.echo(json.dumps({"target": out, "kind": kind, "cols": cols, "rows": rows,
                           "square_mm": square_mm, "dpi": dpi}))
    click.echo(f"print {out} at 100 % on A4, tape it flat to card", err=True)


@calibrate.command()
@click.argument("images", nargs=-1, required=True, metavar="IMAGE...")
@click.option("--out", type=click.Path(dir_okay=False, writable=True), default="lens.json",
              show_default=True)
@click.option("--kind", type=click.Choice(["charuco", "chessboard"]), default="charuco",
              show_default=True)
@click.option("--cols", type=click.IntRange(3, 12), default=5, show_default=True)
@click.option("--rows", type=click.IntRange(3, 16), default=7, show_default=True)
@click.option("--square-mm", type=click.FloatRange(5, 60), default=35.0, show_default=True)
def lens(images: tuple[str, ...], out: str, kind: str, cols: int, rows: int,
         square_mm: float) -> None:
    """Lens intrinsics from 5+ photos of the printed target (optional step)."""
    from ..calibrate.lens import LensError, calibrate_lens
    from ..calibrate.target import TargetSpec
    from ..camera.image_file import load_image

    check_folder(out)
    photos = [(p, load_image(p)) for p in images]
    try:
        result = calibrate_lens(photos, TargetSpec(kind, cols, rows, square_mm))
    except LensError as exc:
        raise InputError(str(exc)) from None
    try:
        Path(out).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{out}: cannot write the lens file ({exc.strerror})") from None
    click.echo(json.dumps({"lens": out, "views": len(result["views"]),
                           "rms_px": result["rms_px"]}))


@calibrate.command()
@click.argument("image", required=False, metavar="[IMAGE]")
@click.option("--out", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Calibration file (default: camera.calibration of the settings, else "
                   "<data_dir>/calibration.json).")
@click.option("--lens", "lens_file", type=click.Path(dir_okay=False), default=None,
              help="Lens file from `zatre calibrate lens`.")
@click.option("--markers", is_flag=True, help="Use ArUco corner markers when present.")
@click.option("--camera", "camera_spec", default=None,
              help="Take the frame from this camera source instead of IMAGE (picamera2, a "
                   "device number, ...; stop the service first).")
@click.option("--preview", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Where to write the preview JPEG (default: beside --out).")
@click.option("--config", "config_file", type=click.Path(dir_okay=False), default=None,
              help="The table's settings (default: $ZATRE_CONFIG, else "
                   "/etc/zatre/config.yaml where it exists).")
def board(image: str | None, out: str | None, lens_file: str | None, markers: bool,
          camera_spec: str | None, preview: str | None, config_file: str | None) -> None:
    """Find the board automatically and write the calibration file and a preview."""
    from ..calibrate import files
    from ..calibrate.board import RegistrationError, preview_jpeg, register_board
    from ..calibrate.lens import LensError, lens_for_size, load_lens
    from ..camera.image_file import load_image
    from ..vision.location import CalibrationError

    if (image is None) == (camera_spec is None):
        raise InputError("give either IMAGE or --camera SOURCE")
    target, which = _calibration_out(out, config_file)
    try:  # before any work: the file must be a calibration (or new), never other data
        files.read_raw(target)
    except CalibrationError as exc:
        raise InputError(str(exc)) from None
    prev = Path(preview) if preview else target.with_suffix(".preview.jpg")
    if preview:
        check_folder(preview)
    img = load_image(image) if image else _grab(camera_spec, config_file)
    lens = None
    if lens_file:
        try:
            lens = lens_for_size(load_lens(lens_file), img.shape[1], img.shape[0])
        except LensError as exc:
            raise InputError(str(exc)) from None
    try:
        reg = register_board(img, lens, markers)
    except RegistrationError as exc:
        raise InputError(str(exc)) from None
    try:
        files.save_board(target, reg.calibration)
    except (CalibrationError, OSError) as exc:
        raise InputError(f"{target}: cannot write the calibration ({exc})") from None
    try:
        prev.write_bytes(preview_jpeg(reg.preview))
    except OSError as exc:
        raise InputError(f"{prev}: cannot write the preview ({exc.strerror}); the "
                         f"calibration is saved in {target}") from None
    click.echo(json.dumps({"calibration": str(target), "preview": str(prev), **reg.to_json()}))
    click.echo(which, err=True)
    click.echo("check the preview: the green grid must lie on the board's lines; the "
               "dashboard's Calibration page shows it too", err=True)


def _grab(spec: str, config_file: str | None):
    from ..camera.base import SourceError
    from ..tracking.sources import open_source

    settings = _settings(config_file)
    try:
        src = open_source(spec, size=settings.camera.size_wh())
        src.open()
        frame = None
        for _ in range(10):  # skip the first frames while exposure settles
            frame = src.read() or frame
        src.close()
    except SourceError as exc:
        raise InputError(str(exc)) from None
    if frame is None:
        raise InputError(f"camera {spec!r} gave no frame")
    return frame.image


@calibrate.command()
@click.option("--out", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Calibration file to store the lock in (default: as for `board`).")
@click.option("--settle", type=click.FloatRange(0.5, 30), default=3.0, show_default=True,
              help="Seconds at most to let auto exposure and white balance settle.")
@click.option("--unlock", is_flag=True, help="Remove the lock (back to automatic).")
@click.option("--config", "config_file", type=click.Path(dir_okay=False), default=None,
              help="The table's settings (default: $ZATRE_CONFIG, else "
                   "/etc/zatre/config.yaml where it exists).")
@click.option("--module", default="picamera2", hidden=True)
def exposure(out: str | None, settle: float, unlock: bool, config_file: str | None,
             module: str) -> None:
    """Lock the Pi camera's exposure and white balance at their settled values."""
    from ..calibrate import files
    from ..calibrate.exposure import ExposureError, lock_exposure
    from ..vision.location import CalibrationError

    target, which = _calibration_out(out, config_file)
    try:
        if unlock:
            files.save_controls(target, {})
            click.echo(json.dumps({"calibration": str(target), "camera_controls": {}}))
            click.echo(which, err=True)
            return
        cam = _settings(config_file).camera
        controls, settled = lock_exposure(cam.size_wh(), settle_s=settle, module=module,
                                          flicker_hz=cam.flicker_hz)
        files.save_controls(target, controls)
    except (ExposureError, CalibrationError) as exc:
        raise InputError(str(exc)) from None
    click.echo(json.dumps({"calibration": str(target), "settled": settled,
                           "camera_controls": {k: list(v) if isinstance(v, tuple) else v
                                               for k, v in controls.items()}}))
    click.echo(which, err=True)
    if not settled:
        click.echo("auto exposure was still moving: the light may flicker; locked anyway",
                   err=True)


@calibrate.command()
@click.argument("images", nargs=-1, required=True, metavar="IMAGE...")
@click.option("--truth", "truth_file", required=True, type=click.Path(dir_okay=False),
              help='What each photo shows: {"tiles-1.jpg": {"cells": {"H8": 5, ...}, '
                   '"ignore": [...]}, ...}; cells not listed are empty.')
@click.option("--out", required=True, type=click.Path(dir_okay=False, writable=True),
              help="The tiles file to write (zatre read --tiles FILE).")
@click.option("--model", type=click.Path(dir_okay=False), default=None,
              help="ONNX pip classifier (default: models/pips.onnx).")
def tiles(images: tuple[str, ...], truth_file: str, out: str, model: str | None) -> None:
    """Learn this table's own tiles from photos whose contents are known."""
    import cv2

    from ..calibrate.tiles import TruthError, calibrate_tiles, load_photo, parse_truth
    from ..camera.image_file import load_image
    from ..errors import check_output_file
    from ..json_files import read_json_file
    from ..vision.reading.tile_adapt import TilesError
    from .vision_cli import _reader

    check_output_file(out)
    for path in images:
        if not path or not Path(path).exists():
            raise InputError(f"{path or 'an image path'}: no such file")
    if len({Path(p).name for p in images}) != len(images):
        raise InputError("two images have the same file name: the truth could not tell "
                         "them apart")
    cv2.setNumThreads(1)
    try:
        truths = parse_truth(read_json_file(truth_file), list(images), truth_file)
        reader = _reader(model, None, False)
        photos = [load_photo(reader, load_image(p), Path(p).name, truths[p]) for p in images]
        head, summary = calibrate_tiles(reader, photos)
        head.save(out)
    except (TruthError, TilesError) as exc:
        raise InputError(str(exc)) from None
    except OSError as exc:
        raise InputError(f"{out}: cannot write the tiles file ({exc.strerror})") from None
    click.echo(json.dumps(summary))
    if not summary["adapted"]:
        click.echo(f"zatre: {summary['note']}", err=True)
