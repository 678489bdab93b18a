"""``zatre train``: render crops, train the pip classifier, export ``models/pips.onnx``
and its model card. Runs on a CPU in well under 30 minutes with the defaults; with
``device="cuda"`` the network trains on a GPU (rendering stays on the CPU workers)."""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from tqdm import tqdm

from ..vision.reading.cells import CROP, MARGIN, PPC
from ..vision.reading.classify import CLASSES, kind_input
from . import checkpoint as ckpt
from .chunks import spec_folder
from .data_cache import cached
from .dataset import SIZE_WEIGHTS, SIZES, DataSpec, build
from .features_output import CARD_OUTPUTS, add_to_file
from .from_onnx import freeze_batchnorm, pipnet_from_onnx
from .model import PipNet, architecture, parameter_count
from .seeds import TRAIN_SEED, VAL_SEED
from .worlds import check_world


@dataclass(frozen=True)
class TrainConfig:
    photos: int = 1500
    val_photos: int = 120
    epochs: int = 24
    batch: int = 256
    lr: float = 3e-3
    width: int = 16
    #: share of training crops blurred further on the fly (``_degrade``)
    degrade: float = 0.45
    seed: int = TRAIN_SEED
    workers: int = 2
    #: marble boards drawn for the training photos (and for the validation photos):
    #: many uncertain empty cells are marble veins, and with fewer boards the network
    #: sees the veins of only a few (16 boards measured no better than 8)
    textures: int = 8
    #: the network also takes each crop's cell kind (light x2 cell or not)
    cell_kind: bool = True
    #: share of photos with tiles of other makers (``TileConfig.makers_probability``)
    makers: float = 0.0
    #: board prints of the training photos (``BoardConfig.prints``; board variant k
    #: shows ``prints[k % len(prints)]``)
    prints: tuple[str, ...] = ("peri",)
    #: an exported pips.onnx to start from (fine-tuning; its BatchNorms stay frozen,
    #: ``from_onnx``), or "" to train from scratch
    init: str = ""
    #: where the network trains: "cpu" (the default, the product's path) or "cuda"
    #: (a GPU; the random augmentation then draws from a generator on the GPU)
    device: str = "cpu"
    #: when over 0, a time budget (s) for the epochs: as many of ``epochs`` as fit in
    #: it, timed on the first batches before the learning-rate schedule is laid out
    seconds: float = 0.0
    #: the renderer's ranges of the photos, by name (``worlds.world_config``:
    #: "default" is ``SynthConfig()``)
    world: str = "default"
    #: torch's threads while training; 0: as many as ``workers``. On the shared 2-core
    #: machine under load, 1 thread trained 3 to 10 times faster than 2 (``recipe.py``)
    threads: int = 0


#: ``TrainConfig.device`` values
DEVICES = ("cpu", "cuda")
#: batches timed (on a throwaway copy of the network) to size the epochs to
#: ``TrainConfig.seconds``
TIMED_BATCHES = 30


#: model card keys a new export keeps from the card it replaces (fitted elsewhere:
#: the reader's thresholds)
KEPT_CARD_KEYS = ("reader_thresholds",)

QUICK = TrainConfig(photos=8, val_photos=4, epochs=1, workers=1, textures=2)

#: ``_degrade``: Gaussian sigma (crop px), share of motion kernels and their length,
#: contrast kept (low end) and how often, noise
DEGRADE_SIGMA = (0.3, 1.8)
DEGRADE_MOTION = 0.3
DEGRADE_MOTION_PX = (1.0, 6.0)
DEGRADE_CONTRAST = (0.6, 0.3)
DEGRADE_NOISE = 0.03
_KERNEL = 9


