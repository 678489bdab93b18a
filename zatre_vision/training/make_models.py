"""``make models`` (``python -m zatre_vision.training.make_models``): one unattended,
resumable run from the renderer to the models the product reads.

Steps, each recorded in ``RUN/state.json`` when it finishes (a rerun skips it):

1. ``render-pips``, 2. ``render-board``: the training data, in chunks kept under
   ``RUN/chunks`` (``chunks.py``; a rerun renders only the missing ones). Both are
   rendered before either network trains, so no rendering process is forked from a
   process that torch's threads (or a GPU) are busy in.
3. ``train-pips``, 4. ``train-board``: both networks, from scratch, with a checkpoint
   after each epoch (``RUN/checkpoints``; a rerun resumes after the last one), exported
   to ``RUN/candidates`` with their model cards. The candidate pip card starts from the
   committed card's reader thresholds, which the next step refits.
5. ``fit``: the reader's decision fitted on the new pip classifier (``fit_reader``).
6. ``gate``: the candidates against the committed models on every bench set (``zatre
   bench gate``): exit 0 with its table passes, 1 with its table is a verdict against,
   anything else an error (a crash exits 1 too, but writes no table; the step runs
   again next time).
7. ``land``: passed: the candidates and their cards replace ``models/`` and the gate's
   table is copied beside them (``models/gate.md``) and the verdict goes into both cards; rejected: they stay under ``RUN`` with
   ``REJECTED.txt`` saying why.

Exit status: 0 landed, 1 the gate said no, 2 bad input or a failed step, 3 stopped as
asked (``--stop-after-epoch``), 130 interrupted; in every case but 0 and 1, the same
command resumes. Progress lines with a time estimate go to stderr (``run_clock.py``).
Each model card records the command, commit, machine, wall time and data.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

from .run_clock import RunClock, clock
from .run_state import RunState, now_iso

STEPS = ("render-pips", "render-board", "train-pips", "train-board", "fit-locate", "fit",
         "gate", "land")
REPO = Path(__file__).resolve().parents[2]

#: the commands of the fits and the gate; {python}, {pips}, {board}, {fit_photos},
#: {locate_photos}, {run}, {gate_out} and {quick} ("--quick" or nothing) are filled in.
#: The board search's fallbacks are fitted first (on the candidate board network), then
#: the pip reader's decision with the candidate board network locating
LOCATE_COMMAND = ("{python}", "-m", "zatre_vision.training.fit_locator", "--board-model",
                  "{board}", "--photos", "{locate_photos}", "--cache", "{run}/fit-photos")
FIT_COMMAND = ("{python}", "-m", "zatre_vision.training.fit_reader", "--model", "{pips}",
               "--board-model", "{board}", "--photos", "{fit_photos}", "--photo-cache",
               "{run}/fit-photos")
#: photos per fitting set for the fallbacks' ablation (``--quick``: 10); the decision's
#: fit takes the same photos from the shared cache
LOCATE_PHOTOS, LOCATE_PHOTOS_QUICK = 120, 10
GATE_COMMAND = ("{python}", "-m", "zatre_vision", "bench", "gate", "{pips}", "--board-model",
                "{board}", "{quick}", "{outside}", "--out", "{gate_out}")
#: the outside renderer's photos, beside the checkout where a clone has them: the gate
#: reads them too ({outside}: "--folder=PATH", or nothing where they are absent)
OUTSIDE_PHOTOS = REPO.parent / "shared" / "photos" / "outside-renderer"
#: the gate's exit status for "the candidate is worse" (any other non-zero is an error)
GATE_REJECTS = 1
#: output lines of a failed command kept for the message and REJECTED.txt
TAIL_LINES = 12


def default_run_folder(env: dict | None = None) -> Path:
    """Where a run keeps its state, chunks and checkpoints unless told: outside the
    clone (``$XDG_CACHE_HOME/zatre-vision/models``, ``~/.cache`` when unset), so that a
    fresh clone, or a clone removed and made again, resumes the same run."""
    env = os.environ if env is None else env
    cache = Path(env.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "zatre-vision" / "models"


class StepFailed(Exception):
    """A step could not finish (one line); the same command runs it again."""


@dataclass(frozen=True)
class Paths:
    run: Path
    models: Path
    gate_table: Path
    #: where rendered chunks are kept (default ``run/chunks``; may be shared by runs)
    cache: Path

    @classmethod
    def under(cls, run: Path, models: Path | None = None, gate_table: Path | None = None,
              cache: Path | None = None) -> Paths:
        models = models or REPO / "models"
        return cls(run, models, gate_table or models / "gate.md",
                   cache or run / "chunks")

    @property
    def candidates(self) -> Path:
        return self.run / "candidates"

    def candidate(self, which: str) -> Path:
        return self.candidates / f"{which}.onnx"

    def checkpoint(self, which: str) -> Path:
        return self.run / "checkpoints" / f"{which}.pt"

    @property
    def gate_out(self) -> Path:
        return self.run / "gate" / "gate.md"

    @property
    def state(self) -> Path:
        return self.run / "state.json"


@dataclass(frozen=True)
class Commands:
    locate: tuple[str, ...] = LOCATE_COMMAND
    fit: tuple[str, ...] = FIT_COMMAND
    gate: tuple[str, ...] = GATE_COMMAND

    @staticmethod
    def expand(template: tuple[str, ...], values: dict[str, str]) -> list[str]:
        out = []
        for arg in template:
            for key, value in values.items():
                arg = arg.replace("{" + key + "}", value)
            if arg:
                out.append(arg)
        return out


def card_path(model: Path) -> Path:
    return model.with_suffix(model.suffix + ".json")


def _update_card(model: Path, key: str, value: dict) -> None:
    path = card_path(model)
    card = json.loads(path.read_text(encoding="utf-8"))
    card.setdefault("training", {}).setdefault(key, {}).update(value)
    path.write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")


def _copy(src: Path, dst: Path) -> None:
    """``src`` to ``dst`` through a temporary file (a reader never sees half a model)."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = dst.with_name(f".{dst.name}.{os.getpid()}.tmp")
    shutil.copyfile(src, tmp)
    os.replace(tmp, dst)


