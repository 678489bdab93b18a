"""No import cycle anywhere in zatre_vision, and no import up a floor.

The graph is read from the source (``ast``), one node per module, an edge for every
import of a zatre_vision module, the ones inside functions included (an import put off
into a function still ties the two modules together). A submodule's implicit import of
its own package is not an edge. Any strongly connected group of two or more modules
is a cycle and fails the test, named module by module.

The folders (top-level packages and modules of zatre_vision) stand on floors,
``FLOORS``, bottom first: a module imports from its own floor and the floors below,
never from one above; folders on one floor import each other one way only (the graph
between folders has no cycle). ARCHITECTURE.md's table of floors is this list."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from zatre_vision.bench.measures import imports_of, module_files

PACKAGE = Path(__file__).resolve().parents[1] / "zatre_vision"


#: the floors, bottom first: (name, the folders on it). A folder is a top-level package
#: or module of zatre_vision ("" is the package's own ``__init__``). A new folder must be
#: put on a floor here (and in ARCHITECTURE.md's table), or the test fails.
FLOORS: tuple[tuple[str, frozenset[str]], ...] = (
    ("foundation", frozenset({"", "errors", "bounded_io", "json_files", "config",
                              "board_prints", "sd_notify", "port_holder", "import_check",
                              "settings"})),
    ("game", frozenset({"rules", "cards", "match", "simulate", "variants", "pairings",
                        "store", "table", "demo", "gpio"})),
    ("vision", frozenset({"vision"})),
    ("synth", frozenset({"synth"})),
    ("camera", frozenset({"camera"})),
    ("calibrate", frozenset({"calibrate"})),
    ("tracking", frozenset({"tracking"})),
    ("services", frozenset({"services"})),
    ("apps", frozenset({"apps", "cli", "__main__", "bench", "server", "training", "doctor",
                        "terminal_demo"})),
)


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (the reading the benchmarks' result
    files use for what they measure, ``bench.measures``)."""
    modules = module_files(root)
    return {name: imports_of(name, modules) for name in modules}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of two or more modules (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_zatre_vision_has_no_import_cycle():
    graph = import_graph(PACKAGE)
    assert len(graph) > 100 and sum(map(len, graph.values())) > 300  # the real package
    found = cycles(graph)
    assert not found, "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def test_the_seams_are_where_the_map_says():
    graph = import_graph(PACKAGE)
    board = {m for m in graph if m.startswith("zatre_vision.rules")}
    assert not {t for m in board for t in graph[m] if t.startswith("zatre_vision.cards")}
    assert {"zatre_vision.rules.record", "zatre_vision.cards.record"} <= graph[
        "zatre_vision.variants"]
    # the dashboard never reaches into vision: it reads calibration files through
    # calibrate/ and learns tiles through the app's service (services/tile_learning.py)
    into_vision = sorted(f"{m} -> {t}" for m in graph if m.startswith("zatre_vision.server")
                         for t in graph[m] if t.startswith("zatre_vision.vision"))
    assert not into_vision, "the dashboard reaches into vision: " + "; ".join(into_vision)
    assert "zatre_vision.services.tile_learning" in graph["zatre_vision.server"]


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "pkg"


@pytest.mark.parametrize("files, expected", [
    ({"pkg/__init__.py": "", "pkg/a.py": "from . import b\n", "pkg/b.py": "from .a import x\n"},
     [["pkg.a", "pkg.b"]]),
    # put off into a function, and through a package's __init__
    ({"pkg/__init__.py": "def f():\n    from .sub import c\n",
      "pkg/sub/__init__.py": "", "pkg/sub/c.py": "import pkg\n"},
     [["pkg", "pkg.sub.c"]]),
    ({"pkg/__init__.py": "", "pkg/a.py": "from .b import y\n", "pkg/b.py": "from .c import z\n",
      "pkg/c.py": "from ..pkg import a\n"}, [["pkg.a", "pkg.b", "pkg.c"]]),
    # a submodule under its own package, imports of other packages: no cycle
    ({"pkg/__init__.py": "from .a import x\n", "pkg/a.py": "import json\nfrom .b import y\n",
      "pkg/b.py": "x = 1\n"}, []),
])
def test_the_check_finds_a_cycle(tmp_path, files, expected):
    assert cycles(import_graph(_write(tmp_path, files))) == expected


def boundary_violations(graph: dict[str, set[str]], vision: str) -> list[str]:
    """Imports that cross the seam between board location and cell reading: a module
    outside ``<vision>.location`` importing one of its inner modules (only the package,
    its entry point, is public), and a location module importing cell reading or the
    module that joins the two (``reader``; the bench and the commands that join them too
    stand on the apps floor, out of reach by the floors)."""
    location, reading = f"{vision}.location", f"{vision}.reading"
    joiners = {f"{vision}.reader"}
    out = []
    for module, targets in sorted(graph.items()):
        inside = module == location or module.startswith(location + ".")
        for target in sorted(targets):
            if not inside and target.startswith(location + "."):
                out.append(f"{module} -> {target} (outside location: use the package)")
            if inside and (target == reading or target.startswith(reading + ".")
                           or target in joiners):
                out.append(f"{module} -> {target} (location must not read cells)")
    return out


#: crossings known and owed a fix, each with why it stands: the test fails once one is
#: gone (take it off the list) as well as on any other crossing
KNOWN_CROSSINGS: set[str] = set()


def test_location_and_reading_meet_only_at_the_entry_point():
    graph = import_graph(PACKAGE)
    vision = "zatre_vision.vision"
    # the real layout: both packages exist and the reader uses location's entry point
    assert f"{vision}.location.find_board" in graph and f"{vision}.reading.cells" in graph
    assert f"{vision}.location" in graph[f"{vision}.reader"]
    found = boundary_violations(graph, vision)
    unknown = [f for f in found if f not in KNOWN_CROSSINGS]
    assert not unknown, "across the location/reading seam: " + "; ".join(unknown)
    mended = KNOWN_CROSSINGS - set(found)
    assert not mended, "mended, take off KNOWN_CROSSINGS: " + "; ".join(sorted(mended))


_VISION = {"pkg/__init__.py": "", "pkg/vision/__init__.py": "",
           "pkg/vision/location/__init__.py": "from .fit import locate_board\n",
           "pkg/vision/location/fit.py": "def locate_board():\n    pass\n",
           "pkg/vision/reading/__init__.py": "", "pkg/vision/reading/cells.py": "x = 1\n",
           "pkg/vision/reader.py": "from .location import locate_board\n"}


@pytest.mark.parametrize("extra, expected", [
    ({}, []),
    ({"pkg/vision/reading/cells.py": "from ..location.fit import locate_board\n"},
     ["pkg.vision.reading.cells -> pkg.vision.location.fit (outside location: use the package)"]),
    ({"pkg/other.py": "def f():\n    from pkg.vision.location import fit\n"},
     ["pkg.other -> pkg.vision.location.fit (outside location: use the package)"]),
    ({"pkg/vision/location/fit.py": "from ..reading.cells import x\n"},
     ["pkg.vision.location.fit -> pkg.vision.reading.cells (location must not read cells)"]),
    ({"pkg/vision/location/fit.py": "from .. import reader\n"},
     ["pkg.vision.location.fit -> pkg.vision.reader (location must not read cells)"]),
])
def test_the_check_finds_a_crossing(tmp_path, extra, expected):
    root = _write(tmp_path, {**_VISION, **extra})
    assert boundary_violations(import_graph(root), "pkg.vision") == expected


def folder_of(module: str) -> str:
    """``pkg.vision.reading.cells`` -> ``vision``; ``pkg`` -> ``""``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def floor_of(folder: str, floors=FLOORS) -> int | None:
    return next((i for i, (_, folders) in enumerate(floors) if folder in folders), None)


def unplaced(graph: dict[str, set[str]], floors=FLOORS) -> list[str]:
    """Folders on no floor."""
    return sorted({folder_of(m) for m in graph if floor_of(folder_of(m), floors) is None})


def up_a_floor(graph: dict[str, set[str]], floors=FLOORS) -> list[str]:
    """Every import that runs up a floor, one line each: the edge, the floors, and
    where the importing module belongs."""
    out = []
    for module, targets in sorted(graph.items()):
        here = floor_of(folder_of(module), floors)
        for target in sorted(targets):
            there = floor_of(folder_of(target), floors)
            if here is None or there is None or there <= here:
                continue
            out.append(f"{module} -> {target} ({floors[here][0]} imports {floors[there][0]}: "
                       f"{module} belongs on the {floors[there][0]} floor or above, or what "
                       f"it takes from {target} on the {floors[here][0]} floor or below)")
    return out


def folder_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for module, targets in graph.items():
        here = folder_of(module)
        out.setdefault(here, set()).update(folder_of(t) for t in targets
                                           if folder_of(t) != here)
    return out


def folder_cycles(graph: dict[str, set[str]]) -> list[str]:
    """Folders that import each other (on one floor, as up_a_floor reports the rest),
    each cycle with the folder edges that make it, an import of each named."""
    out = []
    for group in cycles(folder_graph(graph)):
        pairs: dict[tuple[str, str], list[str]] = {}
        for m, ts in sorted(graph.items()):
            for t in sorted(ts):
                a, b = folder_of(m), folder_of(t)
                if a != b and a in group and b in group:
                    pairs.setdefault((a, b), []).append(f"{m} -> {t}")
        out.append(" <-> ".join(group) + ": " + "; ".join(
            f"{a} -> {b} ({edges[0]}" + (f", {len(edges) - 1} more" if len(edges) > 1 else "")
            + ")" for (a, b), edges in sorted(pairs.items())))
    return out


def test_no_import_runs_up_a_floor():
    graph = import_graph(PACKAGE)
    missing = unplaced(graph)
    assert not missing, ("folders on no floor: put each on one in FLOORS "
                         "(tests/test_import_graph.py) and ARCHITECTURE.md: " + ", ".join(missing))
    present = {folder_of(m) for m in graph}
    assert all(folders & present for _, folders in FLOORS)  # the real package
    found = up_a_floor(graph)
    assert not found, f"{len(found)} imports up a floor:\n" + "\n".join(found)


def test_folders_import_each_other_one_way():
    found = folder_cycles(import_graph(PACKAGE))
    assert not found, "folders that import each other:\n" + "\n".join(found)


_FLOORED = (("low", frozenset({"", "base"})), ("mid", frozenset({"a", "b"})),
            ("top", frozenset({"app"})))


@pytest.mark.parametrize("extra, expected", [
    ({}, []),
    # down a floor and across one: fine
    ({"pkg/a/x.py": "from ..base import y\nfrom ..b import z\n"}, []),
    # up a floor, put off into a function: found
    ({"pkg/a/x.py": "def f():\n    from pkg.app.run import go\n"},
     ["pkg.a.x -> pkg.app.run (mid imports top: pkg.a.x belongs on the top floor or "
      "above, or what it takes from pkg.app.run on the mid floor or below)"]),
    ({"pkg/base.py": "from .a import x\n"},
     ["pkg.base -> pkg.a.x (low imports mid: pkg.base belongs on the mid floor or above, "
      "or what it takes from pkg.a.x on the low floor or below)"]),
])
def test_the_check_finds_an_import_up_a_floor(tmp_path, extra, expected):
    files = {"pkg/__init__.py": "", "pkg/base.py": "", "pkg/a/__init__.py": "",
             "pkg/a/x.py": "", "pkg/b.py": "", "pkg/app/__init__.py": "",
             "pkg/app/run.py": "from ..a import x\n"}
    graph = import_graph(_write(tmp_path, {**files, **extra}))
    assert unplaced(graph, _FLOORED) == []
    assert up_a_floor(graph, _FLOORED) == expected


def test_the_check_finds_folders_importing_each_other_and_unplaced_ones(tmp_path):
    graph = import_graph(_write(tmp_path, {
        "pkg/__init__.py": "", "pkg/a/__init__.py": "", "pkg/a/x.py": "from ..b import y\n",
        "pkg/b.py": "def f():\n    from .a.x import z\n", "pkg/odd.py": ""}))
    assert folder_cycles(graph) == ["a <-> b: a -> b (pkg.a.x -> pkg.b); b -> a (pkg.b -> pkg.a.x)"]
    assert unplaced(graph, _FLOORED) == ["odd"]


def floors_in_the_map(text: str) -> list[tuple[str, frozenset[str]]]:
    """ARCHITECTURE.md's table of floors, bottom first: (name, the folders in its second
    column: ``x/`` and ``x.py`` are ``x``, ``__init__.py`` is the package's own)."""
    section = text.split("\n## Floors\n", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not re.fullmatch(r"\d+ \w+", cells[0]):
            continue
        # the folders are the backticked names outside parentheses
        names = re.findall(r"`([\w.]+/|[\w.]+\.py)`", re.sub(r"\([^)]*\)", "", cells[1]))
        rows.append((int(cells[0].split()[0]), cells[0].split()[1], frozenset(
            "" if n == "__init__.py" else n.removesuffix("/").removesuffix(".py")
            for n in names)))
    return [(name, folders) for _, name, folders in sorted(rows)]


def test_the_map_shows_the_floors():
    text = (PACKAGE.parent / "ARCHITECTURE.md").read_text(encoding="utf-8")
    assert floors_in_the_map(text) == list(FLOORS)