def _augment(x: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    """Quarter turns, mirror, gain, bias and noise; ``g`` lives on ``x``'s device."""
    n, d = x.shape[0], x.device
    k = int(torch.randint(0, 4, (1,), generator=g, device=d))
    x = torch.rot90(x, k, dims=(2, 3))
    if torch.rand(1, generator=g, device=d) < 0.5:
        x = torch.flip(x, dims=(3,))
    gain = 1 + 0.15 * (torch.rand(n, 1, 1, 1, generator=g, device=d) - 0.5) * 2
    bias = 0.08 * (torch.rand(n, 1, 1, 1, generator=g, device=d) - 0.5) * 2
    noise = 0.02 * torch.randn(x.shape, generator=g, device=d)
    return x * gain + bias + noise


def _degrade(x: torch.Tensor, g: torch.Generator, share: float) -> torch.Tensor:
    """Blur a random ``share`` of the crops further than the renderer does (defocus as a
    Gaussian, or a short motion streak at a random angle), flatten the contrast of some
    and add noise: the photos a real camera gives when a hand moves or the focus
    drifts, so that the classifier degrades into "uncertain" rather than a wrong count."""
    n, _, h, w = x.shape
    d = x.device
    r = torch.arange(_KERNEL, dtype=torch.float32, device=d) - _KERNEL // 2
    yy, xx = torch.meshgrid(r, r, indexing="ij")
    lo, hi = DEGRADE_SIGMA
    sig = (lo + (hi - lo) * torch.rand(n, generator=g, device=d))[:, None, None]
    kernel = torch.exp(-(xx ** 2 + yy ** 2) / (2 * sig ** 2))
    ang = (torch.rand(n, generator=g, device=d) * torch.pi)[:, None, None]
    lo, hi = DEGRADE_MOTION_PX
    length = (lo + (hi - lo) * torch.rand(n, generator=g, device=d))[:, None, None]
    across = (xx * torch.sin(ang) - yy * torch.cos(ang)).abs()
    along = (xx * torch.cos(ang) + yy * torch.sin(ang)).abs()
    streak = torch.clamp(1 - across, 0) * (along <= length / 2) + 1e-6
    motion = (torch.rand(n, generator=g, device=d) < DEGRADE_MOTION)[:, None, None]
    kernel = torch.where(motion, streak, kernel)
    kernel = kernel / kernel.sum(dim=(1, 2), keepdim=True)
    pad = _KERNEL // 2
    padded = F.pad(x, (pad, pad, pad, pad), mode="replicate").reshape(1, n, h + 2 * pad,
                                                                       w + 2 * pad)
    blurred = F.conv2d(padded, kernel[:, None], groups=n).reshape(n, 1, h, w)
    chosen = (torch.rand(n, generator=g, device=d) < share)[:, None, None, None]
    out = torch.where(chosen, blurred, x)
    low, often = DEGRADE_CONTRAST
    keep = torch.where(torch.rand(n, 1, 1, 1, generator=g, device=d) < often,
                       low + (1 - low) * torch.rand(n, 1, 1, 1, generator=g, device=d),
                       torch.ones(n, 1, 1, 1, device=d))
    mean = out.mean(dim=(2, 3), keepdim=True)
    out = mean + (out - mean) * keep
    noise = DEGRADE_NOISE * torch.rand(n, 1, 1, 1, generator=g, device=d)
    return out + noise * torch.randn(out.shape, generator=g, device=d)


def evaluate(model: nn.Module, x: np.ndarray, y: np.ndarray, kind: np.ndarray) -> dict:
    model.eval()
    d = next(model.parameters()).device
    with torch.no_grad():
        logits = torch.cat([model(torch.from_numpy(x[i:i + 1024]).to(d),
                                  torch.from_numpy(kind[i:i + 1024]).to(d)).cpu()
                            for i in range(0, len(x), 1024)])
    pred = logits.argmax(1).numpy()
    cm = np.zeros((len(CLASSES), len(CLASSES)), np.int64)
    np.add.at(cm, (y, pred), 1)
    return {"crops": int(len(y)), "accuracy": float((pred == y).mean()),
            "confusion": cm.tolist()}


#: training stops after the epoch that takes it past this share of ``TrainConfig.seconds``
OVERRUN = 1.25


def _step(model: nn.Module, loss_fn, opt, xt: torch.Tensor, yt: torch.Tensor,
          kt: torch.Tensor, idx: torch.Tensor, g: torch.Generator, degrade: float
          ) -> torch.Tensor:
    """One optimiser step on the crops ``idx`` (augmented, some degraded); the loss."""
    xb = _augment(xt[idx], g)
    if degrade > 0:
        xb = _degrade(xb, g, degrade)
    loss = loss_fn(model(xb, kt[idx]), yt[idx])
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _time_epoch(cfg: TrainConfig, model: nn.Module, loss_fn, xt, yt, kt, val, nb: int
                ) -> dict:
    """Seconds an epoch takes (its batches and the validation after it), timed on
    ``TIMED_BATCHES`` batches of a throwaway copy of ``model`` with its own generator,
    so the real run draws the same numbers as without a budget."""
    import copy

    device = xt.device
    probe = copy.deepcopy(model)
    probe.train()
    opt = torch.optim.AdamW(probe.parameters(), lr=cfg.lr * 0.01)
    g = torch.Generator(device).manual_seed(cfg.seed + 1)
    n = min(nb, TIMED_BATCHES)

    def run(batches: int) -> None:
        for _ in range(batches):
            idx = torch.randint(0, len(xt), (cfg.batch,), generator=g, device=device)
            _step(probe, loss_fn, opt, xt, yt, kt, idx, g, cfg.degrade).detach()
        _sync(device)

    run(min(5, n))                          # warm-up: kernels, allocator
    t = time.perf_counter()
    run(n)
    per_batch = (time.perf_counter() - t) / n
    t = time.perf_counter()
    evaluate(probe, *val)
    val_seconds = time.perf_counter() - t
    return {"batch_seconds": round(per_batch, 5), "validation_seconds": round(val_seconds, 2),
            "epoch_seconds": round(per_batch * nb + val_seconds, 2)}


def _device_name(device: torch.device) -> str:
    if device.type == "cuda":
        return f"cuda ({torch.cuda.get_device_name(device)})"
    return "cpu"


def export_onnx(model: nn.Module, path: Path) -> None:
    """ONNX, opset 17, any batch size; inputs ``crops`` (and ``kind`` when the network
    takes the cell kind), outputs ``logits`` and ``features`` (the penultimate layer,
    added to the exported graph by ``features_output``: ``zatre calibrate tiles``
    fits a table's own head on it)."""
    model.eval()
    args: tuple = (torch.zeros(193, 1, CROP, CROP),)
    names = ["crops"]
    if getattr(model, "cell_kind", False):
        args += (torch.zeros(193, 1),)
        names.append("kind")
    torch.onnx.export(model, args, str(path), input_names=names, output_names=["logits"],
                      dynamic_axes={n: {0: "n"} for n in [*names, "logits"]},
                      opset_version=17, dynamo=False)
    add_to_file(path)


def data_specs(cfg: TrainConfig) -> tuple[DataSpec, DataSpec]:
    """The training and validation data of ``cfg``."""
    extra = {"makers": cfg.makers, "prints": tuple(cfg.prints), "world": cfg.world}
    return (DataSpec(cfg.seed, cfg.photos, textures=cfg.textures, **extra),
            DataSpec(VAL_SEED, cfg.val_photos, textures=cfg.textures, **extra))


#: photos in a chunk of rendered data (``chunks``; the data of a prefix of chunks is
#: that of a run with fewer photos)
CHUNK = 25


def chunk_folders(cfg: TrainConfig, root: Path) -> tuple[Path, Path]:
    """Where the chunks of the training and validation photos of ``cfg`` are kept."""
    spec, vspec = data_specs(cfg)
    return spec_folder(root, "pips-train", spec), spec_folder(root, "pips-val", vspec)


def render_data(cfg: TrainConfig, progress=None, chunks: Path | None = None, loaded=None
                ) -> dict[str, np.ndarray]:
    """Crops, labels and cell indices of the training (x, y, c) and validation (vx, vy,
    vc) photos; with ``chunks``, rendered in chunks kept under that folder and reused
    (``chunks.render_parts``: the same arrays either way)."""
    spec, vspec = data_specs(cfg)
    folder, vfolder = chunk_folders(cfg, chunks) if chunks is not None else (None, None)
    vx8, vy, vc = build(vspec, cfg.workers, CHUNK, progress, vfolder, loaded)
    x8, y, c = build(spec, cfg.workers, CHUNK, progress, folder, loaded)
    return {"x": x8, "y": y, "c": c, "vx": vx8, "vy": vy, "vc": vc}


def train(cfg: TrainConfig, out: Path, progress: bool = True, cache: Path | None = None,
          chunks: Path | None = None, checkpoint: Path | None = None,
          stop_after: int | None = None, on_epoch=None) -> dict:
    """Render crops (or load them from ``cache``, written by an earlier run of the same
    data config), train, export ``out`` and its model card.

    ``chunks``: render in chunks kept under this folder (a rerun reuses them).
    ``checkpoint``: the training state is saved there after each epoch, and a run that
    finds one of the same config resumes after its last epoch (``checkpoint.py``).
    ``stop_after``: raise ``checkpoint.Interrupted`` once that epoch is saved (tests of
    the resumption). ``on_epoch(entry, epochs, seconds)`` after each epoch (``entry``:
    its line of the history)."""
    if cfg.device not in DEVICES:
        raise ValueError(f"TrainConfig.device {cfg.device!r}: one of {', '.join(DEVICES)}")
    check_world(cfg.world)
    t0 = time.perf_counter()
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(max(1, cfg.threads or cfg.workers))
    spec, _ = data_specs(cfg)
    bar = tqdm(total=cfg.photos + cfg.val_photos, desc="render crops", unit="photo",
               file=sys.stderr, disable=not progress)
    rendered = False

    def tick(photos: int) -> None:
        nonlocal rendered
        rendered = True
        bar.update(photos)

    def render() -> dict[str, np.ndarray]:
        nonlocal rendered
        rendered = chunks is None
        return render_data(cfg, tick, chunks, bar.update)

    data = cached(cache, cfg, render)
    x8, y, vx8, vy = data["x"], data["y"], data["vx"], data["vy"]
    kind, vkind = kind_input(data["c"]), kind_input(data["vc"])
    bar.close()
    x = x8.astype(np.float32)[:, None] / 100.0
    vx = vx8.astype(np.float32)[:, None] / 100.0
    t_data = time.perf_counter() - t0

    if cfg.init:
        model = pipnet_from_onnx(Path(cfg.init))
        if model.cell_kind != cfg.cell_kind:
            raise ValueError(f"{cfg.init}: cell_kind={model.cell_kind}, asked {cfg.cell_kind}")
    else:
        model = PipNet(cfg.width, cfg.cell_kind)
    device = torch.device(cfg.device)
    model = model.to(device)
    counts = np.bincount(y, minlength=len(CLASSES)).astype(np.float64)
    weights = torch.tensor((counts.sum() / np.maximum(counts, 1)) ** 0.5, dtype=torch.float32)
    weights = weights / weights.mean()
    loss_fn = nn.CrossEntropyLoss(weight=weights.to(device), label_smoothing=0.02)
    xt, yt, kt = (torch.from_numpy(a).to(device) for a in (x, y, kind))
    nb = max(1, len(x) // cfg.batch)
    resumed = ckpt.load(checkpoint, asdict(cfg), progress)
    epochs = cfg.epochs
    timing = None
    if resumed is not None:
        epochs, timing = resumed["epochs"], resumed["timing"]
    elif cfg.seconds > 0:
        timing = _time_epoch(cfg, model, loss_fn, xt, yt, kt, (vx, vy, vkind), nb)
        epochs = max(1, min(cfg.epochs, int(cfg.seconds / timing["epoch_seconds"])))
        if progress:
            print(f"{timing['epoch_seconds']:.1f} s an epoch: {epochs} epochs in "
                  f"{cfg.seconds:.0f} s", file=sys.stderr)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=1e-4)
    steps = epochs * nb
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, cfg.lr, total_steps=steps + 1)
    g = torch.Generator(device).manual_seed(cfg.seed)
    history: list[dict] = []
    first = 0
    train_before = 0.0          # seconds of training in the runs before a resumption
    if resumed is not None:
        history = ckpt.restore(resumed, model, opt, sched, g)
        first = len(history)
        train_before = resumed["train_seconds"]
        if progress:
            print(f"resuming after epoch {first} of {epochs} ({checkpoint})", file=sys.stderr)
    # a time budget that had ended the training before the export: nothing more to run
    last = first if resumed is not None and resumed["stopped"] else epochs
    t_train = time.perf_counter()
    for epoch in range(first, last):
        t_epoch = time.perf_counter()
        model.train()
        if cfg.init:
            freeze_batchnorm(model)
        perm = torch.randperm(len(x), generator=g, device=device)
        it = tqdm(range(nb), desc=f"epoch {epoch + 1}/{epochs}", file=sys.stderr,
                  disable=not progress, leave=False)
        losses = []
        for b in it:
            loss = _step(model, loss_fn, opt, xt, yt, kt, perm[b * cfg.batch:(b + 1) * cfg.batch],
                         g, cfg.degrade)
            sched.step()
            losses.append(loss.detach())
        total = float(torch.stack(losses).double().sum())
        val = evaluate(model, vx, vy, vkind)
        history.append({"epoch": epoch + 1, "loss": round(total / nb, 4),
                        "val_accuracy": round(val["accuracy"], 5)})
        if progress:
            print(f"epoch {epoch + 1}: loss {total / nb:.4f} val acc {val['accuracy']:.5f}",
                  file=sys.stderr)
        spent = train_before + time.perf_counter() - t_train
        over = cfg.seconds > 0 and spent > OVERRUN * cfg.seconds
        if checkpoint is not None:
            ckpt.save(checkpoint, {
                "config": asdict(cfg), "epochs": epochs, "timing": timing, "history": history,
                "model": model.state_dict(), "optimiser": opt.state_dict(),
                "scheduler": sched.state_dict(), "generator": g.get_state(),
                "torch_rng": ckpt.rng_state(), "train_seconds": spent, "stopped": over})
        if on_epoch:
            on_epoch(history[-1], epochs, time.perf_counter() - t_epoch)
        if stop_after is not None and epoch + 1 >= stop_after and epoch + 1 < epochs:
            raise ckpt.Interrupted(f"stopped after epoch {epoch + 1} of {epochs}")
        if over:
            break   # the timing misjudged: export what there is (the card says so)
    model = model.cpu()
    out.parent.mkdir(parents=True, exist_ok=True)
    export_onnx(model, out)
    val = evaluate(model, vx, vy, vkind)
    card = {
        "name": "zatre-pips",
        "classes": list(CLASSES),
        "input_size": CROP,
        "input": {"layout": "N x 1 x 24 x 24, float32", "channels": "grey",
                  "normalisation": "rectified board divided by its 98th percentile "
                                   "(bright level = 1.0), see zatre_vision/vision/reading/cells.py",
                  "pixels_per_cell": PPC, "crop_cells": CROP / PPC, "board_margin": MARGIN,
                  **({"kind": "N x 1, float32: 1.0 for a light x2 cell, else 0.0"}
                     if cfg.cell_kind else {})},
        "output": "logits, softmax gives class probabilities",
        "outputs": CARD_OUTPUTS,
        "parameters": parameter_count(model),
        "architecture": architecture(cfg.width, cfg.cell_kind),
        "training": {"config": asdict(cfg), "data_seed": cfg.seed, "validation_seed": VAL_SEED,
                     "synth_config": f"world {cfg.world!r} (worlds.world_config), "
                                     f"{cfg.textures} boards in prints {list(cfg.prints)}, "
                                     f"tiles of other makers on {cfg.makers:.0%} of photos",
                     **({"fine_tuned_from": cfg.init} if cfg.init else {}),
                     "photo_sizes": [list(s) for s in SIZES], "size_weights": list(SIZE_WEIGHTS),
                     "crops": int(len(y)), "class_counts": counts.astype(int).tolist(),
                     "jitter_cells": spec.jitter_cells, "keep_empty": spec.keep_empty,
                     "data_seconds": round(t_data, 1),
                     "data_from_cache": not rendered,
                     **({"resumed_after_epoch": first} if first else {}),
                     "total_seconds": round(time.perf_counter() - t0, 1),
                     "torch": torch.__version__, "device": _device_name(device),
                     **({"time_budget": {**timing, "epochs_planned": epochs,
                                         "epochs_run": len(history),
                                         "train_seconds": round(train_before
                                                                + time.perf_counter()
                                                                - t_train, 1)}}
                        if timing else {}),
                     "history": history},
        "metrics": {"validation_crops": val},
    }
    card_path = out.with_suffix(out.suffix + ".json")
    old = {}
    if card_path.exists():
        try:
            old = json.loads(card_path.read_text())
        except ValueError:
            old = {}
    if "benchmark" in old.get("metrics", {}):
        card["metrics"]["benchmark_previous_model"] = old["metrics"]["benchmark"]
    for key in KEPT_CARD_KEYS:
        if key in old:
            card[key] = old[key]
    card_path.write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    return card
