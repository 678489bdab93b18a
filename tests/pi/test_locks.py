"""The Pi's lock files (issue 63): firmware_config/locks/<release>.txt pins every package
the Pi's venv gets, each with the sha256 of the wheels the Pi (manylinux aarch64, the
release's CPython) and CI's Pi venv (manylinux x86_64) install; install.sh and the
Makefile install them with ``--require-hashes``.

Most tests read the files only. The ones marked "in a lock's venv" run where the
interpreter is a venv the Makefile made from a lock (``make test-pi`` runs this file in
.venv-pi and .venv-pi-trixie) and are skipped elsewhere; the one that asks PyPI is
skipped without the network."""

import hashlib
import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.request
from importlib import metadata
from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.tags import Tag, compatible_tags, cpython_tags
from packaging.utils import canonicalize_name, parse_wheel_filename

tomllib = pytest.importorskip("tomllib", reason="reads pyproject.toml with Python 3.11+")

REPO = Path(__file__).resolve().parents[2]
LOCKS = REPO / "firmware_config/locks"
INSTALL = REPO / "firmware_config/install.sh"
# release -> (CPython, glibc of the OS, the numpy python3-numpy has there)
RELEASES = {"bookworm": ((3, 11), 36, "1.24.2"), "trixie": ((3, 13), 41, "2.2.4")}
BIG = ("numpy", "onnxruntime", "opencv-python-headless")
LINE = re.compile(r"([a-z0-9][a-z0-9._-]*)==([^\s]+)((?: --hash=sha256:[0-9a-f]{64})+)")


def parse_lock(path: Path) -> dict[str, dict]:
    """name -> {version, hashes, wheels (hash prefix -> file name), via}; fails on any
    line that is not a pinned requirement with hashes or a comment."""
    out: dict[str, dict] = {}
    current = None
    logical = re.sub(r" \\\n\s*", " ", path.read_text())
    for raw in logical.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            if current and raw.startswith("    # via "):
                out[current]["via"] = line[len("# via "):].split(", ")
            elif current and raw.startswith("    # "):
                prefix, wheel = line[2:].split(" ", 1)
                out[current]["wheels"][prefix] = wheel
            continue
        m = LINE.fullmatch(line)
        assert m, f"{path.name}: not `name==version --hash=sha256:...`: {line}"
        current = m.group(1)
        assert current not in out, f"{path.name}: {current} twice"
        out[current] = {"version": m.group(2), "via": [], "wheels": {},
                        "hashes": re.findall(r"sha256:([0-9a-f]{64})", m.group(3))}
    return out


def pi_env(release: str, machine: str = "aarch64") -> dict[str, str]:
    (major, minor), _, _ = RELEASES[release]
    return {"platform_machine": machine, "python_version": f"{major}.{minor}",
            "python_full_version": f"{major}.{minor}.2", "sys_platform": "linux",
            "platform_system": "Linux", "os_name": "posix",
            "implementation_name": "cpython", "platform_python_implementation": "CPython",
            "extra": ""}


def pyproject_requirements() -> list[Requirement]:
    """What the Pi's venv needs: dependencies, the pi extra, the build requirements."""
    data = tomllib.loads((REPO / "pyproject.toml").read_text())
    reqs = (data["project"]["dependencies"] + data["project"]["optional-dependencies"]["pi"]
            + data["build-system"]["requires"])
    return [Requirement(r) for r in reqs]


def tags_for(release: str, machine: str) -> set[Tag]:
    (major, minor), glibc, _ = RELEASES[release]
    if machine == "x86_64":
        glibc = 36  # CI's machine: Debian 12
    platforms = [f"manylinux_2_{g}_{machine}" for g in range(glibc, 16, -1)]
    platforms.append(f"manylinux2014_{machine}")
    return set(cpython_tags((major, minor), platforms=platforms)) | set(
        compatible_tags((major, minor), platforms=platforms))


