"""Which renderer ranges the training photos are drawn from, by name.

A recipe names its world (``TrainConfig.world``) rather than holding a ``SynthConfig``,
so the name goes into the model card and the chunk cache's key. "default" is
``SynthConfig()``, the training ranges every committed model learnt from; any other
name is a ``SynthConfig`` class method without arguments (``SynthConfig.real_room()``
where this checkout has it). Before any rendering, ``check_world`` refuses a name this
checkout does not have, in one line.
"""

from __future__ import annotations

import inspect

DEFAULT_WORLD = "default"


class WorldError(ValueError):
    """A world name this checkout's ``SynthConfig`` does not offer."""


def _factories() -> dict[str, object]:
    from ..synth.config import SynthConfig

    out = {}
    for name, attr in vars(SynthConfig).items():
        if isinstance(attr, classmethod) and not name.startswith("_"):
            params = list(inspect.signature(getattr(SynthConfig, name)).parameters.values())
            if all(p.default is not inspect.Parameter.empty for p in params):
                out[name] = getattr(SynthConfig, name)
    return out


def world_names() -> list[str]:
    """"default" and every ``SynthConfig`` factory callable without arguments."""
    return [DEFAULT_WORLD, *sorted(_factories())]


def check_world(name: str) -> str:
    """``name`` when this checkout can render it; ``WorldError`` (one line) otherwise."""
    if name != DEFAULT_WORLD and name not in _factories():
        raise WorldError(f"world {name!r}: SynthConfig has no {name}() in this checkout "
                         f"(known: {', '.join(world_names())})")
    return name


def world_config(name: str):
    """The ``SynthConfig`` of the world ``name``."""
    from ..synth.config import SynthConfig

    check_world(name)
    return SynthConfig() if name == DEFAULT_WORLD else _factories()[name]()
