"""``zatre train`` (board finder part): render small photos, train ``BoardNet``, export
``models/board.onnx`` and its model card. About 10 minutes on two CPU cores."""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn
from tqdm import tqdm

from ..vision.location import INPUT_H, INPUT_W, OUT_STRIDE, decode, net_input
from . import checkpoint as ckpt
from .board_data import CORNER_SIGMA, RENDER_SIZE, BoardDataSpec, build
from .board_model import BoardNet
from .chunks import spec_folder
from .data_cache import cached
from .model import parameter_count
from .seeds import BOARD_SEED, BOARD_VAL_SEED
from .worlds import check_world

#: heat-map pixels near a corner weigh this much more (they are rare)
CORNER_WEIGHT = 20.0


@dataclass(frozen=True)
class BoardTrainConfig:
    photos: int = 4000
    val_photos: int = 200
    epochs: int = 14
    batch: int = 32
    lr: float = 4e-3
    width: int = 12
    seed: int = BOARD_SEED
    workers: int = 2
    #: where the network trains: "cpu" or "cuda" (the augmentation draws its numbers on
    #: the CPU either way, so the CPU path is unchanged)
    device: str = "cpu"
    #: torch's threads while training; 0: as many as ``workers``
    threads: int = 0
    #: the renderer's ranges of the photos, by name (``worlds.world_config``;
    #: "default" is ``SynthConfig()``, what the committed board network learnt from)
    world: str = "default"
    #: the prints the boards show (board variant k shows ``prints[k % len(prints)]``;
    #: "world": a new print of ``synth.print_world`` each); None: every training print
    prints: tuple[str, ...] | None = None


BOARD_QUICK = BoardTrainConfig(photos=16, val_photos=8, epochs=1, workers=1)


def _augment(x: torch.Tensor, y: torch.Tensor, g: torch.Generator
             ) -> tuple[torch.Tensor, torch.Tensor]:
    """Colour gains, contrast and flips (targets flipped with the photo)."""
    n = x.shape[0]
    x = x.float()
    gain = 1 + 0.25 * (torch.rand(n, 3, 1, 1, generator=g) * 2 - 1)
    level = 1 + 0.35 * (torch.rand(n, 1, 1, 1, generator=g) * 2 - 1)
    x = (x * gain * level).clamp(0, 255)
    if torch.rand(1, generator=g) < 0.5:
        x, y = torch.flip(x, dims=(3,)), torch.flip(y, dims=(3,))
    if torch.rand(1, generator=g) < 0.5:
        x, y = torch.flip(x, dims=(2,)), torch.flip(y, dims=(2,))
    return x, y


