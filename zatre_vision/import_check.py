"""Do the compiled libraries import here? One line, for install.sh and ``zatre doctor``.

Each module is imported in a child process of its own, so that a library that kills
its process (onnxruntime built for a newer CPU dies with SIGILL on a Pi 4) or half
loads (picamera2's simplejpeg against the wrong numpy raises ValueError "numpy.dtype
size changed") is reported as a line, and the others are still tried.

    python -m zatre_vision.import_check numpy cv2 onnxruntime picamera2

prints ``imports OK: numpy 1.24.2, cv2 4.11.0, ...`` and exits 0, or ``imports FAILED:
...`` and exits 1.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from dataclasses import dataclass

DEFAULT_MODULES = ("numpy", "cv2", "onnxruntime")
DETAIL_CHARS = 160

# The child: import the module, print its version; any exception as one line, exit 1.
_CHILD = (
    "import importlib, sys\n"
    "name = sys.argv[1]\n"
    "try:\n"
    "    m = importlib.import_module(name)\n"
    "except BaseException as exc:\n"
    "    print(' '.join(f'{exc.__class__.__name__}: {exc}'.split()))\n"
    "    sys.exit(1)\n"
    "print(getattr(m, '__version__', '') or 'ok')\n"
)


@dataclass(frozen=True)
class ImportResult:
    module: str
    ok: bool
    detail: str  # the version, or why not

    def text(self) -> str:
        return f"{self.module} {self.detail}" if self.ok else f"{self.module} ({self.detail})"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def check_module(name: str, python: str = sys.executable, timeout: float = 120.0
                 ) -> ImportResult:
    """Import ``name`` in a child ``python``; never raises."""
    try:
        out = subprocess.run([python, "-c", _CHILD, name], capture_output=True, text=True,
                             timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return ImportResult(name, False, f"no answer within {timeout:g} s")
    except OSError as exc:
        return ImportResult(name, False, f"cannot run {python}: {exc.strerror or exc}")
    lines = [ln for ln in out.stdout.splitlines() if ln.strip()]
    last = lines[-1].strip() if lines else ""
    if out.returncode == 0:
        return ImportResult(name, True, last[:DETAIL_CHARS] or "ok")
    if out.returncode < 0:
        sig = _signal_name(-out.returncode)
        why = " (illegal instruction: this build does not run on this CPU)" \
            if sig == "SIGILL" else ""
        return ImportResult(name, False, f"the import killed the process with {sig}{why}")
    return ImportResult(name, False, (last or f"exit status {out.returncode}")[:DETAIL_CHARS])


def check_imports(modules=DEFAULT_MODULES, python: str = sys.executable,
                  run=check_module) -> tuple[bool, str]:
    """(all imported, the one-line verdict)."""
    results = [run(m, python) for m in modules]
    bad = [r for r in results if not r.ok]
    good = ", ".join(r.text() for r in results if r.ok)
    if not bad:
        return True, f"imports OK: {good}"
    line = "imports FAILED: " + "; ".join(r.text() for r in bad)
    return False, line + (f"; OK: {good}" if good else "")


def main(argv: list[str] | None = None) -> int:
    modules = tuple(argv if argv is not None else sys.argv[1:]) or DEFAULT_MODULES
    ok, line = check_imports(modules)
    print(line)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
