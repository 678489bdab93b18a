"""The 121 tiles and the bag they are drawn from."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable

#: How many tiles of each value the set holds: 21 ones and 20 each of 2..6.
TILE_SET: dict[int, int] = {1: 21, 2: 20, 3: 20, 4: 20, 5: 20, 6: 20}
TILE_COUNT = sum(TILE_SET.values())  # 121
VALUES = tuple(TILE_SET)


#: Tiles in the starting player's first hand (the start-draw tile and two more), all
#: placed on the first turn (rules.md, placing tiles, 1)
FIRST_HAND = 3


def is_tile_value(value: object) -> bool:
    """True for an int 1..6 (bools are not tiles)."""
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 6


def excess_values(tiles: Iterable[int]) -> dict[int, int]:
    """Values that occur more often than the set holds, with their count."""
    counts = Counter(tiles)
    return {v: n for v, n in sorted(counts.items()) if v in TILE_SET and n > TILE_SET[v]}


class EmptyBagError(RuntimeError):
    pass


class Bag:
    """The cloth bag: tiles drawn blind, with an injected random generator."""

    def __init__(self, rng: random.Random, tiles: Iterable[int] | None = None):
        self._rng = rng
        if tiles is None:
            tiles = [v for v, n in TILE_SET.items() for _ in range(n)]
        self._tiles: list[int] = list(tiles)

    def __len__(self) -> int:
        return len(self._tiles)

    def draw(self) -> int:
        if not self._tiles:
            raise EmptyBagError("the bag is empty")
        k = self._rng.randrange(len(self._tiles))
        self._tiles[k], self._tiles[-1] = self._tiles[-1], self._tiles[k]
        return self._tiles.pop()

    def draw_up_to(self, n: int) -> list[int]:
        return [self.draw() for _ in range(min(n, len(self._tiles)))]

    def put_back(self, tiles: Iterable[int]) -> None:
        self._tiles.extend(tiles)

    def contents(self) -> Counter[int]:
        """What is left, for simulations and the blocked-game check (not visible at a table)."""
        return Counter(self._tiles)
