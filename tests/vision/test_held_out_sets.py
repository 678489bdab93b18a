"""Real rendered photos of a board print and a tile set that training never saw
(``synth.board_art.HELD_OUT_PRINTS``, ``synth.tiles.HELD_OUT_STYLES``) through the real
reader: the board is found where it lies, and no cell is read wrong without a flag."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from zatre_vision.synth.config import SynthConfig
from zatre_vision.synth.scene import Renderer
from zatre_vision.synth.tiles import HELD_OUT_STYLES, sample_pose
from zatre_vision.vision.geometry import CELL_NAMES

SIZE = (960, 720)
#: every held-out tile set ("tiny-wide", tiny dark blue pips spread to the corners, was
#: read wrong without a flag by the network before issue 60: 2 cells on this photo; its
#: strict xfail passed with the network that landed then, and is gone)
STYLES = list(HELD_OUT_STYLES)


def _photo(cfg: SynthConfig, seed: int) -> tuple[np.ndarray, dict]:
    """A board with 40 tiles, no hand."""
    r = Renderer(cfg, 4343, *SIZE)
    rng = np.random.default_rng([4343, seed])
    setup = r.sample_setup(rng)
    names = [CELL_NAMES[i] for i in rng.choice(len(CELL_NAMES), 40, replace=False)]
    tiles = {n: sample_pose(rng, cfg.tiles, int(rng.integers(1, 7))) for n in names}
    return r.render(setup, tiles, [], rng)


def _silent(res, truth: dict) -> list[str]:
    """Cells read with a wrong value (a missed tile included) and not flagged
    uncertain; a board not found reports nothing."""
    if not res.board_found:
        return []
    unc = set(res.uncertain)
    return [n for n in CELL_NAMES if n not in unc
            and res.cells.get(n, 0) != truth["cells"].get(n, 0)]


def _found_where_it_lies(res, truth: dict) -> bool:
    err = np.linalg.norm(np.array(res.corners) - np.array(truth["corners"]), axis=1).max()
    return bool(res.board_found and err < 0.5 * res.model.cell_size_px())


@pytest.mark.parametrize("seed", [1, 2])
def test_held_out_board_print_amigo(reader, seed):
    """The edition the issue describes (black cells, white x2 cells, red start, dark
    lines, a red border): never silently wrong; found where it lies on the first photo."""
    cfg = SynthConfig()
    cfg = replace(cfg, board=replace(cfg.board, prints=("amigo",)))
    img, truth = _photo(cfg, seed)
    res = reader.read(img)
    assert _silent(res, truth) == []
    if seed == 1:
        assert _found_where_it_lies(res, truth)
        assert len(res.uncertain) <= 10


def test_held_out_board_print_slate_green_never_silently_wrong(reader):
    """Green marble, near-white x2 cells, grey lines, a beige border: the board finder
    and the print proof do not always place this print (see the benchmark), but what is
    read is never wrong without a flag."""
    cfg = SynthConfig()
    cfg = replace(cfg, board=replace(cfg.board, prints=("slate-green",)))
    for seed in (1, 2):
        img, truth = _photo(cfg, seed)
        res = reader.read(img)
        assert _silent(res, truth) == []


@pytest.mark.parametrize("style", STYLES)
def test_held_out_tile_set(reader, style):
    """Found where it lies, and never wrong without a flag (the reader may leave every
    cell uncertain: grey-small and square-pips are, on this photo)."""
    img, truth = _photo(SynthConfig().with_tiles(style), 1)
    res = reader.read(img)
    assert _found_where_it_lies(res, truth)
    assert _silent(res, truth) == []
