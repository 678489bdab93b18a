"""The board search's fallbacks as switches, and where each one's setting comes from.

``BoardLocator`` starts from the board network's outline and its grid fit. Each
fallback below was added for photos that once failed; ``training/fit_locator.py``
switches each off in turn on the fitting seeds (never the bench seeds); a refiner
(``border_moves``, ``line_refit``) stays on only where it pays (boards found, none a
cell off), a last resort (``LAST_RESORT``) stays on whatever the ablation says. The board model's card records the
result (``locate_fallbacks``) and ``BoardLocator`` loads it; a card without the entry
(or no board model) keeps every fallback on.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

#: what each fallback does, in the order the search reaches them
ABOUT = {
    "border_moves": "refine: a fit over bright table moved whole cells onto the board "
                    "(find_board.onto_the_board)",
    "line_search": "propose: the classical line search when the network's fit is not "
                   "clearly good (locate.locate)",
    "line_refit": "refine: the line search's result fitted again from its corners "
                  "(BoardLocator._refitted)",
    "corner_moves": "propose: the network's outline with one corner moved whole cells "
                    "(find_board.one_corner_off)",
    "mirrored": "propose: the network's outline of the mirrored frame "
                "(find_board.mirrored_corners)",
    "texture": "propose: fits from the textured region's outline (find_board.texture_fit)",
}


#: the fallbacks that run only where the board network's own fit did not stand (no
#: board found yet, or only faint lines): they cost nothing on a board already found, and
#: the fitting split, whose prints the network was trained on, cannot show what they are
#: worth on a print it never saw. The ablation never switches these off (issue 60's
#: rule); it may switch off only the refiners, which run on boards already found.
LAST_RESORT = ("line_search", "corner_moves", "mirrored", "texture")


class FallbacksError(ValueError):
    """A board model card's ``locate_fallbacks`` that cannot be used (one line)."""


@dataclass(frozen=True)
class LocateFallbacks:
    """Which of the board search's fallbacks run (see ``ABOUT``)."""

    border_moves: bool = True
    line_search: bool = True
    line_refit: bool = True
    corner_moves: bool = True
    mirrored: bool = True
    texture: bool = True

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    @classmethod
    def from_card(cls, card: dict | None) -> LocateFallbacks:
        """The switches a board model's card gives (``locate_fallbacks.switches``);
        every one on where the card has no such entry."""
        entry = (card or {}).get("locate_fallbacks")
        if entry is None:
            return cls()
        switches = entry.get("switches") if isinstance(entry, dict) else None
        if not isinstance(switches, dict):
            raise FallbacksError("locate_fallbacks: no 'switches' object")
        unknown = sorted(set(switches) - set(cls.names()))
        if unknown:
            raise FallbacksError(f"locate_fallbacks: unknown switch {unknown[0]!r} "
                                 f"(known: {', '.join(cls.names())})")
        for name, value in switches.items():
            if not isinstance(value, bool):
                raise FallbacksError(f"locate_fallbacks.{name}: {value!r} is not "
                                     "true or false")
        return cls(**switches)

    def without(self, name: str) -> LocateFallbacks:
        """These switches with ``name`` off (the ablation's arms)."""
        if name not in self.names():
            raise FallbacksError(f"no fallback {name!r}")
        return LocateFallbacks(**{**asdict(self), name: False})

    def as_dict(self) -> dict[str, bool]:
        return asdict(self)


__all__ = ["ABOUT", "LAST_RESORT", "FallbacksError", "LocateFallbacks"]