@pytest.fixture(scope="module", params=list(RELEASES))
def release(request):
    return request.param


@pytest.fixture(scope="module")
def lock(release):
    return parse_lock(LOCKS / f"{release}.txt")


def test_every_line_is_pinned_with_its_hashes(lock, release):
    assert len(lock) >= 30, "the lock holds the whole venv, not a few pins"
    for name, item in lock.items():
        assert name == canonicalize_name(name)
        assert item["hashes"], name
        assert len(set(item["hashes"])) == len(item["hashes"]), name
        # each hash says which wheel it is, and each wheel is of this name and version
        assert sorted(item["wheels"]) == sorted(h[:12] for h in item["hashes"]), name
        for wheel in item["wheels"].values():
            wname, version, _, _ = parse_wheel_filename(wheel)
            assert (wname, str(version)) == (name, item["version"]), wheel
        assert item["via"], f"{name}: the lock says nothing needs it"


def test_each_release_has_a_wheel_for_the_pi_and_one_for_ci(lock, release):
    """Every package has a hash of a wheel the release's pip takes on a Pi (manylinux
    aarch64, that CPython; or pure Python) and of one CI's x86_64 venv takes; the three
    big ones (numpy, onnxruntime, OpenCV) a binary aarch64 wheel of their own."""
    pi, ci = tags_for(release, "aarch64"), tags_for(release, "x86_64")
    for name, item in lock.items():
        tags = {w: parse_wheel_filename(w)[3] for w in item["wheels"].values()}
        assert any(t & pi for t in tags.values()), f"{name}: no wheel for the Pi"
        assert any(t & ci for t in tags.values()), f"{name}: no wheel for CI"
    cp = "cp{}{}".format(*RELEASES[release][0])
    for name in BIG:
        aarch64 = [w for w in lock[name]["wheels"].values() if "manylinux" in w
                   and "aarch64" in w and (f"-{cp}-{cp}-" in w or "-abi3-" in w)]
        assert aarch64, f"{release}: no {cp} manylinux aarch64 wheel of {name}"


def test_the_pins_chosen_for_the_release_are_locked(lock, release):
    """numpy as the OS ships it (the OS's copy satisfies the pin on the Pi, so pip keeps
    it: picamera2 is built against it), onnxruntime 1.20.1 (1.21+ dies with SIGILL on a
    Pi 4), the OpenCV that runs on that numpy."""
    numpy = RELEASES[release][2]
    assert lock["numpy"]["version"] == numpy
    assert lock["onnxruntime"]["version"] == "1.20.1"
    assert lock["opencv-python-headless"]["version"] == (
        "4.11.0.86" if release == "bookworm" else "4.12.0.88")
    pins = [line for line in (LOCKS / f"{release}.in").read_text().splitlines()
            if line and not line.startswith("#")]
    assert pins == [f"numpy=={numpy}", lock_pin(lock, "opencv-python-headless"),
                    "onnxruntime==1.20.1"]
    # and the lock carries the .in's reasons, line for line
    reasons = [line for line in (LOCKS / f"{release}.in").read_text().splitlines()
               if line.startswith("#")]
    assert any("Illegal instruction" in line for line in reasons)
    lines = (LOCKS / f"{release}.txt").read_text().splitlines()
    start = lines.index(reasons[0])
    assert lines[start:start + len(reasons)] == reasons


def lock_pin(lock, name):
    return f"{name}=={lock[name]['version']}"


def test_every_dependency_of_the_project_is_locked_at_a_version_it_allows(lock, release):
    """pyproject.toml's dependencies, the pi extra and the build requirements, with the
    markers as they come out on that release's Pi (aarch64)."""
    env = pi_env(release)
    for req in pyproject_requirements():
        if req.marker is not None and not req.marker.evaluate(env):
            continue
        name = canonicalize_name(req.name)
        assert name in lock, f"{release}: {req} is not locked"
        assert req.specifier.contains(lock[name]["version"], prereleases=True), \
            f"{release}: {req}, locked {lock[name]['version']}"
    # what the lock says needs each package is a package of the lock or the project
    for name, item in lock.items():
        for who in item["via"]:
            assert who in lock or who.startswith("zatre-vision") or who == f"{release}.in", \
                (name, who)


