"""A hypothesis strategy for hands that could really come out of the bag (or deck)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from hypothesis import assume
from hypothesis import strategies as st


@st.composite
def hands_from_bag(draw, in_set: Mapping[int, int], laid: Iterable[int],
                   values: Iterable[int] | None = None) -> list[int]:
    """1-3 pieces drawn from what the set still holds beside the ``laid`` ones: no value
    more often, laid and in hand together, than ``in_set`` allows. (Two 5s beside 19 on
    the board cannot be drawn, and no move with them would be legal.)"""
    left = Counter(in_set)
    left.subtract(laid)
    allowed = sorted(in_set if values is None else values)
    hand: list[int] = []
    for _ in range(draw(st.integers(1, 3))):
        available = [v for v in allowed if left[v] > 0]
        if not available:
            break
        value = draw(st.sampled_from(available))
        hand.append(value)
        left[value] -= 1
    assume(hand)
    return hand
