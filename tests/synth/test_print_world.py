"""The print world (issue 61): a new, procedurally varied print for every board drawn,
wide in surface, colours, lines, border art and logos, and never near a held-out
print; the wood-grain and high-contrast dark held-out prints."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zatre_vision.board_prints import held_out_print_names, load_prints
from zatre_vision.synth.board_art import HELD_OUT_PRINTS, draw_print
from zatre_vision.synth.config import BoardConfig, SynthConfig
from zatre_vision.synth.print_world import WORLD, near_held_out, sample_print
from zatre_vision.synth.scene import Renderer
from zatre_vision.training.board_data import BoardDataSpec


def _x2_level(p) -> float:
    return float(np.mean(p.light_level))


def _cell_level(p) -> float:
    b, g, r = p.cell_bgr
    return 0.114 * b + 0.587 * g + 0.299 * r


def test_the_world_spans_surfaces_looks_borders_and_logos():
    prints = [sample_print(np.random.default_rng([61, k])) for k in range(400)]
    assert {p.cells for p in prints} == {"marble", "plain", "wood"}
    assert {p.border_art for p in prints} == {"none", "frame", "band"}
    lighter = sum(_x2_level(p) > _cell_level(p) + 60 for p in prints)
    darker = sum(_x2_level(p) < _cell_level(p) - 60 for p in prints)
    near = sum(abs(_x2_level(p) - _cell_level(p)) <= 45 for p in prints)   # another hue
    assert lighter > 150 and darker > 20 and near > 20
    assert 0.5 < np.mean([p.logo is not None for p in prints]) < 0.9
    assert len({p.logo[0] for p in prints if p.logo}) >= 5
    widths = [p.line_width for p in prints]
    assert min(widths) < 0.02 and max(widths) > 0.08
    line_levels = [np.mean(p.line_level) for p in prints]
    assert min(line_levels) < 80 and max(line_levels) > 200     # dark and light lines


def test_the_world_spans_cell_tones_from_dark_through_mid_to_light():
    """Mid-tone cells under lighter x2 cells (a wood-grain print's look) are in the
    world, not only dark cells under light ones and light cells under darker ones; the
    held-out oak print itself stays out (``near_held_out``)."""
    prints = [sample_print(np.random.default_rng([62, k])) for k in range(400)]
    levels = np.array([_cell_level(p) for p in prints])
    assert (levels < 70).mean() > 0.4 and (levels > 150).mean() > 0.1
    mid_lighter = [p for p in prints if 75 <= _cell_level(p) <= 150
                   and _x2_level(p) > _cell_level(p) + 60]
    assert len(mid_lighter) > 20
    assert {p.cells for p in mid_lighter} == {"marble", "plain", "wood"}


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_no_draw_of_the_world_comes_near_a_held_out_print(seed):
    assert not near_held_out(sample_print(np.random.default_rng(seed)))


def test_each_held_out_print_is_near_itself():
    assert {"amigo", "slate-green", "oak", "night"} <= set(HELD_OUT_PRINTS)
    for p in HELD_OUT_PRINTS.values():
        assert near_held_out(p)


def test_the_wood_and_dark_held_out_prints_are_of_another_character():
    profiles = load_prints()
    assert {"oak", "night"} <= set(held_out_print_names(profiles))
    assert profiles["oak"].cell_texture == "wood"
    night = profiles["night"]
    assert max(night.cell_bgr) < 10 and night.x2_level[0] >= 240 and night.line_width >= 0.05


def test_a_world_board_is_a_new_print_for_each_variant_and_the_same_for_its_seed():
    cfg = SynthConfig()
    cfg = replace(cfg, board=replace(cfg.board, prints=(WORLD,), textures_per_seed=3))
    r = Renderer(cfg, 7, 320, 240)
    a, b = r.board_texture(0)[0].image, r.board_texture(1)[0].image
    again = Renderer(cfg, 7, 320, 240).board_texture(0)[0].image
    assert a.shape == b.shape
    assert np.abs(a.astype(int) - b.astype(int)).mean() > 10      # another print
    assert np.array_equal(a, again)


@pytest.mark.parametrize("surface", ["marble", "plain", "wood"])
def test_every_surface_draws_a_board_with_its_x2_cells_apart(surface):
    rng = np.random.default_rng(3)
    p = replace(sample_print(rng), cells=surface)
    tex = draw_print(rng, BoardConfig(), 12.0, p)
    assert tex.image.dtype == np.uint8 and tex.image.std() > 5


def test_board_training_data_may_ask_for_the_world_but_never_a_held_out_print():
    assert WORLD in BoardDataSpec(1, 8, prints=("peri", WORLD)).print_names()
    with pytest.raises(ValueError, match="held-out"):
        BoardDataSpec(1, 8, prints=(WORLD, "oak")).print_names()