def test_the_two_releases_differ_only_where_the_release_does():
    bookworm, trixie = (parse_lock(LOCKS / f"{r}.txt") for r in RELEASES)
    assert set(bookworm) == set(trixie)
    differ = {n for n in bookworm if bookworm[n]["version"] != trixie[n]["version"]}
    assert differ <= {"numpy", "opencv-python-headless"}, differ


@pytest.mark.parametrize("codename", list(RELEASES))
def test_the_dry_run_installs_the_release_lock_and_stamps_it(tmp_path, codename):
    """As on a Pi: the lock with --require-hashes, the project with --no-deps, and the
    stamp that makes a second run reinstall only when pyproject.toml or the lock change
    is the sha256 of the two."""
    if Path("/opt/zatre/.installed").exists():
        pytest.skip("this machine has an install of its own (/opt/zatre/.installed)")
    release_file = tmp_path / "os-release"
    release_file.write_text(f"ID=debian\nVERSION_CODENAME={codename}\n")
    r = subprocess.run([str(INSTALL), "--dry-run", "--keep-hostname"], capture_output=True,
                       text=True, timeout=60,
                       env={**os.environ, "ZATRE_OS_RELEASE": str(release_file)})
    assert r.returncode == 0, r.stderr
    lock = f"/opt/zatre/src/firmware_config/locks/{codename}.txt"
    lines = r.stdout.splitlines()
    hashed = lines.index(f"+ /opt/zatre/venv/bin/pip install --quiet --require-hashes -r {lock}")
    assert lines[hashed + 1] == ("+ /opt/zatre/venv/bin/pip install --quiet --no-deps "
                                 "--no-build-isolation -e /opt/zatre/src")
    stamp = hashlib.sha256((REPO / "pyproject.toml").read_bytes()
                           + (LOCKS / f"{codename}.txt").read_bytes()).hexdigest()
    assert f"+ write /opt/zatre/.installed:\n+     {stamp}" in r.stdout
    count = len(parse_lock(LOCKS / f"{codename}.txt"))
    assert f"python packages ({count} from firmware_config/locks/{codename}.txt" in r.stdout


def test_the_makefile_makes_the_pi_venvs_from_the_locks():
    text = (REPO / "Makefile").read_text()
    assert "PI_LOCK := firmware_config/locks/bookworm.txt" in text
    assert "PI_TRIXIE_LOCK := firmware_config/locks/trixie.txt" in text
    assert "pip install --quiet --require-hashes -r $(3)" in text
    assert "pip install --quiet --no-deps --no-build-isolation -e ." in text
    assert "tests/pi/test_locks.py" in text  # make test-pi runs this file in each venv


def test_nothing_points_at_the_old_constraints_files():
    """One source of truth: the locks (and the .in files they are made from)."""
    assert not (REPO / "firmware_config/constraints").exists()
    for path in [REPO / "Makefile", REPO / "README.md", REPO / "ARCHITECTURE.md",
                 REPO / ".ci/run", REPO / "pyproject.toml", INSTALL,
                 *(REPO / "docs").rglob("*.md"), *(REPO / "zatre_vision").rglob("*.py")]:
        assert "firmware_config/constraints" not in path.read_text(), path


def test_the_lock_files_say_how_to_make_them_again(release):
    head = (LOCKS / f"{release}.txt").read_text().split("\n\n")[0]
    assert "make locks" in head and "make_locks.py" in head and "--require-hashes" in head


