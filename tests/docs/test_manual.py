"""The manual (MkDocs, built from docs/) and the README that points to it: the README
fits on a screen, the manual builds with ``mkdocs build --strict`` (a broken link or a
page left out of the nav fails), and every command example in the manual still works:
a block of safe commands (scoring and analysing records) is run as it is written,
every other ``zatre`` command's subcommand and options are checked against its
``--help``, and a ``zatre serve`` example's settings with ``--validate-config``, so no
example can go stale."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
#: what the README may hold at most (characters): what it is, a picture, the two set-up
#: commands, links into the manual
README_MAX = 8000
#: subcommands a test may run as written (they read a record and print JSON)
SAFE = {"score", "analyse"}
#: subcommands with subcommands of their own
GROUPS = {"calibrate", "synth", "bench"}
FENCE = re.compile(r"^```(sh|bash|shell|console)\s*\n(.*?)^```", re.M | re.S)


def manual_pages() -> list[Path]:
    return sorted(DOCS.glob("*.md"))


def blocks(page: Path) -> list[str]:
    return [m.group(2) for m in FENCE.finditer(page.read_text(encoding="utf-8"))]


def commands(block: str) -> list[str]:
    """The block's shell commands: continuation lines joined, comments and heredoc
    bodies left out."""
    out: list[str] = []
    lines = block.splitlines()
    k = 0
    while k < len(lines):
        line = lines[k]
        while line.rstrip().endswith("\\") and k + 1 < len(lines):
            k += 1
            line = line.rstrip()[:-1] + " " + lines[k].strip()
        heredoc = re.search(r"<<\s*'?(\w+)'?", line)
        if heredoc:
            end = heredoc.group(1)
            while k + 1 < len(lines) and lines[k + 1].strip() != end:
                k += 1
            k += 1
        k += 1
        line = line.split(" #", 1)[0].strip()
        if line and not line.startswith("#"):
            out.append(line)
    return out


def zatre_calls(command: str) -> list[list[str]]:
    """Each ``zatre ...`` call in a command line (after sudo, in && and ; chains)."""
    calls = []
    for part in re.split(r"&&|;|\|\|?", command):
        try:
            words = shlex.split(part)
        except ValueError:
            continue
        while words and words[0] == "sudo":
            words = words[3:] if words[1:2] == ["-u"] else words[1:]
        if words and words[0] == "zatre":
            calls.append(words[1:])
    return calls


def examples() -> list[tuple[str, str]]:
    return [(f"{p.name}#{k}", b) for p in manual_pages() for k, b in enumerate(blocks(p))
            if any(zatre_calls(c) for c in commands(b))]


def _is_safe(block: str) -> bool:
    for command in commands(block):
        calls = zatre_calls(command)
        if calls:
            if any(not call or call[0] not in SAFE for call in calls):
                return False
        elif not command.startswith(("cat >", "echo ")):
            return False
    return True


@pytest.fixture(scope="module")
def zatre_on_path(tmp_path_factory) -> dict:
    """A ``zatre`` on PATH that runs this checkout's command (as the console script)."""
    bin_dir = tmp_path_factory.mktemp("bin")
    shim = bin_dir / "zatre"
    shim.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -m zatre_vision \"$@\"\n")
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
               PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    return env


def test_the_readme_fits_on_a_screen_and_points_into_the_manual():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text) <= README_MAX, f"README.md has {len(text)} characters (at most {README_MAX})"
    assert "make demo" in text and "make test" in text
    for target in re.findall(r"\]\((docs/[^)#]+)", text):
        assert (ROOT / target).exists(), target
    assert "mkdocs" in text


def test_every_page_of_the_manual_is_in_the_nav():
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for page in manual_pages():
        assert f" {page.name}" in nav, f"{page.name} is not in mkdocs.yml's nav"


def test_the_manual_builds_strict(tmp_path):
    mkdocs = shutil.which("mkdocs") or str(Path(sys.executable).with_name("mkdocs"))
    if not Path(mkdocs).exists():
        pytest.skip("mkdocs is not installed (pip install -e '.[docs]'; make test installs it)")
    res = subprocess.run([mkdocs, "build", "--strict", "--site-dir", str(tmp_path / "site")],
                         cwd=ROOT, capture_output=True, text=True, timeout=300,
                         env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))
    assert res.returncode == 0, res.stdout + res.stderr
    assert (tmp_path / "site" / "club-evening" / "index.html").exists()


def test_the_manual_has_command_examples_of_both_kinds():
    found = examples()
    assert len(found) >= 8
    assert any(_is_safe(b) for _, b in found) and not all(_is_safe(b) for _, b in found)


@pytest.mark.parametrize("name,block", examples(), ids=[n for n, _ in examples()])
def test_every_command_example_works(name, block, zatre_on_path, tmp_path):
    if _is_safe(block):
        res = subprocess.run(["bash", "-e", "-c", block], cwd=tmp_path, env=zatre_on_path,
                             capture_output=True, text=True, timeout=300)
        assert res.returncode == 0, f"{name}:\n{block}\n{res.stdout[-2000:]}{res.stderr[-2000:]}"
        return
    for command in commands(block):
        for call in zatre_calls(command):
            sub = call[:2] if call[:1] and call[0] in GROUPS and len(call) > 1 \
                and not call[1].startswith("-") else call[:1]
            if sub and sub[0].startswith("-"):
                sub = []
            res = subprocess.run([sys.executable, "-m", "zatre_vision", *sub, "--help"],
                                 env=zatre_on_path, capture_output=True, text=True, timeout=120)
            assert res.returncode == 0, f"{name}: `zatre {' '.join(sub)}` is no command:\n" \
                                        f"{res.stdout}{res.stderr}"
            for option in (w.split("=", 1)[0] for w in call if w.startswith("--")):
                assert option in res.stdout, f"{name}: `zatre {' '.join(sub)}` has no {option}"
            if sub == ["serve"]:  # the settings it would start with, checked as written
                res = subprocess.run([sys.executable, "-m", "zatre_vision", *call,
                                      "--validate-config"], cwd=tmp_path, env=zatre_on_path,
                                     capture_output=True, text=True, timeout=120)
                assert res.returncode == 0, f"{name}: zatre {' '.join(call)}: {res.stderr}"


def _codes(text: str) -> list[str]:
    return re.findall(r"^- `([a-z0-9-]+)`", text, re.MULTILINE)


def test_the_readme_lists_every_violation_code_of_the_manual():
    """contracts.md: the README lists every violation code with one line each."""
    readme = _codes((ROOT / "README.md").read_text(encoding="utf-8"))
    manual = _codes((ROOT / "docs" / "zatre-command.md").read_text(encoding="utf-8"))
    assert "line-over-12" in manual and "tile-not-in-hand" in manual
    assert len(readme) == len(set(readme)), "a code listed twice in the README"
    assert set(manual) <= set(readme), set(manual) - set(readme)
