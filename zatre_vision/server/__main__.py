"""``python -m zatre_vision.server``: ``zatre serve`` on its own."""

from ..errors import run_guarded
from .cli import serve


def main() -> None:
    run_guarded(lambda: serve.main(standalone_mode=False, prog_name="zatre serve"))


if __name__ == "__main__":
    main()