class Run:
    """One invocation: the steps not yet finished, in order."""

    def __init__(self, recipe, paths: Paths, commands: Commands, command: str,
                 stop_after_epoch: int | None = None, out=None):
        self.recipe, self.paths, self.commands = recipe, paths, commands
        self.command, self.stop_after_epoch = command, stop_after_epoch
        self.out = out if out is not None else sys.stderr
        self.t0 = time.monotonic()
        self.state: RunState | None = None
        self.clock: RunClock | None = None

    def say(self, text: str) -> None:
        print(f"make models: {text}", file=self.out, flush=True)

    def run_seconds(self) -> float:
        return time.monotonic() - self.t0

    # --- the run -------------------------------------------------------------------
    def __call__(self) -> int:
        from .checkpoint import Interrupted
        from .recipe import estimate

        self.state = RunState.open(self.paths.state, self.recipe.as_dict(), self.command,
                                   self.out)
        self.clock = RunClock(estimate(self.recipe), self.out,
                              elapsed_before=self.state.wall_seconds)
        self.say(f"run folder {self.paths.run}; estimate on this 2-core CPU "
                 f"{clock(sum(estimate(self.recipe).values()))} in all")
        try:
            for step in STEPS:
                if self.state.done(step):
                    self.clock.skip(step)
                    continue
                self.clock.begin(step)
                t = time.monotonic()
                info = getattr(self, "step_" + step.replace("-", "_"))()
                self.state.finish(step, time.monotonic() - t, info, self.run_seconds())
                self.clock.end(step, info.get("note", ""))
        except StepFailed as exc:
            self.state.save(self.run_seconds())
            self.say(f"{self.clock.step}: {exc}; run the same command again to resume")
            return 2
        except KeyboardInterrupt:
            self.state.save(self.run_seconds())
            self.say(f"interrupted in {self.clock.step}; run the same command again to resume")
            return 130
        except Interrupted as exc:
            self.state.save(self.run_seconds())
            self.say(f"{self.clock.step}: {exc} (checkpoint saved); run the same command "
                     "again to resume")
            return 3
        except Exception as exc:  # noqa: BLE001 - unattended: one line, the rest in a log
            self.state.save(self.run_seconds())
            log = self.paths.run / "logs" / "error.log"
            log.parent.mkdir(parents=True, exist_ok=True)
            log.write_text(traceback.format_exc(), encoding="utf-8")
            self.say(f"{self.clock.step}: {type(exc).__name__}: {exc} (traceback in {log}); "
                     "run the same command again to resume")
            return 2
        return self.verdict()

    def verdict(self) -> int:
        gate = self.state.info("gate")
        land = self.state.info("land")
        wall = clock(self.state.wall_seconds)
        if gate.get("verdict") == "passed":
            self.say(f"landed in {self.paths.models} (gate table {self.paths.gate_table}); "
                     f"wall time {wall} over {len(self.state.data['runs'])} run(s)")
            return 0
        self.say(f"the gate found the candidates worse; they stay in {self.paths.candidates} "
                 f"({land.get('why_file', '')}); wall time {wall}")
        return 1

    # --- the steps -----------------------------------------------------------------
    def _render(self, which: str, render_data) -> dict:
        cfg = getattr(self.recipe, which)
        total = cfg.photos + cfg.val_photos
        seen = {"done": 0, "fresh": 0}

        def loaded(photos: int) -> None:
            seen["done"] += photos

        def rendered(photos: int) -> None:
            seen["done"] += photos
            seen["fresh"] += photos
            self.clock.advance(seen["done"], total, "photos", seen["fresh"])
            self.state.save(self.run_seconds())     # the wall time, should the run be killed

        render_data(cfg, rendered, self.paths.cache, loaded)
        return {"photos": total, "rendered": seen["fresh"],
                "note": f"{seen['fresh']} photos rendered, {total - seen['fresh']} from "
                        "earlier runs"}

    def step_render_pips(self) -> dict:
        from .train import render_data

        return self._render("pips", render_data)

    def step_render_board(self) -> dict:
        from .board_train import render_data

        return self._render("board", render_data)

    def _train(self, which: str, train_fn, data: dict) -> dict:
        from .checkpoint import load

        cfg = getattr(self.recipe, which)
        out = self.paths.candidate(which)
        ckpt = self.paths.checkpoint(which)
        earlier = load(ckpt, _config(cfg), progress=False)
        first = len(earlier["history"]) if earlier else 0
        if first:
            self.say(f"train-{which}: resuming after epoch {first} ({ckpt})")
            # the epochs the checkpoint holds were not made by this run: the clock must
            # not take the step's time for the whole estimate (a step resumed after its
            # last epoch told the run of 2026-11-28 that 1 minute was left, not 40)
            self.clock.advance(first, cfg.epochs, "epochs", 0)

        def on_epoch(entry: dict, epochs: int, seconds: float) -> None:
            shown = {k: v for k, v in entry.items() if k != "epoch"}
            self.say(f"train-{which} epoch {entry['epoch']}/{epochs} in {seconds:.0f} s: "
                     + ", ".join(f"{k} {v}" for k, v in shown.items()))
            self.clock.advance(entry["epoch"], epochs, "epochs", entry["epoch"] - first)
            self.state.save(self.run_seconds())

        card = train_fn(cfg, out, progress=False, chunks=self.paths.cache, checkpoint=ckpt,
                        stop_after=self.stop_after_epoch, on_epoch=on_epoch)
        _update_card(out, "make_models", {
            "command": self.command, "commit": _commit(), "machine": _machine(cfg),
            "run_folder": str(self.paths.run), "data": data,
            "train_seconds_this_run": card["training"]["total_seconds"]})
        return {"model": str(out), "epochs": len(card["training"]["history"]),
                "resumed_after_epoch": first}

    def step_train_pips(self) -> dict:
        from .seeds import VAL_SEED
        from .train import train

        p = self.recipe.pips
        self._seed_pips_card()
        return self._train("pips", train, {
            "photos": p.photos, "validation_photos": p.val_photos, "seed": p.seed,
            "validation_seed": VAL_SEED, "makers_share": p.makers, "prints": list(p.prints),
            "world": p.world, "marble_boards": p.textures})

    def step_train_board(self) -> dict:
        from .board_train import train_board
        from .seeds import BOARD_VAL_SEED

        b = self.recipe.board
        return self._train("board", train_board, {
            "photos": b.photos, "validation_photos": b.val_photos, "seed": b.seed,
            "validation_seed": BOARD_VAL_SEED, "world": b.world,
            "prints": "every training print (calibration/prints/, held-out ones excluded)"})

    def _seed_pips_card(self) -> None:
        """The candidate's card starts with the committed model's kept keys (the reader's
        thresholds, refitted by the next step), as ``train`` keeps them from an old card."""
        from .train import KEPT_CARD_KEYS

        committed = card_path(self.paths.models / "pips.onnx")
        target = card_path(self.paths.candidate("pips"))
        if target.exists() or not committed.is_file():
            return
        old = json.loads(committed.read_text(encoding="utf-8"))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps({k: old[k] for k in KEPT_CARD_KEYS if k in old}) + "\n",
                          encoding="utf-8")

    def _values(self) -> dict[str, str]:
        return {"python": sys.executable, "pips": str(self.paths.candidate("pips")),
                "board": str(self.paths.candidate("board")),
                "fit_photos": str(self.recipe.fit_photos),
                "locate_photos": str(LOCATE_PHOTOS_QUICK if self.recipe.gate_quick
                                     else LOCATE_PHOTOS),
                "run": str(self.paths.run),
                "gate_out": str(self.paths.gate_out),
                "quick": "--quick" if self.recipe.gate_quick else "",
                "outside": (f"--folder={OUTSIDE_PHOTOS}" if OUTSIDE_PHOTOS.is_dir()
                            and any(OUTSIDE_PHOTOS.rglob("truth.json")) else "")}

    def _command(self, name: str, template: tuple[str, ...]) -> tuple[int, list[str], str]:
        """Run a step's command, its output echoed and logged; (status, tail, command)."""
        cmd = Commands.expand(template, self._values())
        shown = " ".join(shlex.quote(a) for a in cmd)
        self.say(f"{name}: {shown}")
        log = self.paths.run / "logs" / f"{name}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        tail: list[str] = []
        try:
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    text=True, errors="replace")
        except OSError as exc:
            raise StepFailed(f"{shown}: {exc}") from None
        with log.open("w", encoding="utf-8") as f:
            for line in proc.stdout:
                f.write(line)
                print(f"  {name} | {line.rstrip()}", file=self.out, flush=True)
                tail = (tail + [line.rstrip()])[-TAIL_LINES:]
        return proc.wait(), tail, shown

    def _fit_step(self, name: str, template: tuple[str, ...]) -> dict:
        """A fit's command, which writes its entry into a candidate's card."""
        rc, tail, shown = self._command(name, template)
        if rc != 0:
            raise StepFailed(f"{shown} exited {rc}: {tail[-1] if tail else 'no output'}")
        return {"command": shown}

    def step_fit_locate(self) -> dict:
        return self._fit_step("fit-locate", self.commands.locate)

    def step_fit(self) -> dict:
        return self._fit_step("fit", self.commands.fit)

    def step_gate(self) -> dict:
        out = self.paths.gate_out
        if out.exists():
            out.unlink()            # a table left by an earlier, failed gate is not this one
        out.parent.mkdir(parents=True, exist_ok=True)
        rc, tail, shown = self._command("gate", self.commands.gate)
        if rc == 0:
            if not out.is_file():
                raise StepFailed(f"{shown} passed but wrote no table at {out}")
            return {"command": shown, "verdict": "passed", "note": "passed"}
        if rc == GATE_REJECTS and out.is_file():    # a verdict, not a crash: it has a table
            return {"command": shown, "verdict": "rejected", "why": tail,
                    "note": "the candidate is worse on some set"}
        raise StepFailed(f"{shown} exited {rc}: {tail[-1] if tail else 'no output'}")

    def step_land(self) -> dict:
        wall = {"wall_seconds": round(self.state.wall_seconds + self.run_seconds()
                                      - self.state.data["runs"][-1].get("seconds", 0.0), 1),
                "runs": len(self.state.data["runs"]), "started": self.state.data["started"],
                "finished": now_iso(),
                "step_seconds": {s: i.get("seconds") for s, i in self.state.data["steps"].items()},
                # the gate's verdict against the models in place when it ran
                "gate": {"verdict": self.state.info("gate").get("verdict"),
                         "against": str(self.paths.models),
                         "why": self.state.info("gate").get("why", []),
                         "table": str(self.paths.gate_out)}}
        for which in ("pips", "board"):
            _update_card(self.paths.candidate(which), "make_models", wall)
        if self.state.info("gate").get("verdict") != "passed":
            why = self.paths.run / "REJECTED.txt"
            why.write_text("The gate found the candidates worse than the committed models; "
                           "they were not copied into models/.\n\n"
                           + "\n".join(self.state.info("gate").get("why", [])) + "\n"
                           + (f"\nThe gate's table: {self.paths.gate_out}\n"
                              if self.paths.gate_out.exists() else ""), encoding="utf-8")
            return {"landed": [], "why_file": str(why), "note": f"rejected: see {why}"}
        from ..bench.gate import install

        landed = [str(p) for p in install(self.paths.candidate("pips"),
                                          self.paths.candidate("board"), self.paths.models)]
        _copy(self.paths.gate_out, self.paths.gate_table)
        return {"landed": landed, "gate_table": str(self.paths.gate_table),
                "note": f"{len(landed)} files into {self.paths.models}"}


