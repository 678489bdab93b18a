"""Which of the board search's fallbacks run: the proposers and refine steps switched on,
and where that comes from.

The board network's proposal (``proposers.Network``) always runs. Each fallback below
was added for photos that once failed: four proposers that run only where nothing
earlier proposed a grid that proved (``LAST_RESORT``), and two steps of the shared
refine (``pipeline.refine``). ``training/fit_locator.py`` switches each off in turn on
the fitting seeds (never the bench seeds); a refine step stays on only where it pays
(boards found, none a cell off), a last resort stays on whatever the ablation says. The
board model's card records the result (``locate_fallbacks.switches``: one true or
false per name) and ``pipeline.BoardLocator`` loads it; a card without the entry (or
no board model) keeps every fallback on.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ...settings import Settings, SettingsError, switch

#: what each fallback does, in the order the search reaches them
ABOUT = {
    "border_moves": "refine: a fit over bright table moved whole cells onto the board "
                    "(find_board.onto_the_board)",
    "line_search": "propose: the classical line search (proposers.LineSearch, "
                   "locate.locate)",
    "line_refit": "refine: a grid not made by the grid fit (the line search's) fitted "
                  "again from its corners (pipeline.refine)",
    "corner_moves": "propose: the network's outline with one corner moved whole cells "
                    "(proposers.CornerMoves)",
    "mirrored": "propose: the network's outline of the mirrored frame "
                "(proposers.Mirrored)",
    "texture": "propose: fits from the textured region's outline (proposers.Texture)",
}

#: every switch a card may name, in ``ABOUT``'s order
NAMES = tuple(ABOUT)

#: the proposers among the fallbacks: they run only where the board network's own fit
#: did not prove itself (no board found yet); they cost nothing on a board already
#: found, and the fitting split, whose prints the network was trained on, cannot show
#: what they are worth on a print it never saw. The ablation never switches these off
#: (issue 60's rule); it may switch off only the refine steps, which run on every
#: candidate.
LAST_RESORT = ("line_search", "corner_moves", "mirrored", "texture")

#: the refine steps among the fallbacks (``pipeline.refine``)
REFINE_STEPS = ("border_moves", "line_refit")


class FallbacksError(SettingsError):
    """A board model card's ``locate_fallbacks`` that cannot be used (one line)."""


@dataclass(frozen=True)
class LocateFallbacks(Settings):
    """The fallbacks switched on; every one by default (written as every config is,
    ``settings.Settings``: one switch per fallback). ``name in fallbacks`` says whether
    one runs; ``on`` names those that do, in ``NAMES``' order."""

    border_moves: bool = switch(ABOUT["border_moves"])
    line_search: bool = switch(ABOUT["line_search"])
    line_refit: bool = switch(ABOUT["line_refit"])
    corner_moves: bool = switch(ABOUT["corner_moves"])
    mirrored: bool = switch(ABOUT["mirrored"])
    texture: bool = switch(ABOUT["texture"])

    def __contains__(self, name: str) -> bool:
        return name in NAMES and getattr(self, name)

    @property
    def on(self) -> tuple[str, ...]:
        """The fallbacks switched on, in ``NAMES``' order."""
        return tuple(n for n in NAMES if getattr(self, n))

    @staticmethod
    def names() -> tuple[str, ...]:
        return NAMES

    @property
    def proposers(self) -> tuple[str, ...]:
        """The proposers switched on, in the order they run."""
        return tuple(n for n in self.on if n in LAST_RESORT)

    @classmethod
    def of(cls, on: tuple[str, ...] | list[str]) -> LocateFallbacks:
        """These fallbacks on (names from ``NAMES``), the rest off."""
        unknown = [n for n in on if n not in NAMES]
        if unknown:
            raise FallbacksError(f"unknown fallback {unknown[0]!r} "
                                 f"(known: {', '.join(NAMES)})")
        return cls(**{n: n in on for n in NAMES})

    @classmethod
    def switched(cls, **switches: bool) -> LocateFallbacks:
        """Every fallback on except those given False (``switched(texture=False)``)."""
        return cls._from(switches, "locate_fallbacks.switches")

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
        return cls._from(switches, "locate_fallbacks.switches")

    @classmethod
    def _from(cls, switches: dict, where: str) -> LocateFallbacks:
        try:
            return cls.from_dict(switches, where)
        except SettingsError as exc:
            raise FallbacksError(str(exc)) from None

    def without(self, name: str) -> LocateFallbacks:
        """These fallbacks with ``name`` off (the ablation's arms)."""
        if name not in NAMES:
            raise FallbacksError(f"no fallback {name!r}")
        return replace(self, **{name: False})

    def as_dict(self) -> dict[str, bool]:
        """One true or false per name (the card's ``locate_fallbacks.switches``)."""
        return self.to_dict()


__all__ = ["ABOUT", "LAST_RESORT", "NAMES", "REFINE_STEPS", "FallbacksError",
           "LocateFallbacks"]
