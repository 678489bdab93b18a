"""One way to write a config: a frozen dataclass whose every field says what it does and,
for a number, the bounds it must lie within.

    @dataclass(frozen=True)
    class MotionConfig(Settings):
        pixel_threshold: float = knob(0.1, 0.0, 1.0, "change of a gate pixel that counts")
        spread: bool = switch("motion is spread to the pixels around it")
        votes: VoteConfig = part(VoteConfig, "per-cell votes over still frames")

``knob`` is a number (int or float, as annotated) with its bounds; ``switch`` a pass or
feature that may be turned off; ``part`` a nested config. Construction refuses a value
of the wrong type or out of bounds with ``SettingsError``, one line naming the field.
``from_dict`` builds a config from a JSON object (a model card's entry, a file) and
refuses an unknown name the same way; ``to_dict`` and ``describe`` give it back, as
values and as one line per field.

No I/O here, and nothing above the foundation floor is imported: every package may use
it.
"""

from __future__ import annotations

import typing
from dataclasses import MISSING, Field, field, fields, is_dataclass
from functools import cache
from typing import Any, TypeVar

S = TypeVar("S", bound="Settings")


class SettingsError(ValueError):
    """A value a config cannot take: one line, naming the field."""


def knob(default: float, low: float, high: float, about: str) -> Any:
    """A tuned or chosen number: its default, the bounds it must lie within, and a
    one-line description."""
    if not low <= default <= high:
        raise SettingsError(f"default {default} outside its own bounds {low}..{high}")
    return field(default=default, metadata={"bounds": (low, high), "about": about})


def switch(about: str, default: bool = True) -> Any:
    """A pass or feature that may be switched off (default on)."""
    return field(default=default, metadata={"about": about, "switch": True})


def part(factory: Any, about: str) -> Any:
    """A nested config, made by ``factory`` when not given."""
    return field(default_factory=factory, metadata={"about": about, "part": True})


@cache
def _hints(cls: type) -> dict[str, Any]:
    """The class's annotated types, resolved once (the modules use postponed
    annotations)."""
    return typing.get_type_hints(cls)


def _kind(cls: type, f: Field) -> Any:
    """The field's annotated type."""
    return _hints(cls)[f.name]


def _part_kind(kind: Any) -> Any:
    """The config class of a part, also where the part may be None (``X | None``,
    a pass switched off); None where the annotation names no config class."""
    if isinstance(kind, type):
        return kind
    inner = [k for k in typing.get_args(kind) if k is not type(None)]
    return inner[0] if len(inner) == 1 and isinstance(inner[0], type) else None


def _checked(owner: str, f: Field, kind: Any, value: Any) -> Any:
    """``value`` as the field takes it (an int given for a float becomes a float), or
    SettingsError in one line."""
    name = f"{owner}.{f.name}"
    meta = f.metadata
    if meta.get("switch"):
        if not isinstance(value, bool):
            raise SettingsError(f"{name} is {value!r}, not true or false")
        return value
    if meta.get("part"):
        part_kind = _part_kind(kind)
        optional = part_kind is not kind
        if part_kind is not None and not isinstance(value, part_kind) \
                and not (optional and value is None):
            raise SettingsError(f"{name} is {type(value).__name__}, not {part_kind.__name__}")
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SettingsError(f"{name} is {value!r}, not a number")
    if kind is int:
        if value != int(value):
            raise SettingsError(f"{name} is {value!r}, not a whole number")
        value = int(value)
    else:
        value = float(value)
    if value != value:  # NaN compares with nothing
        raise SettingsError(f"{name} is not a number (NaN)")
    low, high = meta["bounds"]
    if not low <= value <= high:
        raise SettingsError(f"{name} = {value} is outside {low}..{high} ({meta['about']})")
    return value


class Settings:
    """The base of every config written this way (a frozen dataclass). Its fields are
    made with ``knob``, ``switch`` or ``part``; a field made otherwise is a mistake
    in the config's code, refused (TypeError) the first time one is made."""

    def __post_init__(self) -> None:
        cls = type(self)
        for f in fields(self):  # type: ignore[arg-type]
            if "about" not in f.metadata:
                raise TypeError(f"{cls.__name__}.{f.name}: made without knob, switch or "
                                "part (no bounds, no description)")
            value = _checked(cls.__name__, f, _kind(cls, f), getattr(self, f.name))
            object.__setattr__(self, f.name, value)

    @classmethod
    def switches(cls) -> tuple[str, ...]:
        """The names of the fields that switch a pass or feature."""
        return tuple(f.name for f in fields(cls) if f.metadata.get("switch"))  # type: ignore[arg-type]

    @classmethod
    def from_dict(cls: type[S], raw: Any, where: str | None = None) -> S:
        """The config ``raw`` (a JSON object) gives, the defaults for what it leaves out;
        a nested config from a nested object. SettingsError (one line, starting with
        ``where``, default the class's name) for anything else than an object, an
        unknown name, a wrong type or a value out of bounds."""
        where = where or cls.__name__
        if not isinstance(raw, dict):
            raise SettingsError(f"{where}: not an object")
        known = {f.name: f for f in fields(cls)}  # type: ignore[arg-type]
        unknown = sorted(set(raw) - set(known))
        if unknown:
            raise SettingsError(f"{where}: unknown field {unknown[0]!r} "
                                f"(known: {', '.join(known)})")
        given = {}
        for name, value in raw.items():
            f = known[name]
            if f.metadata.get("part") and value is not None:
                kind = _part_kind(_kind(cls, f))
                if kind is not None and issubclass(kind, Settings):
                    value = kind.from_dict(value, f"{where}.{name}")
            given[name] = value
        try:
            return cls(**given)
        except SettingsError as exc:
            # the message names the class; a card's reader wants the card's own path
            raise SettingsError(str(exc).replace(f"{cls.__name__}.", f"{where}.", 1)
                                ) from None

    def to_dict(self) -> dict:
        """Every field's value, a nested config as an object: ``from_dict`` of it gives
        this config back."""
        out = {}
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            out[f.name] = value.to_dict() if isinstance(value, Settings) else value
        return out

    @classmethod
    def describe(cls, prefix: str = "") -> list[str]:
        """One line per field: name, default, bounds, what it does; a nested config's
        fields follow its own line, named ``part.field``."""
        out = []
        for f in fields(cls):  # type: ignore[arg-type]
            about = f.metadata.get("about", "")
            if f.metadata.get("part"):
                out.append(f"{prefix}{f.name}: {about}")
                kind = _part_kind(_kind(cls, f))
                if kind is not None and issubclass(kind, Settings):
                    out += kind.describe(f"{prefix}{f.name}.")
                continue
            default = f.default if f.default is not MISSING else "(made)"
            bounds = f.metadata.get("bounds")
            span = f" [{bounds[0]}..{bounds[1]}]" if bounds else " (on or off)"
            out.append(f"{prefix}{f.name} = {default}{span}: {about}")
        return out


def is_settings(cls: Any) -> bool:
    """Whether ``cls`` is a config written this way."""
    return isinstance(cls, type) and issubclass(cls, Settings) and is_dataclass(cls)


__all__ = ["Settings", "SettingsError", "is_settings", "knob", "part", "switch"]