# -- in a lock's venv (make test-pi) --------------------------------------------------------
def venv_lock() -> Path:
    marker = Path(sys.prefix) / "zatre-lock"
    if not marker.exists():
        pytest.skip("not a venv made from a lock (make test-pi makes them and runs this)")
    return REPO / marker.read_text().strip()


def test_in_a_lock_venv_every_locked_package_is_installed_at_its_version():
    path = venv_lock()
    for name, item in parse_lock(path).items():
        assert metadata.version(name) == item["version"], name


def test_in_a_lock_venv_the_projects_needs_are_all_in_the_lock():
    """The closure of zatre-vision's requirements (with the pi extra), as installed here,
    is in the lock, and the lock holds nothing else but the build requirements."""
    lock = parse_lock(venv_lock())
    seen, todo = set(), [("zatre-vision", {"pi"})]
    while todo:
        name, extras = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for dep in metadata.requires(name) or []:
            req = Requirement(dep)
            if req.marker is None or any(req.marker.evaluate({"extra": e})
                                         for e in extras | {""}):
                todo.append((canonicalize_name(req.name), set(req.extras)))
    seen.discard("zatre-vision")
    assert seen <= set(lock), f"not locked: {sorted(seen - set(lock))}"
    build = {canonicalize_name(r.name) for r in map(Requirement, tomllib.loads(
        (REPO / "pyproject.toml").read_text())["build-system"]["requires"])}
    assert set(lock) - seen <= build, sorted(set(lock) - seen - build)


def test_in_a_lock_venv_pip_finds_the_lock_satisfied_and_the_venv_consistent(tmp_path):
    """``pip install --require-hashes -r lock`` has nothing left to do (offline:
    --no-index), and an installed package that satisfies a pin is trusted without its
    hash, which is how the OS's numpy passes on the Pi (--system-site-packages)."""
    path = venv_lock()
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    r = subprocess.run(pip + ["install", "--dry-run", "--no-index", "--require-hashes",
                              "-r", str(path)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Would install" not in r.stdout
    other = tmp_path / "lock.txt"  # numpy's hashes replaced by one no wheel has
    other.write_text(re.sub(r"(numpy==\S+ \\\n)(\s+--hash=sha256:\w+ \\\n)*\s+--hash=sha256:\w+",
                            r"\1    --hash=sha256:" + "0" * 64, path.read_text()))
    assert "0" * 64 in other.read_text()
    r = subprocess.run(pip + ["install", "--dry-run", "--no-index", "--require-hashes",
                              "-r", str(other)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    r = subprocess.run(pip + ["check"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr


# -- against PyPI ----------------------------------------------------------------------------
def test_the_hashes_are_pypis_for_the_wheels_the_lock_names(release, lock):
    """Each hash is the sha256 PyPI gives for the wheel file the lock's comment names
    (so the aarch64 hash above is the aarch64 wheel's). Skipped without the network."""
    for name in sorted(lock):
        item = lock[name]
        request = urllib.request.Request(f"https://pypi.org/simple/{name}/", headers={
            "Accept": "application/vnd.pypi.simple.v1+json"})  # PEP 691, as pip reads it
        try:
            with urllib.request.urlopen(request, timeout=20) as response:
                files = json.load(response)["files"]
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            pytest.skip(f"PyPI cannot be reached ({exc}); the hashes were not checked")
        by_file = {f["filename"]: f["hashes"].get("sha256") for f in files}
        for sha in item["hashes"]:
            wheel = item["wheels"][sha[:12]]
            assert by_file.get(wheel) == sha, f"{wheel}: PyPI has {by_file.get(wheel)}"


def test_markers_are_read_as_on_the_pi():
    """The helper above reads the aarch64-only bounds of pyproject.toml as a Pi does."""
    marker = Marker("platform_machine == 'aarch64' and python_version < '3.13'")
    assert marker.evaluate(pi_env("bookworm"))
    assert not marker.evaluate(pi_env("trixie"))
    assert not marker.evaluate(pi_env("bookworm", machine="x86_64"))
