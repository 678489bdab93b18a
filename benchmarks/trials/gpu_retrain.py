"""One retrain of the pip classifier on a lent GPU machine (helper 43g, issue 43).

The rendering runs on every CPU core until a deadline; the longest run of whole
25-photo chunks from photo 0 that finished is kept, which is exactly the data
``zatre train --photos N`` renders (``dataset.build`` cuts the same chunks), so the
run can be repeated on any machine with the CLI line this script prints. Then
``training.train.train`` runs unchanged on ``--device`` with a time budget for its
epochs. The network's weights are saved before the ONNX export, so a failed export
still leaves a model.

    python benchmarks/trials/gpu_retrain.py --out $OUT/pips-gpu-candidate.onnx \\
        --card-from models/pips.onnx.json --device cuda
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
import traceback
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np

T0 = time.monotonic()
CHUNK = 25   # dataset.build's chunk: the data of a prefix is that of --photos N


def log(msg: str) -> None:
    print(f"[{time.monotonic() - T0:6.1f} s] {msg}", flush=True)


def render(cfg, until: float, workers: int) -> tuple[dict, int, float]:
    """Validation photos first, then training chunks until ``until`` s after start; the
    arrays, the training photos kept and the seconds it took."""
    from zatre_vision.training.dataset import _work
    from zatre_vision.training.train import data_specs

    spec, vspec = data_specs(cfg)
    vjobs = [(vspec, s, min(s + CHUNK, vspec.photos)) for s in range(0, vspec.photos, CHUNK)]
    tjobs = [(spec, s, min(s + CHUNK, spec.photos)) for s in range(0, spec.photos, CHUNK)]
    t = time.monotonic()
    ex = ProcessPoolExecutor(workers)
    vf = [ex.submit(_work, j) for j in vjobs]
    tf = [ex.submit(_work, j) for j in tjobs]
    last = 0.0
    while True:
        done = sum(f.done() for f in tf)
        if done == len(tf) or time.monotonic() - T0 > until:
            break
        if time.monotonic() - last > 15:
            last = time.monotonic()
            log(f"rendered {done * CHUNK} of {spec.photos} training photos "
                f"({done * CHUNK / max(1e-9, last - t):.1f} photos/s)")
        time.sleep(0.5)
    for f in vf:                         # the validation set is always whole
        f.result()
    keep = 0
    while keep < len(tf) and tf[keep].done() and not tf[keep].cancelled():
        keep += 1
    for f in tf[keep:]:
        f.cancel()
    procs = list((getattr(ex, "_processes", None) or {}).values())
    ex.shutdown(wait=False, cancel_futures=True)
    for p in procs:                      # chunks still rendering are not waited for
        p.terminate()
    seconds = time.monotonic() - t
    if keep == 0:
        raise SystemExit("no training chunk finished before the deadline")
    photos = tjobs[keep - 1][2]
    parts = [f.result() for f in tf[:keep]]
    vparts = [f.result() for f in vf]

    def cat(ps, k):
        return np.concatenate([p[k] for p in ps])

    arrays = {"x": cat(parts, 0), "y": cat(parts, 1), "c": cat(parts, 2),
              "vx": cat(vparts, 0), "vy": cat(vparts, 1), "vc": cat(vparts, 2)}
    log(f"kept {photos} training photos ({len(arrays['y'])} crops) and {vspec.photos} "
        f"validation photos ({len(arrays['vy'])} crops) in {seconds:.0f} s")
    return arrays, photos, seconds


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--card-from", default="models/pips.onnx.json",
                    help="the card whose kept keys (reader thresholds) carry over")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--max-photos", type=int, default=16000)
    ap.add_argument("--val-photos", type=int, default=120)
    ap.add_argument("--render-until", type=float, default=270.0,
                    help="seconds after start at which rendering stops")
    ap.add_argument("--seconds", type=float, default=150.0, help="time budget of the epochs")
    ap.add_argument("--epochs", type=int, default=60, help="at most")
    ap.add_argument("--workers", type=int, default=16)
    ap.add_argument("--makers", type=float, default=0.5)
    ap.add_argument("--prints", default="peri,plain-black,peri,marble-grey,peri,navy,peri,"
                                        "brown-marble")
    ap.add_argument("--textures", type=int, default=16)
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--lr", type=float, default=5e-3)
    ap.add_argument("--width", type=int, default=16)
    a = ap.parse_args()

    import torch

    from zatre_vision.training import train as train_mod
    from zatre_vision.training.train import TrainConfig

    cfg = TrainConfig(photos=a.max_photos, val_photos=a.val_photos, epochs=a.epochs,
                      batch=a.batch, lr=a.lr, width=a.width, workers=a.workers,
                      textures=a.textures, makers=a.makers,
                      prints=tuple(p.strip() for p in a.prints.split(",")),
                      device=a.device, seconds=a.seconds)
    arrays, photos, render_s = render(cfg, a.render_until, a.workers)
    cfg = replace(cfg, photos=photos)
    # CUDA is first touched here, after the rendering processes (forked) are gone
    log(f"torch {torch.__version__}, cuda {torch.cuda.is_available()}"
        + (f" ({torch.cuda.get_device_name(0)})" if torch.cuda.is_available() else ""))
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    card_path = out.with_suffix(out.suffix + ".json")
    shutil.copyfile(a.card_from, card_path)

    train_mod.render_data = lambda *_args, **_kw: arrays   # rendered above
    export = train_mod.export_onnx

    def export_after_saving(model, path):
        torch.save(model.state_dict(), out.with_suffix(".pt"))
        log(f"weights saved to {out.with_suffix('.pt')}")
        export(model, path)
        log(f"exported {path}")

    train_mod.export_onnx = export_after_saving
    try:
        card = train_mod.train(cfg, out, progress=True)
    except Exception:                                  # noqa: BLE001 - fall back, say so
        traceback.print_exc()
        if cfg.device == "cpu":
            raise
        left = max(30.0, a.render_until + a.seconds - (time.monotonic() - T0))
        log(f"training on {cfg.device} failed: once more on the CPU, {left:.0f} s")
        cfg = replace(cfg, device="cpu", seconds=left)
        shutil.copyfile(a.card_from, card_path)
        card = train_mod.train(cfg, out, progress=True)
    t = card["training"]
    t["data_seconds"] = round(render_s, 1)
    t["data_from_cache"] = False
    t["rendered_by"] = (f"benchmarks/trials/gpu_retrain.py: {a.workers} processes until "
                        f"{a.render_until:.0f} s after start; the first {photos} photos "
                        "(whole chunks) kept, the same data as zatre train --photos "
                        f"{photos}")
    t["cli_equivalent"] = (f"zatre train --which pips --photos {photos} --workers {a.workers} "
                           f"--textures {a.textures} --makers {a.makers} --prints "
                           f"{','.join(cfg.prints)} --batch {a.batch} --lr {a.lr} "
                           f"--epochs {len(t['history'])} --device {cfg.device}")
    t["total_seconds"] = round(time.monotonic() - T0, 1)
    card_path.write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    log(f"card written: val accuracy {card['metrics']['validation_crops']['accuracy']:.5f}, "
        f"{len(t['history'])} epochs, config {json.dumps(asdict(cfg))}")


if __name__ == "__main__":
    sys.exit(main())
