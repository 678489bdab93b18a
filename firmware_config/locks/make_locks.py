"""Writes the lock file of each Raspberry Pi OS release (issue 63): every package the Pi's
venv gets, pinned ``==`` with the sha256 of each wheel it may install.

    make locks                                     # both releases, keeping today's pins
    make locks LOCKS_ARGS=--upgrade                # newest versions the inputs allow
    .venv/bin/python firmware_config/locks/make_locks.py [--upgrade] [bookworm] [trixie]

Inputs, per release: pyproject.toml ([project] dependencies, the ``pi`` extra and the
[build-system] requires, since install.sh builds the project without build isolation)
and ``firmware_config/locks/<release>.in`` (the pins chosen for that release, with the
reasons). Output: ``firmware_config/locks/<release>.txt``, which install.sh installs with
``pip install --require-hashes -r`` and from which the Makefile makes CI's Pi venvs.

How: ``pip install --dry-run --report`` resolves the inputs twice under the release's
Python (``pip --python``, so ``python_version`` markers are the release's): once for the
Pi's wheels (manylinux aarch64 up to the release's glibc), once, pinned to the same
versions, for CI's (manylinux x86_64). The lock holds the union of the two wheels'
hashes (one for a pure-Python wheel) and, in comments, which wheel each hash is. The
environment markers of every resolved package are evaluated again for the Pi
(aarch64) here, and the lock is refused if that closure is not exactly the resolved set.
Needs the registry (PyPI by default, ``--index-url``), a Python of each release's version
(``--python bookworm=/path/python3.11``; else python3.11/python3.13 on PATH) and
``packaging`` in the Python that runs this script (the project's .venv has it).
Without --upgrade the versions of the existing lock are kept where the inputs allow.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import tomllib
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

LOCKS = Path(__file__).resolve().parent
ROOT = LOCKS.parents[1]
PROJECT = "zatre-vision"
# The extras of the project the Pi installs (install.sh): gpiozero for the buttons.
PI_EXTRAS = ("pi",)
# CI's Pi venvs run on Debian 12 x86_64 (glibc 2.36): manylinux wheels up to that.
CI_MACHINE = ("x86_64", (2, 36))


@dataclass(frozen=True)
class Release:
    codename: str
    python: str  # major.minor: the OS's python3
    python_full: str  # the OS's python3, for python_full_version markers
    glibc: tuple[int, int]  # the OS's glibc: the newest manylinux tag its pip accepts
    title: str


RELEASES = {
    "bookworm": Release("bookworm", "3.11", "3.11.2", (2, 36),
                        "Raspberry Pi OS Bookworm (Debian 12, 64 bit, Python 3.11)"),
    "trixie": Release("trixie", "3.13", "3.13.5", (2, 41),
                      "Raspberry Pi OS Trixie (Debian 13, 64 bit, Python 3.13)"),
}


@dataclass
class Locked:
    name: str  # canonical
    version: str
    requires: list[str]
    wheels: dict[str, str] = field(default_factory=dict)  # sha256 -> file name


def pi_environment(release: Release, machine: str = "aarch64") -> dict[str, str]:
    """The marker environment of the release's python3 on a Pi (or CI's machine)."""
    return {"implementation_name": "cpython", "implementation_version": release.python_full,
            "os_name": "posix", "platform_machine": machine, "platform_system": "Linux",
            "platform_python_implementation": "CPython", "python_version": release.python,
            "python_full_version": release.python_full, "sys_platform": "linux",
            "platform_release": "", "platform_version": "", "extra": ""}


def applies(req: Requirement, env: dict[str, str], extras: set[str] = frozenset()) -> bool:
    if req.marker is None:
        return True
    return any(req.marker.evaluate({**env, "extra": extra}) for extra in ({""} | set(extras)))


def project_requirements(pyproject: Path = ROOT / "pyproject.toml"
                         ) -> list[tuple[str, Requirement]]:
    """What the Pi's venv needs from pyproject.toml, each with who needs it: the
    dependencies, the Pi's extras and the build requirements (install.sh installs the
    project without build isolation)."""
    data = tomllib.loads(pyproject.read_text())
    reqs = [(PROJECT, r) for r in data["project"]["dependencies"]]
    for extra in PI_EXTRAS:
        reqs += [(f"{PROJECT}[{extra}]", r)
                 for r in data["project"]["optional-dependencies"][extra]]
    reqs += [(f"{PROJECT} (build)", r) for r in data["build-system"]["requires"]]
    return [(who, Requirement(r)) for who, r in reqs]


def without_marker(req: Requirement) -> str:
    """The requirement as pip gets it, its marker already evaluated for the Pi."""
    req = Requirement(str(req))
    req.marker = None
    return str(req)


def read_in(path: Path) -> tuple[list[str], list[Requirement]]:
    """A release's .in file: its comment lines (the reasons) and its requirements."""
    comments, reqs = [], []
    for line in path.read_text().splitlines():
        if line.startswith("#"):
            comments.append(line)
        elif line.split("#")[0].strip():
            reqs.append(Requirement(line.split("#")[0].strip()))
    return comments, reqs