def _loss(logits: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    mask = nn.functional.binary_cross_entropy_with_logits(logits[:, 0], y[:, 0])
    w = 1 + CORNER_WEIGHT * y[:, 1]
    heat = nn.functional.binary_cross_entropy_with_logits(logits[:, 1], y[:, 1], weight=w)
    return mask + heat


def corner_errors(model: nn.Module, x: np.ndarray, corners: np.ndarray) -> dict:
    """Found rate and outer-corner error (cells) of the decoded outlines."""
    model.eval()
    d = next(model.parameters()).device
    _, scale, pad = net_input(np.zeros((RENDER_SIZE[1], RENDER_SIZE[0], 3), np.uint8))
    with torch.no_grad():
        probs = torch.cat([torch.sigmoid(model(torch.from_numpy(x[i:i + 64]).float().to(d)))
                           .cpu() for i in range(0, len(x), 64)]).numpy()
    errs, missed, false = [], 0, 0
    for p, c in zip(probs, corners, strict=True):
        out = decode(p, scale, pad)
        if np.isnan(c).any():
            false += int(out is not None)
            continue
        if out is None:
            missed += 1
            continue
        cell = float(np.linalg.norm(c[1] - c[0])) / 15
        e = min(np.linalg.norm(np.roll(out.corners, k, 0) - c, axis=1).max() for k in range(4))
        errs.append(e / cell)
    e = np.array(errs) if errs else np.full(1, np.nan)
    boards = int((~np.isnan(corners).any(axis=(1, 2))).sum())
    return {"boards": boards, "found": boards - missed, "false_boards": false,
            "corner_error_cells_median": round(float(np.median(e)), 3),
            "corner_error_cells_p95": round(float(np.percentile(e, 95)), 3),
            "within_half_cell": round(float((e < 0.5).mean()), 4)}


def export_onnx(model: nn.Module, path: Path) -> None:
    model.eval()
    dummy = torch.zeros(1, 3, INPUT_H, INPUT_W)
    torch.onnx.export(model, (dummy,), str(path), input_names=["image"], output_names=["maps"],
                      opset_version=17, dynamo=False)


#: photos in a chunk of rendered data (``chunks``)
CHUNK = 50


def chunk_folders(cfg: BoardTrainConfig, root: Path) -> tuple[Path, Path]:
    """Where the chunks of the training and validation photos of ``cfg`` are kept."""
    train, val = _specs(cfg)
    return spec_folder(root, "board-train", train), spec_folder(root, "board-val", val)


def _specs(cfg: BoardTrainConfig) -> tuple[BoardDataSpec, BoardDataSpec]:
    """The training and validation photos of ``cfg`` (both from its world)."""
    return (BoardDataSpec(cfg.seed, cfg.photos, prints=cfg.prints, world=cfg.world),
            BoardDataSpec(BOARD_VAL_SEED, cfg.val_photos, prints=cfg.prints, world=cfg.world))


def render_data(cfg: BoardTrainConfig, progress=None, chunks: Path | None = None,
                loaded=None) -> dict[str, np.ndarray]:
    """Training inputs and targets (x, y), validation inputs and corners (vx, vc); with
    ``chunks``, rendered in chunks kept under that folder and reused."""
    folder, vfolder = chunk_folders(cfg, chunks) if chunks is not None else (None, None)
    train, val = _specs(cfg)
    vx, _, vc = build(val, cfg.workers, CHUNK, progress, vfolder, loaded)
    x, y, _ = build(train, cfg.workers, CHUNK, progress, folder, loaded)
    return {"x": x, "y": y, "vx": vx, "vc": vc}


def _data(cfg: BoardTrainConfig, cache: Path | None, progress: bool,
          chunks: Path | None = None) -> tuple[tuple[np.ndarray, ...], bool]:
    """Training and validation arrays, rendered (or loaded from ``cache``, a .npz
    written by an earlier run with the same config, or from ``chunks``), and whether
    any photo was rendered."""
    rendered = False

    def tick(photos: int) -> None:
        nonlocal rendered
        rendered = True
        bar.update(photos)

    bar = tqdm(total=cfg.photos + cfg.val_photos, desc="render board photos",
               unit="photo", file=sys.stderr, disable=not progress)
    d = cached(cache, cfg, lambda: render_data(cfg, tick, chunks, bar.update))
    bar.close()
    return (d["x"], d["y"], d["vx"], d["vc"]), rendered


def train_board(cfg: BoardTrainConfig, out: Path, progress: bool = True,
                cache: Path | None = None, chunks: Path | None = None,
                checkpoint: Path | None = None, stop_after: int | None = None,
                on_epoch=None) -> dict:
    """Render (or load) the photos, train, export ``out`` and its model card.
    ``chunks``, ``checkpoint``, ``stop_after`` and ``on_epoch`` as in ``train.train``."""
    if cfg.device not in ("cpu", "cuda"):
        raise ValueError(f"BoardTrainConfig.device {cfg.device!r}: cpu or cuda")
    check_world(cfg.world)
    t0 = time.perf_counter()
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(max(1, cfg.threads or cfg.workers))
    (x, y, vx, vc), rendered = _data(cfg, cache, progress, chunks)
    t_data = time.perf_counter() - t0
    device = torch.device(cfg.device)
    model = BoardNet(cfg.width).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=1e-4)
    nb = max(1, len(x) // cfg.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, cfg.lr, total_steps=cfg.epochs * nb + 1)
    g = torch.Generator().manual_seed(cfg.seed)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    history: list[dict] = []
    resumed = ckpt.load(checkpoint, asdict(cfg), progress)
    if resumed is not None:
        history = ckpt.restore(resumed, model, opt, sched, g)
        if progress:
            print(f"resuming after board epoch {len(history)} of {cfg.epochs} ({checkpoint})",
                  file=sys.stderr)
    first = len(history)
    for epoch in range(first, cfg.epochs):
        t_epoch = time.perf_counter()
        model.train()
        perm = torch.randperm(len(x), generator=g)
        total = 0.0
        for b in tqdm(range(nb), desc=f"board epoch {epoch + 1}/{cfg.epochs}", file=sys.stderr,
                      disable=not progress, leave=False):
            idx = perm[b * cfg.batch:(b + 1) * cfg.batch]
            xb, yb = _augment(xt[idx], yt[idx].float(), g)
            loss = _loss(model(xb.to(device)), yb.to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach())
        val = corner_errors(model, vx, vc)
        history.append({"epoch": epoch + 1, "loss": round(total / nb, 4), **val})
        if progress:
            print(f"board epoch {epoch + 1}: loss {total / nb:.4f} {val}", file=sys.stderr)
        if checkpoint is not None:
            ckpt.save(checkpoint, {
                "config": asdict(cfg), "history": history, "model": model.state_dict(),
                "optimiser": opt.state_dict(), "scheduler": sched.state_dict(),
                "generator": g.get_state(), "torch_rng": ckpt.rng_state()})
        if on_epoch:
            on_epoch(history[-1], cfg.epochs, time.perf_counter() - t_epoch)
        if stop_after is not None and epoch + 1 >= stop_after and epoch + 1 < cfg.epochs:
            raise ckpt.Interrupted(f"stopped after board epoch {epoch + 1} of {cfg.epochs}")
    model = model.cpu()
    out.parent.mkdir(parents=True, exist_ok=True)
    export_onnx(model, out)
    card = {
        "name": "zatre-board",
        "input_size": [INPUT_W, INPUT_H],
        "input": {"layout": f"1 x 3 x {INPUT_H} x {INPUT_W}, float32 0..255, BGR",
                  "preparation": "frame reduced to fit (aspect kept, INTER_AREA), padded "
                                 "black, centred; see zatre_vision/vision/location/board_net.py"},
        "output": {"layout": f"1 x 2 x {INPUT_H // OUT_STRIDE} x {INPUT_W // OUT_STRIDE} "
                             "logits",
                   "channels": ["inside the outer grid outline", "outer grid corners "
                                f"(Gaussian, sigma {CORNER_SIGMA} output px)"]},
        "parameters": parameter_count(model),
        "architecture": f"BoardNet(width={cfg.width}): strided conv encoder to 1/8, dilated "
                        "context (2, 4, 8), bilinear decoder with skips to 1/2",
        "training": {"config": asdict(cfg), "data_seed": cfg.seed,
                     "validation_seed": BOARD_VAL_SEED,
                     "synth_config": f"world {cfg.world!r} (worlds.world_config), "
                                     "every training print",
                     "render_size": list(RENDER_SIZE), "data_seconds": round(t_data, 1),
                     "data_from_cache": not rendered,
                     **({"resumed_after_epoch": first} if first else {}),
                     "device": str(device),
                     "total_seconds": round(time.perf_counter() - t0, 1),
                     "torch": torch.__version__, "history": history},
        "metrics": {"validation": history[-1] if history else {}},
    }
    out.with_suffix(out.suffix + ".json").write_text(json.dumps(card, indent=2) + "\n",
                                                     encoding="utf-8")
    return card
