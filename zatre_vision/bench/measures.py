"""What a result file measures: the repository paths whose change makes its figures stale.

Computed when the file is written, from the source (``ast``): the modules the bench's
entry modules import, directly or inside functions, followed through the package. A
module of a subpackage stands for the whole subpackage (``zatre_vision/vision``), so
that moving modules inside one changes nothing; the benches' own modules and the
top-level modules stand for their file only. A model (``models/NAME.onnx`` and its
card ``NAME.onnx.json``) is measured when a module reached names ``NAME.onnx`` in its
source; the server package brings ``web/``, which it serves.

``tests/bench/test_result_freshness.py`` fails when a commit after the one a committed
result file names touches one of these paths."""

from __future__ import annotations

import ast
import shlex
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]

#: ``zatre bench NAME`` -> the modules its figures come from. A bench that starts the
#: ``zatre`` command in a child process names the module that child runs, since
#: ``zatre_vision.cli`` loads its commands by name, out of reach of ``ast``; one that is
#: handed its reader by the command names the module that makes it (``apps.vision_cli``).
BENCH_ENTRIES: dict[str, tuple[str, ...]] = {
    "rules": ("zatre_vision.bench.rules_bench",),
    "analyse": ("zatre_vision.bench.analysis_bench",),
    "startup": ("zatre_vision.bench.startup", "zatre_vision.cli"),
    "bad-input": ("zatre_vision.bench.bad_input",),
    "camera": ("zatre_vision.bench.camera_pacing",),
    "synth": ("zatre_vision.bench.synth_bench",),
    "sse": ("zatre_vision.bench.sse_bench", "zatre_vision.server.__main__"),
    "load": ("zatre_vision.bench.load_bench", "zatre_vision.server.cli"),
    "serve": ("zatre_vision.bench.serve_bench", "zatre_vision.server.cli"),
    "pin-flood": ("zatre_vision.bench.pin_flood_bench", "zatre_vision.server.cli",
                  "zatre_vision.server.pin_cli"),
    "slow-clients": ("zatre_vision.bench.slow_clients_bench", "zatre_vision.server.cli"),
    "backup-access": ("zatre_vision.bench.backup_access_bench", "zatre_vision.server.cli",
                      "zatre_vision.server.pin_cli", "zatre_vision.apps.backup_cli"),
    "camera-hang": ("zatre_vision.bench.camera_hang_bench", "zatre_vision.server.cli",
                    "zatre_vision.tracking.sources"),
    "adapt": ("zatre_vision.bench.adapt_bench", "zatre_vision.apps.vision_cli"),
    "vision": ("zatre_vision.bench.vision_bench",),
    "gate": ("zatre_vision.bench.gate",),
    "tracking": ("zatre_vision.bench.tracking_bench", "zatre_vision.tracking.live_reader",
                 "zatre_vision.apps.vision_cli"),
}

#: packages (as paths) whose use brings in files outside the package
EXTRA_FILES = {"zatre_vision/server": ("web",)}
MODELS = "models"

#: the modules that write the provenance itself: they change no figure
NOT_MEASURED = ("zatre_vision.bench.results", "zatre_vision.bench.measures")

#: packages whose modules each stand for their own file (the benchmarks, and the
#: commands of the apps floor: one command's change leaves the others' figures alone)
FILE_GRANULAR = ("zatre_vision/bench", "zatre_vision/apps")


def module_files(root: Path = PACKAGE) -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (file, is a package's ``__init__``)."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_pkg else parts)] = (path, is_pkg)
    return out


def _known(name: str, modules: dict) -> str | None:
    while name not in modules and "." in name:
        name = name.rsplit(".", 1)[0]
    return name if name in modules else None


def imports_of(name: str, modules: dict[str, tuple[Path, bool]]) -> set[str]:
    """The package's modules that module ``name`` imports, anywhere in its source."""
    path, is_pkg = modules[name]
    top = name.split(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names if a.name.split(".")[0] == top]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_pkg else name.split(".")[:-1]
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            elif node.module and node.module.split(".")[0] == top:
                target = node.module
            else:
                continue
            targets = [f"{target}.{a.name}" if f"{target}.{a.name}" in modules else target
                       for a in node.names]
        else:
            continue
        found.update(t for t in (_known(t, modules) for t in targets) if t)
    found.discard(name)
    return found


def closure(entries: tuple[str, ...], root: Path = PACKAGE) -> set[str]:
    """``entries`` and every module of the package they import, transitively."""
    modules = module_files(root)
    seen: set[str] = set()
    todo = [e for e in entries if e in modules]
    while todo:
        name = todo.pop()
        if name not in seen and name not in NOT_MEASURED:
            seen.add(name)
            todo.extend(imports_of(name, modules) - seen)
    return seen


def _path_of(module: str, modules: dict[str, tuple[Path, bool]], root: Path) -> str:
    path, _ = modules[module]
    rel = path.relative_to(root.parent)
    if len(rel.parts) <= 2:                        # a top-level module (or the package)
        return rel.as_posix()
    package = "/".join(rel.parts[:2])
    return rel.as_posix() if package in FILE_GRANULAR else package


def measured_paths(entries: tuple[str, ...], root: Path = PACKAGE) -> list[str]:
    """The repository paths that the modules ``entries`` depend on, sorted."""
    modules = module_files(root)
    reached = closure(entries, root)
    paths = {_path_of(m, modules, root) for m in reached}
    repo = root.parent
    sources = "\n".join(modules[m][0].read_text(encoding="utf-8") for m in reached)
    for model in sorted((repo / MODELS).glob("*.onnx")):
        if model.name in sources:
            paths.update(p.relative_to(repo).as_posix() for p in (
                model, model.with_name(model.name + ".json")) if p.exists())
    for package, patterns in EXTRA_FILES.items():
        if package in paths:
            for pattern in patterns:
                paths.update(p.relative_to(repo).as_posix() for p in sorted(repo.glob(pattern)))
    return sorted(paths)


def entries_of(command: str) -> tuple[str, ...]:
    """The entry modules of a result file's command: ``zatre bench NAME ...`` or
    ``python -m MODULE ...``; none for anything else."""
    try:
        words = shlex.split(command)
    except ValueError:
        return ()
    if len(words) >= 3 and words[0] == "zatre" and words[1] == "bench":
        return BENCH_ENTRIES.get(words[2], ())
    if len(words) >= 3 and words[1] == "-m" and words[2].startswith(PACKAGE.name + "."):
        return (words[2],)
    return ()


def measures_of(command: str, root: Path = PACKAGE) -> list[str]:
    """What the result file made by ``command`` measures (empty when unknown)."""
    entries = entries_of(command)
    return measured_paths(entries, root) if entries else []


__all__ = ["BENCH_ENTRIES", "closure", "entries_of", "measured_paths", "measures_of"]