def _config(cfg) -> dict:
    from dataclasses import asdict

    return asdict(cfg)


def _commit() -> str:
    from ..bench.results import current_commit

    return current_commit(REPO)


def _machine(cfg) -> dict:
    import platform

    import torch

    from ..bench.results import machine

    out = {**machine(), "node": platform.node(), "torch": torch.__version__,
           "device": cfg.device}
    if cfg.device == "cuda" and torch.cuda.is_available():
        out["gpu"] = torch.cuda.get_device_name(0)
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                out["cpu"] = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return out


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog="python -m zatre_vision.training.make_models",
        description="Render, train both networks, fit the decision, gate, land: one "
                    "unattended run; the same command resumes it.")
    ap.add_argument("--run", type=Path, default=None,
                    help="run folder: state, chunks, checkpoints, candidates, logs "
                         "(default outside the clone: $XDG_CACHE_HOME/zatre-vision/models, "
                         "~/.cache when unset; build/models-quick with --quick)")
    ap.add_argument("--models", type=Path, default=None,
                    help="where a model that passes the gate lands (default the "
                         "repository's models/; with --quick, RUN/landed)")
    ap.add_argument("--gate-table", type=Path, default=None,
                    help="where the gate's table is copied when it passes (default "
                         "gate.md beside the landed models; with --quick, "
                         "RUN/landed/gate.md)")
    ap.add_argument("--cache", type=Path, default=None,
                    help="rendered chunks (default RUN/chunks; several runs may share one)")
    ap.add_argument("--quick", action="store_true",
                    help="a few photos, two epochs, the gate's --quick (tests)")
    ap.add_argument("--gpu", action="store_true",
                    help="the same recipe where a GPU is lent: 16 rendering processes, "
                         "cuda (as --device cuda --workers 16 --threads 0)")
    ap.add_argument("--device", choices=("cpu", "cuda"), default=None)
    ap.add_argument("--workers", type=int, default=None, help="rendering processes (1-64)")
    ap.add_argument("--threads", type=int, default=None,
                    help="torch's threads while training (default 1 on the CPU; 0: as many "
                         "as --workers)")
    ap.add_argument("--photos", type=int, default=None, help="pip classifier training photos")
    ap.add_argument("--epochs", type=int, default=None, help="pip classifier epochs")
    ap.add_argument("--world", default=None,
                    help="the renderer's ranges for both networks' photos (a SynthConfig "
                         "factory; by default the pip network's is 'default', "
                         "SynthConfig(), and the board network's real_room)")
    ap.add_argument("--locate-command", default=None,
                    help="instead of fit_locator (placeholders {python} {board} "
                         "{locate_photos} {run})")
    ap.add_argument("--fit-command", default=None,
                    help="instead of fit_reader (placeholders {python} {pips} {fit_photos})")
    ap.add_argument("--gate-command", default=None,
                    help="instead of zatre bench gate (placeholders {python} {pips} {board} "
                         "{quick} {outside} {gate_out}; exit 0 pass, 1 worse)")
    ap.add_argument("--stop-after-epoch", type=int, default=None,
                    help="stop each training after this epoch, its checkpoint saved (tests "
                         "of the resumption)")
    ap.add_argument("--estimate", action="store_true",
                    help="print the recipe and its time estimate on this CPU, and stop")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    try:
        from .recipe import DEFAULT, GPU, QUICK_RECIPE, estimate
    except ImportError as exc:
        print(f"make models: training needs the optional extra: pip install "
              f"'zatre-vision[train]' ({exc.name} is missing)", file=sys.stderr)
        return 2
    recipe = QUICK_RECIPE if a.quick else GPU if a.gpu else DEFAULT
    try:
        recipe = recipe.with_changes(photos=a.photos, epochs=a.epochs, workers=a.workers,
                                     device=a.device, world=a.world,
                                     threads=a.threads).check()
    except ValueError as exc:
        print(f"make models: {exc}", file=sys.stderr)
        return 2
    if a.estimate:
        est = estimate(recipe)
        print(json.dumps({"recipe": recipe.as_dict(), "estimate_seconds":
                          {k: round(v) for k, v in est.items()},
                          "total": clock(sum(est.values()))}, indent=1))
        return 0
    if recipe.pips.device == "cuda":
        import torch

        if not torch.cuda.is_available():
            print(f"make models: --device cuda: no GPU that torch {torch.__version__} can use",
                  file=sys.stderr)
            return 2
    folder = a.run or (REPO / "build" / "models-quick" if a.quick else default_run_folder())
    paths = Paths.under(folder, a.models or (folder / "landed" if a.quick else None),
                        a.gate_table or (folder / "landed" / "gate.md" if a.quick else None),
                        a.cache)
    commands = Commands(
        locate=(tuple(shlex.split(a.locate_command)) if a.locate_command
                else LOCATE_COMMAND),
        fit=tuple(shlex.split(a.fit_command)) if a.fit_command else FIT_COMMAND,
        gate=tuple(shlex.split(a.gate_command)) if a.gate_command else GATE_COMMAND)
    command = "python -m zatre_vision.training.make_models " + " ".join(
        shlex.quote(x) for x in (sys.argv[1:] if argv is None else argv))
    run = Run(recipe, paths, commands, command.strip(), a.stop_after_epoch)
    try:                    # SIGTERM: saved and resumable, as on Ctrl-C
        previous = signal.signal(signal.SIGTERM, _terminated)
    except ValueError:      # not the main thread: no handler of ours
        return run()
    try:
        return run()
    finally:
        signal.signal(signal.SIGTERM, previous)


def _terminated(signum, frame) -> None:
    raise KeyboardInterrupt


if __name__ == "__main__":
    sys.exit(main())
