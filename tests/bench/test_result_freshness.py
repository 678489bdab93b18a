"""Every committed result file under ``benchmarks/results/`` is as new as the code it
measures, and ``make bench`` writes exactly those files.

A file fails when it lacks one of its provenance fields (commit, date, machine,
command, measures), when its commit is not a clean commit of this history (``+changes``
or unknown to git), or when a commit after it touched a path it measures (of a model
card, anything but its ``training`` section, which records how the model was made). The message
names the file, the commits and the ``make`` target that regenerates it. Without git
history (no ``.git``, or a shallow clone without the recorded commit) it skips.
``benchmarks/trials/`` holds one-off trials, not regenerated: they are not checked."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from zatre_vision.bench.measures import BENCH_ENTRIES, entries_of, module_files
from zatre_vision.bench.results import PROVENANCE

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "benchmarks" / "results"
MAKEFILE = REPO / "Makefile"
CLEAN_COMMIT = re.compile(r"[0-9a-f]{7,40}")


def git(repo: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                          timeout=60)


def no_history(repo: Path) -> str | None:
    """Why ``repo`` has no git history to check against, or None when it has."""
    if shutil.which("git") is None:
        return "git is not installed"
    if git(repo, "rev-parse", "--verify", "HEAD").returncode != 0:
        return f"{repo} is not a git checkout with history"
    return None


#: a model card: what the reader takes from it (classes, input, thresholds, fallbacks)
#: is measured; its ``training`` section (how it was made, gate verdicts, a rerun of the
#: recipe) is provenance that no figure depends on
CARD = ".onnx.json"


def card_decision(repo: Path, commit: str, card: str) -> object:
    """The card at ``commit`` without its ``training`` section (None where absent or
    not JSON)."""
    shown = git(repo, "show", f"{commit}:{card}")
    if shown.returncode != 0:
        return None
    try:
        data = json.loads(shown.stdout)
    except ValueError:
        return None
    if isinstance(data, dict):
        data.pop("training", None)
    return data


def staleness(path: Path, repo: Path, target: str) -> tuple[str, str] | None:
    """("fail" | "skip", one line) for a result file that is incomplete or older than
    the code it measures; None when it is fresh."""
    name = path.relative_to(repo).as_posix()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return "fail", f"{name}: not a JSON result file ({exc})"
    regenerate = f"regenerate it with `make {target}`"
    missing = [k for k in PROVENANCE if not isinstance(data, dict) or not data.get(k)]
    if missing:
        return "fail", f"{name}: no {', '.join(missing)}; {regenerate}"
    commit, measures = data["commit"], data["measures"]
    if not isinstance(commit, str) or not CLEAN_COMMIT.fullmatch(commit):
        return "fail", (f"{name}: made at {commit!r}, not a clean commit of this "
                        f"repository; {regenerate} from a clean checkout")
    if git(repo, "cat-file", "-e", f"{commit}^{{commit}}").returncode != 0:
        if git(repo, "rev-parse", "--is-shallow-repository").stdout.strip() == "true":
            return "skip", f"{name}: commit {commit} is not in this shallow clone"
        return "fail", f"{name}: commit {commit} is unknown to git; {regenerate}"
    if git(repo, "merge-base", "--is-ancestor", commit, "HEAD").returncode != 0:
        return "fail", f"{name}: commit {commit} is not in this branch's history; {regenerate}"
    paths = [m for m in measures if not m.endswith(CARD)]
    newer: list[str] = []
    if paths:
        log = git(repo, "log", "--format=%h", f"{commit}..HEAD", "--", *paths)
        if log.returncode != 0:
            return "fail", f"{name}: git log failed: {log.stderr.strip()}"
        newer = log.stdout.split()
    for card in (m for m in measures if m.endswith(CARD)):
        if card_decision(repo, commit, card) != card_decision(repo, "HEAD", card):
            newer += [h for h in git(repo, "log", "--format=%h", f"{commit}..HEAD", "--",
                                     card).stdout.split() if h not in newer]
    if newer:
        shown = ", ".join(newer[:6]) + (f" and {len(newer) - 6} more" if len(newer) > 6 else "")
        return "fail", (f"{name}: made at {commit}, but {len(newer)} later commit(s) changed "
                        f"what it measures ({shown}); {regenerate} "
                        f"(it runs: {data['command']})")
    return None


def make_targets(makefile: Path = MAKEFILE) -> dict[str, str]:
    """The result files ``make bench`` writes (``$(R)/NAME.json`` targets) -> the recipe
    that writes each."""
    text = makefile.read_text(encoding="utf-8")
    out: dict[str, str] = {}
    for match in re.finditer(r"^\$\(R\)/([\w.-]+\.json):[^\n]*\n((?:\t[^\n]*\n)+)", text,
                             re.MULTILINE):
        out[match.group(1)] = match.group(2)
    return out


# --- the committed files -------------------------------------------------------------

COMMITTED = sorted(RESULTS.glob("*")) if RESULTS.is_dir() else []


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: p.name)
def test_the_committed_result_file_is_as_new_as_what_it_measures(path):
    reason = no_history(REPO)
    if reason:
        pytest.skip(reason)
    found = staleness(path, REPO, f"benchmarks/results/{path.name}")
    if found:
        kind, line = found
        (pytest.skip if kind == "skip" else pytest.fail)(line)


def test_make_bench_writes_every_committed_result_file_and_only_those():
    targets = set(make_targets())
    committed = {p.name for p in COMMITTED}
    assert len(targets) >= 20, "the Makefile's $(R)/NAME.json targets were not found"
    assert committed - targets == set(), "committed, but no `make bench` target writes them"
    assert targets - committed == set(), "`make bench` writes them, but they are not committed"
    bench_line = re.search(r"^bench:(.*)$", MAKEFILE.read_text(), re.MULTILINE).group(1)
    assert set(bench_line.split()) == {"$(BENCH_FAST)", "$(BENCH_SLOW)"}
    text = MAKEFILE.read_text()
    listed = set(re.findall(r"\$\(R\)/([\w.-]+\.json)", " ".join(
        re.findall(r"^BENCH_(?:FAST|SLOW) :=((?:[^\n]*\\\n)*[^\n]*)$", text, re.MULTILINE))))
    assert listed == targets, "BENCH_FAST and BENCH_SLOW list every target once"


def test_every_recipe_knows_what_it_measures():
    """Each ``make bench`` command maps to entry modules (so its file gets ``measures``),
    and each entry module exists (a module moved or renamed fails here)."""
    modules = module_files()
    for name, recipe in make_targets().items():
        found = re.search(r"\$\(BIN\)/(zatre bench [\w-]+|python -m [\w.]+)", recipe)
        assert found and entries_of(found.group(1)), f"{name}: what does {recipe!r} measure?"
    for bench, entries in BENCH_ENTRIES.items():
        assert all(e in modules for e in entries), (bench, entries)


# --- the check itself, on a repository of its own ------------------------------------

def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "other").mkdir()
    for args in (["init", "-q"], ["config", "user.email", "t@example.org"],
                 ["config", "user.name", "t"], ["config", "commit.gpgsign", "false"]):
        assert git(repo, *args).returncode == 0
    return repo


def _commit(repo: Path, path: str, text: str) -> str:
    (repo / path).write_text(text)
    git(repo, "add", "-A")
    assert git(repo, "commit", "-qm", f"change {path}").returncode == 0
    return git(repo, "rev-parse", "--short", "HEAD").stdout.strip()


def _result(repo: Path, made: str, **over) -> Path:
    data = {"commit": made, "date": "2026-11-26T00:00:00+00:00", "machine": {"cpus": 2},
            "command": "zatre bench x", "measures": ["pkg"], "figure": 1, **over}
    path = repo / "result.json"
    path.write_text(json.dumps(data))
    return path


def test_a_file_made_at_the_last_change_of_what_it_measures_is_fresh(tmp_path):
    repo = _repo(tmp_path)
    made = _commit(repo, "pkg/a.py", "x = 1\n")
    _commit(repo, "other/b.py", "y = 2\n")     # not measured
    assert staleness(_result(repo, made), repo, "r.json") is None


def test_a_later_change_to_a_measured_path_makes_it_stale(tmp_path):
    repo = _repo(tmp_path)
    made = _commit(repo, "pkg/a.py", "x = 1\n")
    later = _commit(repo, "pkg/a.py", "x = 2\n")
    kind, line = staleness(_result(repo, made), repo, "benchmarks/results/r.json")
    assert kind == "fail"
    assert "result.json" in line and later in line and made in line
    assert "make benchmarks/results/r.json" in line and "zatre bench x" in line


def test_a_card_changed_only_in_how_it_was_made_leaves_it_fresh(tmp_path):
    repo = _repo(tmp_path)
    card = {"classes": 7, "reader_thresholds": {"min_confidence": 0.5},
            "training": {"epochs": 26}}
    made = _commit(repo, "pkg/m.onnx.json", json.dumps(card))
    card["training"]["reproduced"] = {"verdict": "passed"}
    _commit(repo, "pkg/m.onnx.json", json.dumps(card, indent=2))
    result = _result(repo, made, measures=["pkg/m.onnx.json"])
    assert staleness(result, repo, "r.json") is None
    card["reader_thresholds"]["min_confidence"] = 0.6
    later = _commit(repo, "pkg/m.onnx.json", json.dumps(card))
    kind, line = staleness(result, repo, "r.json")
    assert kind == "fail" and later in line


@pytest.mark.parametrize("over, words", [
    ({"measures": []}, "no measures"), ({"machine": None}, "no machine"),
    ({"commit": "abc1234+changes"}, "not a clean commit"),
    ({"commit": "deadbee"}, "unknown to git")])
def test_a_file_without_its_fields_or_a_clean_known_commit_fails(tmp_path, over, words):
    repo = _repo(tmp_path)
    made = _commit(repo, "pkg/a.py", "x = 1\n")
    kind, line = staleness(_result(repo, made, **over), repo, "r.json")
    assert kind == "fail" and words in line, line


def test_a_shallow_clone_without_the_commit_skips_and_no_git_skips(tmp_path):
    repo = _repo(tmp_path)
    made = _commit(repo, "pkg/a.py", "x = 1\n")
    _commit(repo, "pkg/a.py", "x = 2\n")
    shallow = tmp_path / "shallow"
    res = subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow)],
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    kind, line = staleness(_result(shallow, made), shallow, "r.json")
    assert kind == "skip" and "shallow" in line
    assert no_history(tmp_path / "nothing") is not None
    assert no_history(repo) is None


def test_results_written_during_make_bench_leave_the_commit_clean(tmp_path):
    """``make bench`` writes one file after another into the checkout: the commit the
    later ones record stays clean; a change to the code does not."""
    from zatre_vision.bench.results import current_commit

    repo = _repo(tmp_path)
    (repo / "benchmarks" / "results").mkdir(parents=True)
    _commit(repo, "benchmarks/results/r.json", "{}\n")
    made = _commit(repo, "pkg/a.py", "x = 1\n")
    (repo / "benchmarks" / "results" / "r.json").write_text('{"new": 1}\n')
    assert current_commit(repo) == made
    (repo / "pkg" / "a.py").write_text("x = 2\n")
    assert current_commit(repo) == made + "+changes"
    assert current_commit(tmp_path / "nothing") == "unknown"
