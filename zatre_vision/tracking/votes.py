"""Per-cell votes over still frames: a cell counts only once its reads have settled."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..settings import Settings, SettingsError, knob


@dataclass(frozen=True)
class VoteConfig(Settings):
    window: int = knob(4, 1, 100, "reads kept per cell")
    settle: int = knob(2, 1, 100, "agreeing reads in a row before a cell's value counts "
                                  "(\"two settled reads\")")

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.settle > self.window:
            raise SettingsError(f"VoteConfig.settle = {self.settle} is more than the "
                                f"{self.window} reads kept (window): no cell would settle")


class CellVotes:
    """The settled value of every cell seen so far (None = empty).

    Each still frame gives, per cell, a value (None when empty; a value otherwise,
    which may be 0 for a card game's zero card), or nothing when the cell is hidden
    or unsure: those cells keep their settled value (held, not read). A cell settles
    on a value when its last ``settle`` reads agree.
    """

    def __init__(self, config: VoteConfig | None = None):
        self.config = config or VoteConfig()
        self._reads: dict[str, deque[int | None]] = {}
        self._settled: dict[str, int | None] = {}

    def add(self, reads: Mapping[str, int | None], held: Iterable[str] = ()) -> None:
        """One still frame: ``reads`` maps every readable cell to its value or None
        (empty); ``held`` cells (hidden or unsure) are skipped and keep their state."""
        held = set(held)
        for cell, value in reads.items():
            if cell in held:
                continue
            q = self._reads.get(cell)
            if q is None:
                q = self._reads[cell] = deque(maxlen=self.config.window)
            q.append(value)
            n = self.config.settle
            if len(q) >= n and len(set(list(q)[-n:])) == 1:
                self._settled[cell] = value

    def settled(self) -> dict[str, int]:
        """Occupied cells whose value has settled."""
        return {c: v for c, v in self._settled.items() if v is not None}

    def value(self, cell: str) -> int | None:
        """The settled value of ``cell``; None when it is (or is taken to be) empty."""
        return self._settled.get(cell)

    def latest(self, cell: str) -> int | None:
        """The last value read on ``cell`` (None: empty, or never read)."""
        q = self._reads.get(cell)
        return q[-1] if q else None

    def unsettled(self) -> set[str]:
        """Cells whose latest reads disagree with their settled value."""
        out = set()
        for cell, q in self._reads.items():
            if q and q[-1] != self._settled.get(cell):
                out.add(cell)
        return out

    def reset(self, board: Mapping[str, int] | None = None) -> None:
        """Forget all reads, optionally starting from a known board."""
        self._reads.clear()
        self._settled = dict(board or {})
