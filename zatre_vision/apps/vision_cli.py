"""The reader's commands: ``zatre read``, ``zatre train``, ``zatre bench vision`` and
``zatre bench gate`` (registered by ``zatre_vision.cli``); ``_reader``, which
the other commands share (and ``load_image``, from ``camera/image_file.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..camera.image_file import load_image
from ..errors import InputError


def _reader(model: str | None, calibration: str | None, markers: bool,
            tiles: str | None = None):
    from ..vision.location import Calibration, CalibrationError
    from ..vision.reader import BoardReader
    from ..vision.reading.classify import DEFAULT_MODEL, ModelError
    from ..vision.reading.tile_adapt import TileAdaptation, TilesError

    cal = None
    if calibration:
        try:
            cal = Calibration.load(calibration)
        except CalibrationError as exc:
            raise InputError(str(exc)) from None
    try:
        adaptation = TileAdaptation.load(tiles) if tiles else None
        return BoardReader(Path(model) if model else DEFAULT_MODEL, threads=1, calibration=cal,
                           markers=markers, tiles=adaptation)
    except (ModelError, TilesError) as exc:
        raise InputError(str(exc)) from None


@click.command()
@click.argument("images", nargs=-1, required=True, metavar="IMAGE...")
@click.option("--calibration", type=click.Path(dir_okay=False), default=None,
              help="Use a saved calibration (fixed camera); falls back to searching when "
                   "the board has moved.")
@click.option("--save-calibration", type=click.Path(dir_okay=False, writable=True),
              default=None, help="Save a calibration from the first image where the board "
                                 "is found.")
@click.option("--markers", is_flag=True, help="Look for ArUco corner markers first.")
@click.option("--model", type=click.Path(dir_okay=False), default=None,
              help="ONNX model (default: models/pips.onnx).")
@click.option("--tiles", "tiles", type=click.Path(dir_okay=False), default=None,
              help="Read with this table's own tiles (from `zatre calibrate tiles`).")
@click.option("--indent", type=click.IntRange(0, 8), default=None,
              help="Pretty-print (one image only).")
def read(images: tuple[str, ...], calibration: str | None, save_calibration: str | None,
         markers: bool, model: str | None, tiles: str | None, indent: int | None) -> None:
    """Read photos of the board: which cells hold a tile and how many pips it shows."""
    from ..vision.location import CalibrationError

    for path in images:  # fail early on a missing file, before any output
        if not path:
            raise InputError("an image path is empty")
        if not Path(path).exists():
            raise InputError(f"{path}: no such file")
    if save_calibration:
        _check_calibration_target(save_calibration)
    reader = _reader(model, calibration, markers, tiles)
    saved = False
    failed = 0
    for path in images:
        try:
            img = load_image(path)
            res = reader.read(img)
        except (InputError, CalibrationError) as exc:
            message = str(exc) if isinstance(exc, InputError) else f"{path}: {exc}"
            if len(images) == 1:
                raise InputError(message) from None
            # JSON Lines: the other images are still read; the exit status says 2
            click.echo(f"zatre: error: {message}", err=True)
            failed += 1
            continue
        if save_calibration and not saved and res.board_found:
            _save_calibration(save_calibration, img, res.model)
            saved = True
        if res.board_found and res.doubtful_frame:
            click.echo(f"zatre: {path}: too blurred or badly lit to read the tiles; "
                       f"all {len(res.uncertain)} cells left uncertain", err=True)
        out = res.to_json()
        if len(images) > 1:
            out = {"image": path, **out}
            click.echo(json.dumps(out, ensure_ascii=False))
        else:
            click.echo(json.dumps(out, indent=indent, ensure_ascii=False))
    if save_calibration and not saved:
        click.echo("zatre: no board found, no calibration saved", err=True)
    if failed:
        raise InputError(f"{failed} of {len(images)} images could not be read")


def _check_calibration_target(path: str) -> None:
    """Before any reading: ``path`` can take a calibration (its folder exists, and it is
    not some other file that saving would overwrite)."""
    from ..calibrate.files import read_raw
    from ..errors import check_folder
    from ..vision.location import CalibrationError

    check_folder(path)
    try:
        read_raw(path)
    except CalibrationError as exc:
        raise InputError(str(exc)) from None


def _save_calibration(path: str, img, model) -> None:
    """Save the board part as ``zatre calibrate board`` does: atomically, keeping the
    camera controls already in the file."""
    from ..calibrate.files import save_board
    from ..vision.location import make_calibration
    from ..vision.reader import WORK_SIDE

    h, w = img.shape[:2]
    f = min(1.0, WORK_SIDE / max(h, w))
    save_board(path, make_calibration(img if f == 1.0 else _resize(img, f), model))


def _resize(img, f: float):
    import cv2

    h, w = img.shape[:2]
    return cv2.resize(img, (int(round(w * f)), int(round(h * f))), interpolation=cv2.INTER_AREA)


@click.command()
@click.option("--which", type=click.Choice(["all", "pips", "board"]), default="all",
              show_default=True, help="pips: the cell classifier; board: the board finder.")
@click.option("--out", type=click.Path(dir_okay=False, writable=True),
              default="models/pips.onnx", show_default=True,
              help="Where to write the pip classifier (its model card goes beside it).")
@click.option("--board-out", type=click.Path(dir_okay=False, writable=True),
              default="models/board.onnx", show_default=True,
              help="Where to write the board finder (its model card goes beside it).")
@click.option("--quick", is_flag=True, help="A tiny run for tests (a few photos, one epoch).")
@click.option("--photos", type=click.IntRange(1, 100000), default=None,
              help="Training photos (default 1500 for pips, 4000 for the board).")
@click.option("--epochs", type=click.IntRange(1, 200), default=None)
@click.option("--workers", type=click.IntRange(1, 16), default=None,
              help="Processes rendering training photos (default 2).")
@click.option("--cache-dir", type=click.Path(file_okay=False), default=None,
              help="Keep the rendered training data here and reuse it when the data "
                   "settings are the same (a re-run skips the rendering).")
@click.option("--textures", type=click.IntRange(1, 64), default=None,
              help="Pip classifier: marble boards drawn for its training photos.")
@click.option("--cell-kind/--no-cell-kind", default=None,
              help="Pip classifier: whether it also takes each cell's kind (light x2 or not).")
@click.option("--fine-tune", "fine_tune", type=click.Path(dir_okay=False, exists=True),
              default=None, help="Pip classifier: start from this exported pips.onnx.")
@click.option("--makers", type=click.FloatRange(0, 1), default=None,
              help="Pip classifier: share of photos with tiles of other makers (default 0).")
@click.option("--prints", default=None,
              help="Pip classifier: board prints of its photos, comma-separated (default "
                   "peri; the others: synth/board_art.py BOARD_PRINTS).")
@click.option("--lr", type=click.FloatRange(1e-6, 1.0), default=None,
              help="Pip classifier: peak learning rate (default 0.003).")
@click.option("--batch", type=click.IntRange(8, 65536), default=None,
              help="Pip classifier: crops per optimiser step (default 256).")
@click.option("--device", type=click.Choice(["cpu", "cuda"]), default="cpu", show_default=True,
              help="Where the networks train (rendering stays on the CPU workers); cuda "
                   "needs a GPU and torch built for it.")
@click.option("--seconds", type=click.FloatRange(1, 1e6), default=None,
              help="Pip classifier: a time budget for its epochs: as many of --epochs as "
                   "fit, timed on the first batches (the card records the plan).")
def train(which: str, out: str, board_out: str, quick: bool, photos: int | None,
          epochs: int | None, workers: int | None, cache_dir: str | None,
          textures: int | None, cell_kind: bool | None, fine_tune: str | None,
          makers: float | None, prints: str | None, lr: float | None, batch: int | None,
          device: str, seconds: float | None) -> None:
    """Train the pip classifier and the board finder on synthetic photos and export
    them to ONNX (CPU)."""
    from dataclasses import replace

    print_names = None  # checked first: bad input is refused with or without torch
    if prints is not None:
        from ..synth.board_art import BOARD_PRINTS
        print_names = tuple(p.strip() for p in prints.split(",") if p.strip())
        unknown = [n for n in print_names if n != "peri" and n not in BOARD_PRINTS]
        if not print_names or unknown:
            raise click.BadParameter(f"unknown or held-out print(s) {unknown or prints!r} "
                                     f"(training prints: peri, {', '.join(BOARD_PRINTS)})",
                                     param_hint="--prints")
    try:
        from ..training.board_train import BOARD_QUICK, BoardTrainConfig, train_board
        from ..training.train import QUICK, TrainConfig
        from ..training.train import train as run_train
    except ImportError as exc:
        raise InputError(f"training needs the optional extra: pip install 'zatre-vision[train]' "
                         f"({exc.name} is missing)") from None
    if device == "cuda":
        import torch

        if not torch.cuda.is_available():
            raise InputError(f"--device cuda: no GPU that torch {torch.__version__} can use")
    changes = {k: v for k, v in (("photos", photos), ("epochs", epochs), ("workers", workers))
               if v is not None}
    report: dict = {}
    if which in ("all", "pips"):
        pip_changes = {k: v for k, v in (("textures", textures), ("cell_kind", cell_kind),
                                         ("init", fine_tune), ("makers", makers),
                                         ("lr", lr), ("batch", batch), ("seconds", seconds))
                       if v is not None}
        pip_changes["device"] = device
        if print_names is not None:
            pip_changes["prints"] = print_names
        cfg = replace(QUICK if quick else TrainConfig(), **changes, **pip_changes)
        card = run_train(cfg, Path(out), progress=True,
                         cache=Path(cache_dir) / "pips-data.npz" if cache_dir else None)
        report["pips"] = {"model": out, "parameters": card["parameters"],
                          "validation_accuracy":
                              card["metrics"]["validation_crops"]["accuracy"],
                          "seconds": card["training"]["total_seconds"]}
    if which in ("all", "board"):
        bcfg = replace(BOARD_QUICK if quick else BoardTrainConfig(), **changes, device=device)
        card = train_board(bcfg, Path(board_out), progress=True,
                           cache=Path(cache_dir) / "board-data.npz" if cache_dir else None)
        report["board"] = {"model": board_out, "parameters": card["parameters"],
                           "validation": card["metrics"]["validation"],
                           "seconds": card["training"]["total_seconds"]}
    click.echo(json.dumps(report))


@click.command("vision")
@click.option("--out", type=click.Path(dir_okay=False, writable=True),
              default="benchmarks/results/vision.json", show_default=True)
@click.option("--photos", type=click.IntRange(5, 100000), default=300, show_default=True)
@click.option("--model", type=click.Path(dir_okay=False), default=None)
@click.option("--card/--no-card", default=True, show_default=True,
              help="Copy the figures into the model card's metrics.")
@click.option("--ranges", type=click.Choice(["wide", "training"]), default="wide",
              show_default=True, help="wide: the held-out ranges (the benchmark); training: "
                                      "the training ranges, new seed (a reference only).")
@click.option("--board", "board_art", type=click.Choice(["drawn", "scanned"]), default="drawn",
              show_default=True, help="drawn: boards drawn like the training data; scanned: "
                                      "the real board's print from a scan, same scenes.")
@click.option("--seed", type=click.IntRange(0, 2**31 - 1), default=None,
              help="Render the set from another seed (default: the benchmark's 9001, 9002 "
                   "for --ranges training), to see how much the figures owe to one set. "
                   "The training seeds are refused; the model card is left alone.")
@click.option("--folder", type=click.Path(file_okay=False), default=None,
              help="Read photos from elsewhere instead: every truth.json under FOLDER "
                   "maps the photos beside it to their tiles and corners (e.g. "
                   "../shared/photos/outside-renderer); the model card is left alone.")
@click.option("--tiles", default="training", show_default=True,
              help="training: the training tile ranges; held-out: every photo shows one of "
                   "the tile sets training never saw (synth/tiles.py HELD_OUT_STYLES), "
                   "picked per photo; or one of them by name.")
@click.option("--prints", default="peri", show_default=True,
              help="Drawn boards' prints, comma-separated; held-out: the prints training "
                   "never saw (synth/board_art.py HELD_OUT_PRINTS).")
@click.option("--hires", is_flag=True,
              help="Read doubtful cells again from the frame at its own resolution "
                   "(vision/reading/hires.py).")
@click.option("--size", default="1280x960", show_default=True,
              help="The photos' size, WxH (e.g. 2560x1920: more pixels per cell).")
def bench_vision(out: str, photos: int, model: str | None, card: bool, ranges: str,
                 board_art: str, seed: int | None, folder: str | None, tiles: str,
                 prints: str, hires: bool, size: str) -> None:
    """The reader on a held-out synthetic set (new seed, wider ranges), one core."""
    from ..bench.results import write_result_file
    from ..bench.vision_bench import BENCH_SEED, run_folder_benchmark, run_vision_benchmark
    from ..errors import check_output_file
    from ..training.seeds import FIT_SEEDS, TRAINING_SEEDS
    from ..vision.reading.classify import DEFAULT_MODEL, ModelError

    if folder is not None:
        if not Path(folder).is_dir() or not any(Path(folder).rglob("truth.json")):
            raise click.BadParameter(f"{folder}: no truth.json under it", param_hint="--folder")
        check_output_file(out)
        try:
            res = run_folder_benchmark(Path(folder), Path(model) if model else DEFAULT_MODEL)
        except (ModelError, ValueError, KeyError) as exc:
            raise InputError(f"{folder}: {exc}") from None
        write_result_file(out, res)
        click.echo(json.dumps({k: res[k] for k in ("board_found_rate", "silent",
                                                   "boards_exactly_right")}, indent=2))
        click.echo(f"results written to {out}", err=True)
        return

    if seed in TRAINING_SEEDS:
        raise click.BadParameter(f"{seed} is a seed of the training data "
                                 f"({', '.join(map(str, sorted(TRAINING_SEEDS)))}); pick "
                                 "one never used in training", param_hint="--seed")
    if seed in FIT_SEEDS:
        raise click.BadParameter(f"{seed} is a seed the reader's decision is fitted on "
                                 f"({', '.join(map(str, sorted(FIT_SEEDS)))}); pick "
                                 "another", param_hint="--seed")
    from ..synth.board_art import HELD_OUT_PRINTS, print_names
    from ..synth.tiles import EVERY_HELD_OUT, HELD_OUT_STYLES

    if tiles not in ("training", EVERY_HELD_OUT, *HELD_OUT_STYLES):
        raise click.BadParameter(f"{tiles!r}: training, {EVERY_HELD_OUT} or one of "
                                 f"{', '.join(HELD_OUT_STYLES)}", param_hint="--tiles")
    print_list = (tuple(HELD_OUT_PRINTS) if prints == "held-out"
                  else tuple(p.strip() for p in prints.split(",") if p.strip()))
    if not print_list or any(p not in print_names() for p in print_list):
        raise click.BadParameter(f"{prints!r}: held-out or names from "
                                 f"{', '.join(print_names())}", param_hint="--prints")
    if board_art == "scanned" and print_list != ("peri",):
        raise click.BadParameter("--prints draws the boards; --board scanned shows the scan",
                                 param_hint="--prints")
    try:
        wh = tuple(int(v) for v in size.lower().split("x"))
        if len(wh) != 2 or not (160 <= wh[0] <= 8000 and 120 <= wh[1] <= 6000):
            raise ValueError
    except ValueError:
        raise click.BadParameter(f"{size!r}: WxH, e.g. 1280x960", param_hint="--size") from None
    check_output_file(out)
    model_path = Path(model) if model else DEFAULT_MODEL
    wide = ranges == "wide"
    default_seed = BENCH_SEED if wide else BENCH_SEED + 1
    try:  # the model is loaded before any photo is rendered
        res = run_vision_benchmark(photos, model_path,
                                   seed=default_seed if seed is None else seed,
                                   progress=True, wide=wide,
                                   scanned_board=board_art == "scanned", tiles=tiles,
                                   prints=print_list, hires=hires, size=wh)
    except ModelError as exc:
        raise InputError(str(exc)) from None
    card = (card and wide and board_art == "drawn" and seed in (None, default_seed)
            and tiles == "training" and print_list == ("peri",) and not hires
            and wh == (1280, 960))
    write_result_file(out, res)
    if card:
        card_path = model_path.with_suffix(model_path.suffix + ".json")
        if card_path.exists():
            data = json.loads(card_path.read_text(encoding="utf-8"))
            data.setdefault("metrics", {})["benchmark"] = {
                k: res[k] for k in ("set", "board_found_rate", "cells", "boards_exactly_right",
                                    "boards_without_wrong_cell", "timing_ms_one_thread")}
            card_path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    summary = {k: res[k] for k in ("board_found_rate", "boards_exactly_right",
                                   "timing_ms_one_thread", "targets_met")}
    summary["cells"] = {k: res["cells"][k] for k in ("wrong_rate", "uncertain_rate",
                                                     "strict_error_rate")}
    click.echo(json.dumps(summary, indent=2))
    click.echo(f"results written to {out}", err=True)


@click.command("gate")
@click.argument("candidate", type=click.Path(dir_okay=False))
@click.option("--board-model", "board_model", type=click.Path(dir_okay=False), default=None,
              help="A candidate board network too (default: the committed one for both).")
@click.option("--committed", type=click.Path(dir_okay=False), default=None,
              help="The pip model to beat (default models/pips.onnx).")
@click.option("--folder", type=click.Path(file_okay=False), default=None,
              help="Photos from elsewhere with truth.json (the outside renderer's, as "
                   "`make gate` passes them where they exist); without it that set is "
                   "skipped.")
@click.option("--scale", type=click.FloatRange(0.01, 1.0), default=1.0, show_default=True,
              help="A share of each set's photos (a quick look; the gate that lands a "
                   "model runs at 1).")
@click.option("--quick", is_flag=True, help="A tenth of --scale's photos, at least 5 a set "
              "(tests, a first look).")
@click.option("--workers", type=click.IntRange(1, 16), default=2, show_default=True)
@click.option("--cache", type=click.Path(file_okay=False), default=None,
              help="Keep the rendered photos in this folder between runs (reused only "
                   "while the renderer's code is the same); default: rendered anew.")
@click.option("--out", type=click.Path(dir_okay=False, writable=True),
              default="benchmarks/gate.json", show_default=True,
              help="The result file; the table goes beside it as .md (an .md name: the "
                   "JSON beside it).")
@click.option("--install", is_flag=True,
              help="When the candidate passes at scale 1, copy it (and its card) into "
                   "models/ and write its table beside the result files (gate.md).")
def bench_gate(candidate: str, board_model: str | None, committed: str | None,
               folder: str | None, scale: float, quick: bool, workers: int,
               cache: str | None, out: str, install: bool) -> None:
    """A candidate model against the committed one on every bench set; exits 1 unless it
    is no worse (pooled, and on each set by one-sided exact tests)."""
    from ..bench.gate import install as install_models
    from ..bench.gate import run_gate, table
    from ..bench.results import write_result_file
    from ..errors import check_output_file
    from ..vision.location import DEFAULT_BOARD_MODEL
    from ..vision.reader import BoardReader
    from ..vision.reading.classify import DEFAULT_MODEL, ModelError

    committed_path = Path(committed) if committed else DEFAULT_MODEL
    for path in (candidate, committed_path):
        try:  # each pip model and its card (with its fitted decision) must load
            BoardReader(path, threads=1)
        except (ModelError, OSError) as exc:
            raise InputError(str(exc)) from None
    if board_model is not None and not Path(board_model).is_file():
        raise InputError(f"{board_model}: board model file not found")
    if folder is not None and not any(Path(folder).rglob("truth.json")):
        raise click.BadParameter(f"{folder}: no truth.json under it", param_hint="--folder")
    if quick:
        scale = scale / 10
    if install and scale != 1.0:
        raise click.BadParameter("only the full gate (--scale 1) may install a model",
                                 param_hint="--install")
    json_out, md_out = Path(out).with_suffix(".json"), Path(out).with_suffix(".md")
    check_output_file(json_out)
    check_output_file(md_out)
    result = run_gate(Path(candidate), Path(board_model) if board_model else None,
                      committed_path, DEFAULT_BOARD_MODEL,
                      Path(folder) if folder else None, scale=scale, workers=workers,
                      log=lambda s: click.echo(s, err=True),
                      cache=Path(cache) if cache else None)
    write_result_file(json_out, result)
    text = table(result)
    md_out.write_text(
        f"# Gate: {candidate} against {committed_path}\n\n"
        f"`{result['command']}` at {result['commit']}, {result['date']}\n\n" + text,
        encoding="utf-8")
    click.echo(text)
    if not result["passes"]:
        raise SystemExit(1)
    if install:
        written = install_models(Path(candidate), Path(board_model) if board_model else None,
                                 DEFAULT_MODEL.parent)
        click.echo("installed: " + ", ".join(map(str, written)), err=True)


__all__ = ["bench_gate", "bench_vision", "load_image", "read", "train"]