def read_lock(path: Path) -> dict[str, tuple[str, set[str]]]:
    """A lock file's pins: canonical name -> (version, hashes)."""
    if not path.exists():
        return {}
    text = re.sub(r"\\\n", " ", path.read_text())
    out = {}
    for line in text.splitlines():
        line = line.split("#")[0].strip()
        if not line:
            continue
        m = re.match(r"([A-Za-z0-9._-]+)==(\S+)", line)
        if m is None:
            raise SystemExit(f"{path}: not a pinned requirement: {line}")
        out[canonicalize_name(m.group(1))] = (m.group(2),
                                              set(re.findall(r"--hash=sha256:(\w+)", line)))
    return out


def platforms(machine: str, glibc: tuple[int, int]) -> list[str]:
    """The manylinux tags pip accepts on that glibc, in its order: the newest first."""
    tags = [f"manylinux_2_{minor}_{machine}" for minor in range(glibc[1], 16, -1)]
    return tags + [f"manylinux2014_{machine}"]


def resolve(python: str, release: Release, machine: str, glibc: tuple[int, int],
            requirements: list[str], constraints: list[str], index_url: str | None,
            tmp: Path) -> dict[str, Locked]:
    """pip's resolution of the requirements for the release's CPython on that machine."""
    req_file, con_file, report = tmp / "req.txt", tmp / "con.txt", tmp / f"{machine}.json"
    req_file.write_text("\n".join(requirements) + "\n")
    con_file.write_text("\n".join(constraints) + "\n")
    abi = "cp" + release.python.replace(".", "")
    cmd = [sys.executable, "-m", "pip", "--python", python, "--isolated",
           "--disable-pip-version-check", "install", "--dry-run", "--ignore-installed",
           "--quiet", "--report", str(report), "--only-binary=:all:",
           "--implementation", "cp", "--python-version", release.python, "--abi", abi]
    for tag in platforms(machine, glibc):
        cmd += ["--platform", tag]
    if index_url:
        cmd += ["--index-url", index_url]
    cmd += ["-r", str(req_file), "-c", str(con_file)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"make_locks: pip could not resolve {release.codename} for {machine}"
                         f" ({' '.join(cmd)}):\n{r.stderr.strip()}\n(an older pin in the "
                         "lock may stand in the way: try --upgrade)")
    data = json.loads(report.read_text())
    reported = data["environment"]["python_version"]
    if reported != release.python:
        raise SystemExit(f"make_locks: {python} is Python {reported}, not {release.python}")
    out = {}
    for item in data["install"]:
        meta, info = item["metadata"], item["download_info"]
        name = canonicalize_name(meta["name"])
        sha = info.get("archive_info", {}).get("hashes", {}).get("sha256")
        if sha is None:
            raise SystemExit(f"make_locks: the index gave no sha256 for {info['url']}")
        out[name] = Locked(name, meta["version"], list(meta.get("requires_dist") or []),
                           {sha: info["url"].rsplit("/", 1)[-1].split("#")[0]})
    return out


def closure(roots: list[tuple[str, Requirement]], resolved: dict[str, Locked],
            env: dict[str, str]) -> dict[str, set[str]]:
    """Every package the roots (who, requirement) need on the Pi, following each resolved
    package's own requirements with the Pi's markers: canonical name -> who needs it."""
    via: dict[str, set[str]] = {}
    todo = [(who, r) for who, r in roots if applies(r, env)]
    extras_of: dict[str, set[str]] = {}
    while todo:
        parent, req = todo.pop()
        name = canonicalize_name(req.name)
        if name not in resolved:
            raise SystemExit(f"make_locks: {parent} needs {req} on the Pi, which pip did not "
                             "resolve (a marker that differs on x86_64?)")
        if req.specifier and not req.specifier.contains(resolved[name].version,
                                                        prereleases=True):
            raise SystemExit(f"make_locks: {parent} needs {req}, the lock has "
                             f"{resolved[name].version}")
        new_extras = set(req.extras) - extras_of.get(name, set())
        first = name not in via
        via.setdefault(name, set()).add(parent)
        if not first and not new_extras:
            continue
        extras_of.setdefault(name, set()).update(req.extras)
        for dep in resolved[name].requires:
            dep_req = Requirement(dep)
            if applies(dep_req, env, extras_of[name]) and (first or dep_req.marker is not None):
                todo.append((name, dep_req))
    return via


