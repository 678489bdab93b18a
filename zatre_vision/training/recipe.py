"""The recipe of ``make models``: what both networks learn from, how long, and what it
should take on the shared 2-core CPU.

The pip classifier's recipe is the one that made the landed network, the GPU candidate
of session 31 (``benchmarks/trials/gpu-retrain.md``): 8,550 photos at the training
ranges (``SynthConfig()``, world "default"), other makers' tiles on half of them, the
training prints with Peri on half, 16 marble boards, batch 1024, peak lr 0.005, 26
epochs, from scratch. The same recipe with 4,500 photos in the real-room world (the
session-33 CPU trial) read other makers' tiles and real rooms far worse, so the
real-room world stays out of the pip classifier's recipe until a gate shows it helps.
The board finder's recipe is the 28-epoch candidate's (4,000 photos, **28 epochs**, in
the real-room world, ``SynthConfig.real_room()``: other makers' tiles on half the
photos, hands, the grid at the frame's edge, lens distortion of either sign, glare,
casts, dim light), with half its boards drawn from the print world
(``synth.print_world``: a new print for every board) and half on the training prints
(issue 61: five prints are too small a world for a sixth). The landed board network
was made by this recipe (session 37, ``benchmarks/trials/board_world28_train.py``) and
landed through the gate (``models/gate.md``); the 28-epoch candidate on the training
prints alone had failed it (``benchmarks/trials/gate-pair-gpu-pips-wide28-board.md``).
``world`` names the renderer's ranges (``worlds.py``);
a checkout without a world refuses it in one line before anything runs, and
``--world`` sets both networks' world alike.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

from ..synth.board_art import BOARD_PRINTS as PROFILE_PRINTS
from ..synth.print_world import WORLD
from .board_train import BOARD_QUICK, BoardTrainConfig
from .train import QUICK, TrainConfig
from .worlds import check_world

#: board prints of the pip classifier's photos: Peri on half (board variant k shows
#: ``prints[k % len(prints)]``), the other training prints on the rest
TRAINING_PRINTS = ("peri", "plain-black", "peri", "marble-grey", "peri", "navy", "peri",
                   "brown-marble")
#: the pip classifier's world: the training ranges, as the landed network's
PIPS_WORLD = "default"
#: the board finder's world: the widened one (``SynthConfig.real_room()``)
BOARD_WORLD = "real_room"
#: the board finder's prints: a print of the print world on every other board, the
#: training prints on the rest (never a held-out one)
BOARD_PRINTS = ("peri", WORLD, "plain-black", WORLD, "marble-grey", WORLD, "navy", WORLD,
                "brown-marble", WORLD)

#: Seconds a step takes here, measured:
#: pip photos: 0.55 s a photo a core at the recipe's world with other makers' tiles
#: (gpu-retrain.md: 8,670 photos by 16 processes, cores no faster than this machine's;
#: the first committed card's 0.78 s was on a loaded machine);
#: pip training: the first committed card, (1,323.0 - 634.7) s for 24 epochs of 147,094
#: crops (98.06 a photo) -> 1.95e-4 s a crop an epoch (validation and export included);
#: board photos: 0.055 s a photo a core; board training: 80 s an epoch of 4,000 photos on
#: one thread (session 34, an idle machine, the real-room world).
PIPS_PHOTO_CORE_S = 0.55
PIPS_CROPS_PER_PHOTO = 147094 / 1500
PIPS_CROP_EPOCH_S = (1323.0 - 634.7) / (24 * 147094)
BOARD_PHOTO_CORE_S = 0.055
BOARD_PHOTO_EPOCH_S = 80.0 / 4000
#: the decision's fit: 1.5 min for 120 photos a set (session 34, idle); the gate: 240
#: photos in each held-out set since issue 60 (measured in session 35: see
#: docs/vision-training.md); what the estimate keeps for them
FIT_S, FIT_S_PHOTOS = 90.0, 120
GATE_S = 1200.0
#: the fallbacks' ablation (``fit_locator``, 120 photos a set, rendered here and shared
#: with the decision's fit): 200 photos a set took 644 s for rendering and its seven
#: arms, on 2026-11-28 with training beside it; the later arms about 0.13 s a photo
FIT_LOCATE_S = 450.0
#: what ``make models`` may take here, all steps together (issue 60: up to 3 hours on
#: 2 cores)
BUDGET_S = 3 * 3600.0


@dataclass(frozen=True)
class Recipe:
    pips: TrainConfig
    board: BoardTrainConfig
    #: photos the decision is fitted on (``fit_reader --photos``)
    fit_photos: int = 120
    #: the gate's short form (``zatre bench gate --quick``)
    gate_quick: bool = False

    def check(self) -> Recipe:
        """This recipe, or ``ValueError`` with one line on a value out of bounds."""
        p, b = self.pips, self.board
        if not (1 <= p.photos <= 100_000 and 1 <= p.val_photos <= 10_000):
            raise ValueError(f"pips photos {p.photos} / {p.val_photos}: 1..100000 / 1..10000")
        if not (1 <= b.photos <= 100_000 and 1 <= b.val_photos <= 10_000):
            raise ValueError(f"board photos {b.photos} / {b.val_photos}: 1..100000 / 1..10000")
        if not (1 <= p.epochs <= 200 and 1 <= b.epochs <= 200):
            raise ValueError(f"epochs {p.epochs} / {b.epochs}: 1..200")
        if not 0.0 <= p.makers <= 1.0:
            raise ValueError(f"makers share {p.makers}: 0..1")
        unknown = [n for n in p.prints if n != "peri" and n not in PROFILE_PRINTS]
        if not p.prints or unknown:
            raise ValueError(f"prints {unknown or list(p.prints)}: not training prints "
                             f"(peri, {', '.join(PROFILE_PRINTS)})")
        if not 1 <= self.fit_photos <= 10_000:
            raise ValueError(f"fit photos {self.fit_photos}: 1..10000")
        if not (1 <= p.workers <= 64 and 1 <= b.workers <= 64):
            raise ValueError(f"workers {p.workers} / {b.workers}: 1..64")
        if not (0 <= p.threads <= 64 and 0 <= b.threads <= 64):
            raise ValueError(f"threads {p.threads} / {b.threads}: 0..64 (0: as many as workers)")
        if p.device != b.device or p.device not in ("cpu", "cuda"):
            raise ValueError(f"device {p.device!r} / {b.device!r}: cpu or cuda, both alike")
        check_world(p.world)
        check_world(b.world)
        return self

    def with_changes(self, *, photos: int | None = None, epochs: int | None = None,
                     workers: int | None = None, device: str | None = None,
                     world: str | None = None, threads: int | None = None) -> Recipe:
        """The recipe with the command line's changes (pip classifier's photos and
        epochs; both networks' world, rendering processes, training threads and device)."""
        pips = {k: v for k, v in (("photos", photos), ("epochs", epochs)) if v is not None}
        both = {k: v for k, v in (("workers", workers), ("device", device),
                                  ("threads", threads), ("world", world)) if v is not None}
        return replace(self, pips=replace(self.pips, **pips, **both),
                       board=replace(self.board, **both))

    def as_dict(self) -> dict:
        return asdict(self)


