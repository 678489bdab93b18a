"""``vision/judge.py``: one score of a photo, its sums, the raw-count harms the fits use,
and the gate's one-sided exact tests."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from zatre_vision.bench.gate import judge_pair, pooled_verdict
from zatre_vision.vision.geometry import CELL_NAMES
from zatre_vision.vision.judge import (
    A_CELL_OFF,
    SIGNIFICANCE,
    PhotoScore,
    Tally,
    binomial_tail,
    corner_error_cells,
    count_test,
    harms,
    mcnemar,
    score_photo,
    set_tests,
)

SQUARE = np.array([[100.0, 100.0], [400.0, 100.0], [400.0, 400.0], [100.0, 400.0]])
CELL = 20.0


def test_a_photo_is_scored_once_silent_uncertain_hidden_and_off():
    truth = np.zeros(len(CELL_NAMES), int)
    truth[:4] = [1, 2, 3, 4]
    hidden = np.zeros(len(CELL_NAMES), bool)
    hidden[3] = True                                   # a hand over the 4
    cells = {CELL_NAMES[0]: 1, CELL_NAMES[1]: 5, CELL_NAMES[9]: 6}   # 2 read 5; a 6 on empty
    s = score_photo(board=True, truth=truth, hidden=hidden, truth_corners=SQUARE,
                    found=True, corners=SQUARE + [0.4 * CELL, 0], cell_px=CELL,
                    cells=cells, uncertain={CELL_NAMES[2], CELL_NAMES[3]}, names=CELL_NAMES)
    assert (s.silent, s.uncertain, s.visible) == (2, 1, len(CELL_NAMES) - 1)
    assert s.corner_error == pytest.approx(0.4) and not s.off and s.on_grid
    assert not s.exact and not s.many_silent
    off = score_photo(board=True, truth=truth, truth_corners=SQUARE, found=True,
                      corners=SQUARE + [0, A_CELL_OFF * CELL], cell_px=CELL,
                      cells={CELL_NAMES[j]: int(truth[j]) for j in range(4)},
                      names=CELL_NAMES)
    assert off.off and not off.on_grid and off.exact        # right cells, wrong grid


def test_a_board_not_found_reports_nothing_silent_and_a_false_board_is_counted():
    truth = np.zeros(len(CELL_NAMES), int)
    truth[:5] = 3
    missed = score_photo(board=True, truth=truth, found=False, names=CELL_NAMES)
    assert (missed.silent, missed.missed, missed.found) == (0, 5, False)
    ghost = score_photo(board=False, found=True)
    assert ghost.false_board and not ghost.exact
    t = Tally.of([missed, ghost])
    assert (t.photos, t.boards, t.found, t.false_boards, t.visible) == (2, 1, 0, 1, 193)


def test_corner_error_is_the_worst_corner_in_cells():
    moved = SQUARE.copy()
    moved[2] += [30.0, 40.0]                           # 50 px = 2.5 cells
    assert corner_error_cells(moved, SQUARE, CELL) == pytest.approx(2.5)


@given(st.integers(0, 60), st.integers(0, 60))
def test_the_binomial_tail_is_the_exact_sum(b, n):
    p = binomial_tail(b, n)
    want = 1.0 if b <= 0 else 0.0 if b > n else sum(comb(n, k) for k in range(b, n + 1)) / 2 ** n
    assert p == pytest.approx(want, abs=1e-12)
    assert 0.0 <= p <= 1.0


@given(st.integers(0, 40), st.integers(0, 40))
def test_the_count_test_is_monotone_and_never_faults_a_candidate_no_worse(a, b):
    p = count_test(a, b)
    if b <= a:
        assert p >= 0.5                         # no worse is never significantly worse
    assert count_test(a, b + 1) <= p            # one more against it: no larger P
    assert count_test(a + 1, b) >= p            # one more for the base: no smaller P


def test_one_or_two_cells_on_a_small_set_are_noise_but_a_real_gap_is_not():
    assert count_test(1, 2) > SIGNIFICANCE      # the held-out prints, 1 -> 2
    assert count_test(0, 2) > SIGNIFICANCE      # the scanned board, 0 -> 2
    assert count_test(1, 3) > SIGNIFICANCE
    assert count_test(0, 5) < SIGNIFICANCE      # 1/32
    assert count_test(2, 10) < SIGNIFICANCE
    assert count_test(29, 2) == pytest.approx(1.0, abs=1e-6)


@given(st.lists(st.tuples(st.booleans(), st.booleans()), max_size=80))
def test_mcnemar_counts_only_the_photos_the_two_disagree_on(pairs):
    base = [x for x, _ in pairs]
    trial = [y for _, y in pairs]
    a, b, p = mcnemar(base, trial)
    assert a == sum(x and not y for x, y in pairs) and b == sum(y and not x for x, y in pairs)
    assert p == count_test(a, b)
    # photos both failed, or neither, change nothing
    assert mcnemar(base + [True, False], trial + [True, False]) == (a, b, p)


def _photos(silent: list[int], found: list[bool] | None = None) -> list[PhotoScore]:
    found = found or [True] * len(silent)
    return [PhotoScore(True, f, silent=s if f else 0, visible=193)
            for s, f in zip(silent, found, strict=True)]


def test_a_set_fails_only_where_a_figure_is_significantly_worse():
    base = _photos([0] * 60)
    _, why = judge_pair(base, _photos([1, 1] + [0] * 58), board_changed=False)
    assert why == []                                           # 0 -> 2 silent: noise
    _, why = judge_pair(base, _photos([2, 2, 1] + [0] * 57), board_changed=False)
    assert why and why[0].startswith("silent cells 0 -> 5")
    # boards lost count only where the board network changes
    lost = _photos([0] * 60, [False] * 5 + [True] * 55)
    assert judge_pair(base, lost, board_changed=False)[1] == []
    rows, why = judge_pair(base, lost, board_changed=True)
    assert any(w.startswith("boards not found 0 -> 5") for w in why)
    row = next(r for r in rows if r["figure"] == "boards not found")
    assert (row["only_base_failed"], row["only_trial_failed"]) == (0, 5)


def test_paired_sets_must_be_the_same_photos():
    with pytest.raises(ValueError, match="differ in length"):
        set_tests(_photos([0, 0]), _photos([0]), location=False)


def test_the_pooled_rule_is_raw_counts():
    a = Tally(photos=100, boards=100, found=95, on_grid=94, off=1, silent=58, many_silent=2)
    assert pooled_verdict(a, Tally(photos=100, boards=100, found=95, on_grid=94, off=1,
                                   silent=16), board_changed=True) == []
    assert pooled_verdict(a, Tally(photos=100, boards=100, found=95, on_grid=94, off=1,
                                   silent=59), board_changed=False) == ["silent cells 58 -> 59"]
    worse = Tally(photos=100, boards=100, found=94, on_grid=92, off=2, silent=3)
    assert pooled_verdict(a, worse, board_changed=False) == []
    assert pooled_verdict(a, worse, board_changed=True) == ["boards found 95 -> 94",
                                                            "boards a cell off 1 -> 2"]


def test_harms_by_reading_and_by_location():
    a = Tally(boards=10, found=9, on_grid=9, silent=3, many_silent=0)
    assert harms(a, a, location=True) == []
    assert harms(a, Tally(boards=10, found=9, on_grid=9, silent=3, many_silent=1)) == [
        "boards with 5+ silent 0 -> 1"]
    assert harms(a, Tally(boards=10, found=10, on_grid=10, silent=3, false_boards=1),
                 reading=False, location=True) == ["false boards 0 -> 1"]
