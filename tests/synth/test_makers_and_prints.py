"""Tile sets of other makers and other board prints in training, and the sets and
prints held out of it (issue 43): the held-out ones never appear in training data."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from click.testing import CliRunner

from zatre_vision.rules.board import CELLS, LIGHT, START, row_col
from zatre_vision.synth.board_art import (
    BOARD_PRINTS,
    HELD_OUT_PRINTS,
    PROFILES,
    TRAINING_PRINTS,
    make_board_texture,
)
from zatre_vision.synth.config import BoardConfig, SynthConfig
from zatre_vision.synth.tiles import (
    EVERY_HELD_OUT,
    HELD_OUT_STYLES,
    MAKER_MIN_DISTANCE,
    TileSprites,
    held_out_distance,
    held_out_style,
    maker_style,
    nearest_held_out,
    sample_style,
)


def test_training_makers_never_come_near_a_held_out_set():
    rng = np.random.default_rng(4301)
    styles = [maker_style(rng) for _ in range(400)]
    assert min(nearest_held_out(s) for s in styles) >= MAKER_MIN_DISTANCE
    # the measure tells a held-out set from itself under another lamp: a jittered
    # held-out set would be refused as a training set
    for name in HELD_OUT_STYLES:
        jittered = held_out_style(np.random.default_rng(1), name)
        assert held_out_distance(jittered, HELD_OUT_STYLES[name]) < 0.5 * MAKER_MIN_DISTANCE
    # and the training sets are wide: every shape, finish, and coloured values show up
    assert {s.pip_shape for s in styles} == {"round", "square", "ring"}
    assert {s.pip_finish for s in styles} == {"flat", "hollow", "printed"}
    assert any(s.value_colours for s in styles)
    assert max(s.pip_spacing for s in styles) - min(s.pip_spacing for s in styles) > 0.3


def test_makers_share_is_what_the_config_says_and_zero_leaves_training_as_it_was():
    rng = np.random.default_rng(7)
    plain = SynthConfig().tiles
    assert plain.makers_probability == 0
    for _ in range(50):  # the training ranges alone: round flat pips, one pip colour
        s = sample_style(rng, plain)
        assert (s.pip_shape, s.pip_finish, s.pip_spacing) == ("round", "flat", 0.82)
    half = replace(plain, makers_probability=0.5)
    makers = sum(sample_style(rng, half).pip_spacing != 0.82 for _ in range(200))
    assert 60 < makers < 140


def test_every_held_out_picks_each_held_out_set():
    cfg = SynthConfig().with_tiles(EVERY_HELD_OUT).tiles
    rng = np.random.default_rng(3)
    names = list(HELD_OUT_STYLES)
    picked = set()
    for _ in range(80):
        style = sample_style(rng, cfg)
        d = [held_out_distance(style, HELD_OUT_STYLES[n]) for n in names]
        assert min(d) < 0.5 * MAKER_MIN_DISTANCE     # each photo shows a held-out set
        picked.add(names[int(np.argmin(d))])
    assert picked == set(names)


def test_printed_pips_draw_softer_than_flat_ones():
    rng = np.random.default_rng(5)
    base = maker_style(rng)
    flat = TileSprites(replace(base, pip_finish="flat"), 64).face(1, 0)
    printed = TileSprites(replace(base, pip_finish="printed"), 64).face(1, 0)
    c = flat.shape[0] // 2
    # the middle pip is less dark printed (thin ink) than flat
    assert printed[c, c].mean() > flat[c, c].mean() + 5


def test_training_and_held_out_prints_are_apart():
    assert not set(TRAINING_PRINTS) & set(HELD_OUT_PRINTS)
    assert not set(BOARD_PRINTS) & set(HELD_OUT_PRINTS)
    assert set(TRAINING_PRINTS) <= {"peri", *BOARD_PRINTS}


@pytest.mark.parametrize("name", ["peri", *BOARD_PRINTS, *HELD_OUT_PRINTS])
def test_every_print_has_the_same_grid(name):
    ppc = 24.0
    tex = make_board_texture(np.random.default_rng(11), BoardConfig(), ppc, name)
    grey = tex.image.mean(axis=2)

    def centre(idx: int) -> float:
        r, c = row_col(idx)
        x, y = tex.to_px(c + 0.5, r + 0.5)
        return float(grey[int(y) - 3:int(y) + 4, int(x) - 3:int(x) + 4].mean())

    light = [centre(i) for i in LIGHT if i != START]
    dark = [centre(i) for i in CELLS if i not in LIGHT]
    # the x2 cells are light and the others dark, on every print: the same grid
    assert min(light) > max(np.percentile(dark, 99), 60), name
    r, c = row_col(START)
    x, y = tex.to_px(c + 0.5, r + 0.5)
    start = tex.image[int(y), int(x)].astype(int)
    if PROFILES[name].start_bgr[2] > 200:       # a red centre (every print but "night")
        b, g, rr = start
        assert rr > b + 80 and rr > g + 80, name
    # the start cell is marked apart from the x2 cells, in its own colour
    x2 = np.asarray([tex.image[int(tex.to_px(row_col(i)[1] + 0.5, row_col(i)[0] + 0.5)[1]),
                               int(tex.to_px(row_col(i)[1] + 0.5, row_col(i)[0] + 0.5)[0])]
                     for i in LIGHT if i != START], int)
    assert np.linalg.norm(start - np.median(x2, axis=0)) > 80, name


def test_prints_cycle_over_board_variants():
    cfg = SynthConfig()
    cfg = replace(cfg, board=replace(cfg.board, prints=tuple(HELD_OUT_PRINTS),
                                     textures_per_seed=2))
    from zatre_vision.synth.scene import Renderer

    r = Renderer(cfg, 5, 320, 240)
    a, b = r.board_texture(0)[0].image, r.board_texture(1)[0].image
    assert np.abs(a.astype(int) - b.astype(int)).mean() > 20   # two different prints


def test_train_refuses_a_held_out_print():
    from zatre_vision.apps.vision_cli import train

    res = CliRunner().invoke(train, ["--which", "pips", "--quick", "--prints", "peri,amigo",
                                     "--out", "/nonexistent/x.onnx"])
    assert res.exit_code == 2
    assert "amigo" in res.output