#: the default: the landed networks' recipe, within the 3-hour budget on this 2-core CPU
#: (``estimate``). Two processes render; torch trains on one thread: on this machine
#: shared by others (load average 7-9, 2026-11-27), 6,366 crops trained 6-10 s an epoch
#: on 1 thread and 35-66 s on 2 (batch 64).
DEFAULT = Recipe(
    pips=TrainConfig(photos=8550, val_photos=120, epochs=26, batch=1024, lr=0.005,
                     textures=16, makers=0.5, prints=TRAINING_PRINTS, workers=2,
                     world=PIPS_WORLD, threads=1),
    board=BoardTrainConfig(epochs=28, threads=1, world=BOARD_WORLD, prints=BOARD_PRINTS))

#: the same recipe where a GPU is lent (16 cores render, the networks train on the GPU,
#: torch may use every core)
GPU = DEFAULT.with_changes(workers=16, device="cuda", threads=0)

#: a few photos, two epochs each: the whole run in well under a minute (tests)
QUICK_RECIPE = Recipe(
    pips=replace(QUICK, photos=4, val_photos=2, epochs=2, batch=64, makers=0.5,
                 prints=TRAINING_PRINTS, textures=2),
    board=replace(BOARD_QUICK, photos=4, val_photos=2, epochs=2, batch=2),
    fit_photos=2, gate_quick=True)


def estimate(recipe: Recipe) -> dict[str, float]:
    """Seconds each step should take on this 2-core CPU (``make_models.STEPS``)."""
    p, b = recipe.pips, recipe.board
    crops = p.photos * PIPS_CROPS_PER_PHOTO
    return {
        "render-pips": (p.photos + p.val_photos) * PIPS_PHOTO_CORE_S / max(1, p.workers),
        "render-board": (b.photos + b.val_photos) * BOARD_PHOTO_CORE_S / max(1, b.workers),
        "train-pips": p.epochs * crops * PIPS_CROP_EPOCH_S,
        "train-board": b.epochs * b.photos * BOARD_PHOTO_EPOCH_S,
        "fit-locate": FIT_LOCATE_S / (20 if recipe.gate_quick else 1),
        "fit": FIT_S * recipe.fit_photos / FIT_S_PHOTOS,
        "gate": GATE_S / (4 if recipe.gate_quick else 1),
        "land": 1.0,
    }
