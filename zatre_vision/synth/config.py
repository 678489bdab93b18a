"""Every randomisation range of the synthetic renderer, in one place.

``SynthConfig()`` is the default used for training data and tests; ``SynthConfig.wide()``
widens the ranges for held-out benchmarks (harder light, stronger lenses, more blur).
A range is a ``(low, high)`` tuple sampled uniformly unless a field says otherwise.
Lengths on the board plane are in grid units (one cell = 1.0); ``cell_mm`` converts.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

Range = tuple[float, float]


@dataclass(frozen=True)
class LensConfig:
    """One lens: 4:3 horizontal field of view and radial distortion (render model)."""

    name: str
    hfov_deg: Range
    #: undistorted = distorted * (1 + k1 r^2 + k2 r^4), normalised coordinates (barrel > 0)
    k1: Range
    k2: Range


@dataclass(frozen=True)
class CameraConfig:
    #: Pi Camera Module 3 (4.74 mm, ~54 deg in 4:3 crop) and its wide version (~83 deg).
    lenses: tuple[LensConfig, ...] = (
        LensConfig("pi-camera-3", (50.0, 57.0), (0.0, 0.04), (0.0, 0.01)),
        LensConfig("pi-camera-3-wide", (78.0, 86.0), (0.06, 0.16), (0.0, 0.04)),
    )
    lens_weights: tuple[float, ...] = (0.6, 0.4)
    tilt_deg: Range = (0.0, 30.0)          # optical axis away from vertical
    roll_deg: Range = (-45.0, 45.0)        # board turned in the image
    fill: Range = (0.5, 0.95)              # grid bounding-box height / frame height
    centre_offset: Range = (-3.0, 3.0)     # aim point around the board centre (grid units)
    edge_margin: float = 0.02              # grid corners stay this far inside the frame
    #: share of photos whose grid is then pushed against one side of the frame, its
    #: edge ``edge_gap_cells`` cells from the frame's edge (the printed border, about
    #: 0.9 cell wide, leaves the frame); 0: none (the training ranges: their photos stay
    #: as they were drawn)
    edge_probability: float = 0.0
    edge_gap_cells: Range = (0.05, 1.2)
    principal_jitter: Range = (-0.02, 0.02)  # principal point offset (fraction of size)
    game_jitter_deg: float = 0.03          # per-frame wobble of a fixed camera in a game


@dataclass(frozen=True)
class BoardConfig:
    textures_per_seed: int = 3             # marble variants generated per run
    vein_strength: Range = (0.55, 1.0)
    cloud_strength: Range = (0.1, 0.35)
    base_level: Range = (10.0, 24.0)       # marble black (0-255)
    light_cell_level: Range = (175.0, 205.0)
    line_level: Range = (205.0, 240.0)
    fold_visibility: Range = (0.2, 1.0)
    tint: Range = (-2.5, 2.5)              # per-channel colour cast of the print
    #: the print of board variant k is ``prints[k % len(prints)]`` ("peri": the Peri
    #: edition; others: ``board_art.BOARD_PRINTS`` and ``HELD_OUT_PRINTS``)
    prints: tuple[str, ...] = ("peri",)


@dataclass(frozen=True)
class TileConfig:
    #: BGR colours of the tile body: off-white, ivory, cream
    colours: tuple[tuple[int, int, int], ...] = (
        (238, 240, 240), (215, 232, 240), (196, 222, 236), (226, 236, 242), (205, 225, 232),
    )
    colour_jitter: float = 8.0
    ceramic_probability: float = 0.35      # ceramic: glossier, sharper bevel
    size: Range = (0.80, 0.88)             # side, in cells
    corner_radius: Range = (0.08, 0.16)    # fraction of the side
    height: Range = (0.16, 0.26)           # thickness, in cells (5 mm on a 25 mm cell)
    angle_deg: Range = (-7.0, 7.0)         # small turn within the cell
    offset: Range = (-0.06, 0.06)          # shift within the cell, in cells
    pip_radius: Range = (0.075, 0.095)     # fraction of the side
    pip_colours: tuple[tuple[int, int, int], ...] = ((30, 28, 28), (40, 30, 25), (25, 25, 60))
    #: "training": the ranges above; else the name of a held-out tile set
    #: (``tiles.HELD_OUT_STYLES``) drawn on every photo instead
    style: str = "training"
    #: share of photos whose tiles are of another maker (``tiles.maker_style``: wide
    #: ranges of pip spacing, size, shape, finish and colour, body colour, size and
    #: thickness, never near a held-out set); 0 keeps the photos as they were drawn
    makers_probability: float = 0.0


@dataclass(frozen=True)
class LightConfig:
    lamps: tuple[int, int] = (1, 2)
    exposure: Range = (0.65, 1.15)
    ambient: Range = (0.35, 0.75)
    hotspot_strength: Range = (0.2, 0.7)
    hotspot_sigma: Range = (0.25, 0.8)     # fraction of the frame diagonal
    glare_probability: float = 0.35        # a specular lamp reflection on the board
    glare_strength: Range = (20.0, 90.0)
    kelvin: Range = (2700.0, 6500.0)
    white_balance: Range = (0.5, 0.95)     # how much the camera corrects the cast
    vignette: Range = (0.0, 0.35)
    shadow_offset: Range = (0.05, 0.35)    # tile shadow length, in cells
    shadow_darkness: Range = (0.25, 0.6)
    head_shadow_probability: float = 0.25
    exposure_drift: float = 0.015          # per frame, random walk (games)


@dataclass(frozen=True)
class OccluderConfig:
    photo_hand_probability: float = 0.35   # photos with one or two arms in view
    second_hand_probability: float = 0.2
    hold_tile_probability: float = 0.5
    sleeve_probability: float = 0.75
    skin_tones: tuple[tuple[int, int, int], ...] = (
        (170, 195, 235), (140, 170, 220), (110, 145, 200), (80, 110, 165), (50, 75, 120),
        (130, 160, 205),
    )
    sleeve_colours: tuple[tuple[int, int, int], ...] = (
        (60, 40, 30), (40, 40, 40), (200, 200, 200), (40, 40, 140), (120, 80, 40),
        (70, 110, 60), (150, 130, 110), (30, 30, 90),
    )
    hand_scale: Range = (1.0, 1.35)        # hands are above the board, so look larger
    hidden_fraction: float = 0.3           # a cell is "hidden" from this much coverage on
    hand_shadow: Range = (0.3, 0.6)


@dataclass(frozen=True)
class SensorConfig:
    read_noise: Range = (0.8, 4.0)
    shot_noise: Range = (0.5, 3.0)
    defocus_probability: float = 0.3
    defocus_sigma: Range = (0.5, 1.6)
    motion_probability: float = 0.12
    motion_length: Range = (3.0, 9.0)      # pixels at 1280 wide
    jpeg_quality: Range = (70.0, 95.0)
    saturation: Range = (0.85, 1.15)


@dataclass(frozen=True)
class TableConfig:
    kinds: tuple[str, ...] = ("wood", "cloth", "laminate")
    weights: tuple[float, ...] = (0.5, 0.25, 0.25)


@dataclass(frozen=True)
class SceneConfig:
    no_board_probability: float = 0.03     # table only (maybe tiles, hands): board_found false
    empty_board_probability: float = 0.04
    games_per_photo_group: int = 8         # photos that share one simulated game


@dataclass(frozen=True)
class SynthConfig:
    """The one configuration of the renderer."""

    camera: CameraConfig = field(default_factory=CameraConfig)
    board: BoardConfig = field(default_factory=BoardConfig)
    tiles: TileConfig = field(default_factory=TileConfig)
    light: LightConfig = field(default_factory=LightConfig)
    occluders: OccluderConfig = field(default_factory=OccluderConfig)
    sensor: SensorConfig = field(default_factory=SensorConfig)
    table: TableConfig = field(default_factory=TableConfig)
    scene: SceneConfig = field(default_factory=SceneConfig)
    cell_mm: float = 25.0

    def with_tiles(self, style: str) -> SynthConfig:
        """This configuration with every tile drawn in the held-out set ``style``
        (``tiles.HELD_OUT_STYLES``; "training" for the training ranges)."""
        return replace(self, tiles=replace(self.tiles, style=style))

    def with_world(self, makers: float, prints: tuple[str, ...]) -> SynthConfig:
        """This configuration with other makers' tiles on a share ``makers`` of the
        photos and the boards drawn in ``prints`` (two marble variants each)."""
        return replace(self, tiles=replace(self.tiles, makers_probability=makers),
                       board=replace(self.board, prints=tuple(prints),
                                     textures_per_seed=max(self.board.textures_per_seed,
                                                           2 * len(set(prints)))))

    @classmethod
    def real_room(cls) -> SynthConfig:
        """A real room rather than a lit table: a cheap lens's barrel or pincushion
        distortion with no lens calibration (k1 of either sign), a lamp's glare on glossy
        tiles, warm and cool casts the camera leaves half corrected, dim light and its
        noise, slight motion blur, hands, and the grid at the frame's edge. Within the
        training blur (the wide set goes past it)."""
        base = cls()
        return replace(
            base,
            camera=replace(base.camera, tilt_deg=(0.0, 32.0), fill=(0.45, 0.97),
                           edge_probability=0.2,
                           lenses=(LensConfig("cheap-barrel", (50.0, 70.0), (0.02, 0.14),
                                              (0.0, 0.03)),
                                   LensConfig("cheap-pincushion", (45.0, 62.0),
                                              (-0.09, -0.01), (-0.01, 0.0)),
                                   LensConfig("pi-camera-3", (50.0, 57.0), (0.0, 0.04),
                                              (0.0, 0.01))),
                           lens_weights=(0.4, 0.3, 0.3)),
            light=replace(base.light, exposure=(0.4, 1.1), ambient=(0.2, 0.7),
                          kelvin=(2300.0, 7200.0), white_balance=(0.3, 0.85),
                          vignette=(0.05, 0.45), glare_probability=0.6,
                          glare_strength=(40.0, 130.0)),
            tiles=replace(base.tiles, ceramic_probability=0.6, makers_probability=0.5),
            occluders=replace(base.occluders, photo_hand_probability=0.45),
            sensor=replace(base.sensor, read_noise=(1.5, 6.0), shot_noise=(1.0, 4.5),
                           motion_probability=0.35, motion_length=(2.0, 7.0),
                           jpeg_quality=(60.0, 92.0)),
        )

    @classmethod
    def wide(cls, edge_probability: float = 0.0) -> SynthConfig:
        """Wider ranges for held-out evaluation: harder light, lenses, blur and hands;
        ``edge_probability``: the share of boards pushed against the frame's edge (the
        vision benchmark's 0.2, ``bench.vision_bench.EDGE_PROBABILITY``; 0 keeps every other
        user's photos as they were drawn before it existed)."""
        base = cls()
        return replace(
            base,
            camera=replace(base.camera, tilt_deg=(0.0, 35.0), fill=(0.4, 0.97),
                           centre_offset=(-4.0, 4.0), edge_probability=edge_probability,
                           lenses=(LensConfig("pi-camera-3", (48.0, 60.0), (-0.02, 0.06),
                                              (0.0, 0.02)),
                                   LensConfig("pi-camera-3-wide", (75.0, 90.0), (0.04, 0.22),
                                              (0.0, 0.06)))),
            light=replace(base.light, exposure=(0.45, 1.5), ambient=(0.2, 0.85),
                          kelvin=(2200.0, 7500.0), white_balance=(0.3, 1.0),
                          vignette=(0.0, 0.5), glare_probability=0.5,
                          glare_strength=(20.0, 140.0)),
            tiles=replace(base.tiles, angle_deg=(-12.0, 12.0), offset=(-0.1, 0.1)),
            occluders=replace(base.occluders, photo_hand_probability=0.5),
            sensor=replace(base.sensor, read_noise=(0.5, 7.0), shot_noise=(0.5, 5.0),
                           defocus_probability=0.45, defocus_sigma=(0.5, 2.5),
                           motion_probability=0.25, motion_length=(3.0, 15.0),
                           jpeg_quality=(45.0, 95.0), saturation=(0.7, 1.3)),
        )