def render(release: Release, reasons: list[str], locked: dict[str, Locked],
           via: dict[str, set[str]]) -> str:
    pi_tags = f"manylinux_2_17 to manylinux_2_{release.glibc[1]}"
    lines = [
        f"# {release.title}, Pi 4/5:",
        "# every package of /opt/zatre/venv, pinned, with the sha256 of each wheel the Pi",
        "# (manylinux aarch64) or CI's Pi venv (manylinux x86_64) installs.",
        "# Generated: do not edit. Edit pyproject.toml or",
        f"# firmware_config/locks/{release.codename}.in, then rerun",
        "#   make locks   (or: .venv/bin/python firmware_config/locks/make_locks.py"
        f" {release.codename};",
        "#                 --upgrade for the newest versions the inputs allow)",
        "# install.sh: pip install --require-hashes -r firmware_config/locks/"
        f"{release.codename}.txt,",
        "# then the project itself with --no-deps --no-build-isolation; so does the",
        f"# Makefile for CI's {'.venv-pi' if release.codename == 'bookworm' else '.venv-pi-trixie'}"
        " (make test-pi).",
        f"# {len(locked)} packages; the Pi's wheels: cp{release.python.replace('.', '')},"
        f" aarch64, {pi_tags}.",
        "#",
        f"# From {release.codename}.in:",
        *reasons,
        "",
    ]
    for name in sorted(locked):
        item = locked[name]
        hashes = sorted(item.wheels, key=lambda sha: item.wheels[sha])
        lines.append(f"{name}=={item.version} \\")
        lines += [f"    --hash=sha256:{sha} \\" for sha in hashes]
        lines[-1] = lines[-1][:-2]
        lines.append("    # via " + ", ".join(sorted(via[name])))
        lines += [f"    # {sha[:12]} {item.wheels[sha]}" for sha in hashes]
    return "\n".join(lines) + "\n"


def lock_release(release: Release, python: str, upgrade: bool, index_url: str | None) -> str:
    reasons, pins = read_in(LOCKS / f"{release.codename}.in")
    env = pi_environment(release)
    roots = [(who, r) for who, r in project_requirements() if applies(r, env)]
    roots += [(f"{release.codename}.in", r) for r in pins]
    requirements = [without_marker(r) for _, r in roots]
    old = {} if upgrade else read_lock(LOCKS / f"{release.codename}.txt")
    with tempfile.TemporaryDirectory() as tmp:
        pi = resolve(python, release, "aarch64", release.glibc, requirements,
                     [f"{n}=={v}" for n, (v, _) in sorted(old.items())], index_url, Path(tmp))
        pinned = [f"{n}=={item.version}" for n, item in sorted(pi.items())]
        ci = resolve(python, release, CI_MACHINE[0], CI_MACHINE[1], requirements, pinned,
                     index_url, Path(tmp))
    pi_versions = {n: i.version for n, i in pi.items()}
    ci_versions = {n: i.version for n, i in ci.items()}
    if ci_versions != pi_versions:
        raise SystemExit(f"make_locks: {release.codename}: the x86_64 resolution differs from "
                         f"the Pi's: {sorted(set(ci_versions.items()) ^ set(pi_versions.items()))}")
    for name, item in ci.items():
        pi[name].wheels.update(item.wheels)
    via = closure(roots, pi, env)
    if set(via) != set(pi):
        raise SystemExit(f"make_locks: {release.codename}: pip resolved "
                         f"{sorted(set(pi) - set(via))} beyond what the Pi needs, or missed "
                         f"{sorted(set(via) - set(pi))}")
    return render(release, reasons, pi, via)


def find_python(version: str) -> str | None:
    for candidate in (shutil.which(f"python{version}"),
                      *sorted(Path.home().glob(f".pyenv/versions/{version}.*/bin/python{version}"))):
        if candidate is None:
            continue
        r = subprocess.run([str(candidate), "-c", "import sys; print(sys.version[:4])"],
                           capture_output=True, text=True)
        if r.returncode == 0 and r.stdout.strip() == version:
            return str(candidate)
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("releases", nargs="*", metavar="RELEASE",
                        help=f"of {', '.join(RELEASES)} (default: all)")
    parser.add_argument("--upgrade", action="store_true",
                        help="newest versions the inputs allow (default: keep the lock's)")
    parser.add_argument("--python", action="append", default=[], metavar="RELEASE=PATH",
                        help="the interpreter of a release's Python version")
    parser.add_argument("--index-url", default=None, help="another index than PyPI")
    args = parser.parse_args(argv)
    given = dict(item.split("=", 1) for item in args.python)
    unknown = [r for r in args.releases + list(given) if r not in RELEASES]
    if unknown:
        parser.error(f"unknown release {', '.join(unknown)} (of {', '.join(RELEASES)})")
    for codename in args.releases or list(RELEASES):
        release = RELEASES[codename]
        python = given.get(codename) or find_python(release.python)
        if not python:
            print(f"make_locks: no Python {release.python} for {codename}: "
                  f"--python {codename}=/path/python{release.python}", file=sys.stderr)
            return 1
        text = lock_release(release, python, args.upgrade, args.index_url)
        path = LOCKS / f"{codename}.txt"
        before = path.read_text() if path.exists() else None
        path.write_text(text)
        count = len(read_lock(path))
        print(f"make_locks: {path.relative_to(ROOT)}: {count} packages"
              + (" (unchanged)" if text == before else ""))
    return 0


if __name__ == "__main__":
    os.chdir(ROOT)
    sys.exit(main())
