"""``decide``: the reader's decision, a pure function of the ``Evidence`` measured on
one board and a ``ReaderConfig``. No I/O, no network, no image work: ``BoardReader.read``
and ``training/fit_reader.py`` call this one function, so the fit weighs candidate
configs exactly as the live reader will.

The steps, in the order they apply, each naming the fields it weighs
(``ReaderConfig.describe()``); docs/vision-reading.md has the measurements behind each:

1. the photo: blurred (``sharp_enough``), clearly sharp (``clear_sharpness``), streaked
   past its pips (``streaked_below``);
2. the bars: the floor (``min_confidence``; ``blurred_confidence`` on a blurred photo,
   ``blurred_bar``), a reading no second cue supports (``unconfirmed_confidence``,
   ``unconfirmed_bar``), a tile whose pips cannot be told (``uncounted_margin``);
3. the odds: "empty" raised on the dark cells of a clearly sharp photo
   (``empty_odds_sharp``); the "occluded" share of a cell with no hand near given to its
   other classes; "empty" raised on the light cells with no hand near of a photo not
   blurred (``light_empty_odds``);
4. the cross-checks: bare board (too dark for a tile), bright like a tile
   (``tile_bright``, ``bright_empty_doubt``; a tile's face on a clear photo,
   ``tile_face_bright``), the classical pip count of every tile (``veto_confidence``,
   ``count_veto``);
5. the doubts, one rule a line (``doubted``);
6. the frame held back: ``doubtful_frame`` doubts or more (``doubtful_frame_streaked``
   on a streaked photo, ``streaked_hold_back``), or a board whose orientation is a
   guess: no cell reported (``ReadResult.held_back``);
7. uncertain tiles settled from re-centred crops (``pass_recentred``, ``recentre_*``);
8. uncertain cells at a hand's edge settled from crops moved away from it
   (``pass_beside_hand``, ``beside_hand_*``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..geometry import CELL_NAMES, IS_LIGHT, reading_key
from .cell_evidence import TOUCHING, at_hand, empty_odds_raised, no_hand_near
from .cells import ALL_CELLS
from .classify import OCCLUDED
from .evidence import Evidence
from .pips import CANNOT_TELL, NOT_CHECKED
from .read_result import ReadResult, settle
from .reader_config import ReaderConfig
from .tile_adapt import counts_agreeing


def decide(evidence: Evidence, config: ReaderConfig) -> ReadResult:
    """Cells, uncertain and occluded lists of one board (the steps of the module, in
    order). The result reports the network's own probabilities (``evidence``'s), the
    classes read and the pip counts weighed; ``evidence`` is left as it was."""
    photo = Photo.of(evidence, config)                       # 1
    result = read_cells(evidence, photo, config)             # 2-6
    recentre(result, evidence, config)                       # 7
    beside_hand(result, evidence, photo, config)             # 8
    return result


@dataclass(frozen=True)
class Photo:
    """What the whole photo's sharpness says (step 1)."""

    blurred: bool
    clear: bool
    streaked: bool

    @classmethod
    def of(cls, evidence: Evidence, config: ReaderConfig) -> Photo:
        return cls(blurred=evidence.sharpness < config.sharp_enough,
                   clear=evidence.sharpness >= config.clear_sharpness,
                   streaked=evidence.streak_sharpness < config.streaked_below)


@dataclass(frozen=True)
class Bars:
    """The probabilities a cell's reading needs (step 2)."""

    #: below it a cell is uncertain
    floor: float
    #: a reading no second cue supports (never below the floor)
    unconfirmed: float
    #: a tile whose pips the count cannot tell (never above ``unconfirmed``)
    uncounted: float

    @classmethod
    def of(cls, photo: Photo, config: ReaderConfig) -> Bars:
        floor = (config.blurred_confidence if photo.blurred and config.blurred_bar
                 else config.min_confidence)
        unconfirmed = (max(config.unconfirmed_confidence, floor) if config.unconfirmed_bar
                       else floor)
        return cls(floor, unconfirmed, min(floor + config.uncounted_margin, unconfirmed))


@dataclass(frozen=True)
class Odds:
    """The cells as the decision weighs them (step 3), per cell."""

    #: the network's class before the occluded share went (after the dark cells' raise)
    raw: np.ndarray
    #: the class read, and its probability, after every raise and the share given away
    cls: np.ndarray
    conf: np.ndarray
    #: the class read's probability before the occluded share was given away
    own: np.ndarray
    #: called occluded with no occluded call touching it (a vein, a glint)
    lone: np.ndarray
    #: with no hand near, and its best visible class below the floor before the
    #: occluded share went to it
    lifted: np.ndarray
    #: a light cell read empty whose odds of "empty" were raised
    raised_empty: np.ndarray
    #: the top probability before the light cells' raise
    unraised_conf: np.ndarray


def weigh(evidence: Evidence, photo: Photo, bars: Bars, config: ReaderConfig) -> Odds:
    """Step 3: the network's odds as the decision weighs them."""
    probs = evidence.probabilities
    if photo.clear:                                          # empty_odds_sharp
        probs = empty_odds_raised(probs, ~IS_LIGHT, config.empty_odds_sharp)
    given = probs
    raw = probs.argmax(axis=1)
    alone = no_hand_near(raw)
    lifted = np.zeros(len(probs), bool)
    if alone.any():                       # no hand near: the occluded share goes
        probs = probs.copy()
        lifted[alone] = probs[alone, :OCCLUDED].max(axis=1) < bars.floor
        probs[alone, OCCLUDED] = 0.0
        probs[alone] /= probs[alone].sum(axis=1, keepdims=True)
    light_raised = np.zeros(len(probs), bool)
    unraised_conf = probs.max(axis=1)
    if not photo.blurred and config.light_empty_odds != 1.0:   # light_empty_odds
        light_raised = alone & IS_LIGHT
        probs = empty_odds_raised(probs, light_raised, config.light_empty_odds)
    cls = probs.argmax(axis=1)
    return Odds(raw=raw, cls=cls, conf=probs.max(axis=1),
                own=given[np.arange(len(cls)), cls], lone=alone & (raw == OCCLUDED),
                lifted=lifted, raised_empty=light_raised & (cls == 0),
                unraised_conf=unraised_conf)


@dataclass(frozen=True)
class Checks:
    """The cues besides the network (step 4), per cell."""

    #: a dark cell the network reads empty whose middle is too dark for a tile
    bare: np.ndarray
    #: a dark cell read empty whose middle is bright like a tile: a doubt about the frame
    bright_empty: np.ndarray
    #: ... of those, the ones doubted on their own (on a clear photo, a tile's face)
    tile_face: np.ndarray
    #: the classical pip count of each tile read (pips.NOT_CHECKED for the others), as
    #: a table's own tiles have it counted
    counts: np.ndarray
    #: a tile read below ``veto_confidence``
    unsure_tile: np.ndarray
    #: a tile whose sure count contradicts it (``sure_count_disagrees``)
    veto: np.ndarray


def cross_check(evidence: Evidence, photo: Photo, odds: Odds, config: ReaderConfig
                ) -> Checks:
    """Step 4: bare board, bright like a tile, the pip count of every tile."""
    cls = odds.cls
    bare = (odds.raw == 0) & ~IS_LIGHT & evidence.too_dark
    bright_empty = ((cls == 0) & ~IS_LIGHT & config.bright_empty_doubt
                    & (evidence.middle_brightness > config.tile_bright))
    tile_face = bright_empty.copy()
    if photo.clear:                                          # tile_face_bright
        tile_face &= evidence.middle_brightness > config.tile_face_bright
    checked = (cls > 0) & (cls != OCCLUDED)
    counts = np.where(checked, evidence.pip_counts, NOT_CHECKED).astype(np.int32)
    if (counts[checked] == NOT_CHECKED).any():
        missing = [CELL_NAMES[i] for i in np.flatnonzero(checked & (counts == NOT_CHECKED))]
        raise ValueError(f"the evidence has no pip count of {', '.join(missing)}, read "
                         "as tiles (measure.evidence_of counts every such cell)")
    if evidence.count_table is not None:   # a table's own tiles: its counter
        counts = counts_agreeing(counts, cls, evidence.count_table, evidence.count_seen)
    veto = checked & sure_count_disagrees(counts, cls, photo.blurred) & config.count_veto
    return Checks(bare=bare, bright_empty=bright_empty, tile_face=tile_face, counts=counts,
                  unsure_tile=checked & (odds.conf < config.veto_confidence), veto=veto)


def doubted(odds: Odds, checks: Checks, photo: Photo, bars: Bars, config: ReaderConfig
            ) -> np.ndarray:
    """Step 5: per cell, is its reading in doubt? One rule a line, in order (a later
    rule overrides an earlier one); an occluded call is never a doubt."""
    own, counts = odds.own, checks.counts
    # below the floor (min_confidence, blurred_confidence); a cell only the occluded
    # share made sure needs unconfirmed_confidence
    doubt = np.where(odds.lifted, odds.conf < bars.unconfirmed, odds.conf < bars.floor)
    # a light cell empty by its raised odds (light_empty_odds) needs unconfirmed_confidence:
    # marble streaks, or a tile the network half sees
    doubt |= odds.raised_empty & (odds.conf < bars.unconfirmed)
    # "empty", and too dark for a tile: bare board, however unsure
    doubt &= ~checks.bare
    # "empty", yet a bright square fills the cell (blur, glare): bright_empty_below
    doubt |= checks.tile_face & (own < config.bright_empty_below)
    # a blurred tile on a light cell looks like the bare cell: light_empty_blurred
    if photo.blurred and config.light_blurred_bar:
        doubt |= (odds.cls == 0) & IS_LIGHT & (own < config.light_empty_blurred)
    # a tile below veto_confidence that the count contradicts
    doubt |= checks.unsure_tile & (counts > 0) & (counts != odds.cls)
    # a sure count, two pips or more away, however sure the network (count_veto)
    doubt |= checks.veto
    # a tile below veto_confidence the count cannot confirm: unconfirmed_confidence of
    # its own probability, the floor plus uncounted_margin where the count sees a tile
    # but cannot tell its pips
    doubt |= checks.unsure_tile & (counts <= 0) & np.where(
        counts == CANNOT_TELL, own < bars.uncounted, own < bars.unconfirmed)
    return doubt & (odds.cls != OCCLUDED)


def read_cells(evidence: Evidence, photo: Photo, config: ReaderConfig) -> ReadResult:
    """Steps 2 to 6: every cell read, doubted or called occluded, and the frame held
    back where due; before any cell is settled from moved crops."""
    bars = Bars.of(photo, config)                            # 2
    odds = weigh(evidence, photo, bars, config)              # 3
    checks = cross_check(evidence, photo, odds, config)      # 4
    doubt = doubted(odds, checks, photo, bars, config)       # 5
    called = odds.cls == OCCLUDED
    cls = odds.cls.copy()
    cls[doubt & odds.lone] = OCCLUDED     # a lone occluded call that stays unsure
    uncertain = called | doubt
    hidden = cls == OCCLUDED
    # cells taken as read though in doubt: dark cells bright like a tile, light cells
    # empty only by the raise
    sure = ~uncertain
    taken_in_doubt = (int((sure & checks.bright_empty).sum())
                      + int((sure & odds.raised_empty & (odds.unraised_conf < bars.floor)).sum()))
    cells = {n: int(cls[i]) for i, n in enumerate(CELL_NAMES) if sure[i] and cls[i] > 0}
    result = ReadResult(
        True, cells={n: cells[n] for n in sorted(cells, key=reading_key)},
        uncertain=sorted((n for i, n in enumerate(CELL_NAMES) if uncertain[i]), key=reading_key),
        occluded=sorted((n for i, n in enumerate(CELL_NAMES) if hidden[i]), key=reading_key),
        classes=cls, probabilities=evidence.probabilities, pip_counts=checks.counts,
        vetoed=[n for n, v in zip(CELL_NAMES, checks.veto, strict=True) if v],
        sharpness=evidence.sharpness)
    # 6: the doubts (uncertain cells that are not occluded calls, and cells taken as
    # read in doubt) hold the frame back: doubtful_frame, doubtful_frame_streaked
    doubts = len(result.uncertain) - len(result.occluded) + taken_in_doubt
    if doubts >= config.doubtful_frame or (
            config.streaked_hold_back and doubts >= config.doubtful_frame_streaked
            and photo.streaked):
        result.held_back()
    if not evidence.orientation_known:    # maybe a quarter turn off: no cell is read
        result.orientation_known = False
        result.held_back()
    return result


def sure_count_disagrees(counts: np.ndarray, cls: np.ndarray, blurred: bool) -> np.ndarray:
    """Per cell: the classical pip count is sure and contradicts the network's class,
    however sure the network is (the veto). Sure: on a photo not blurred, two pips or
    more counted, two or more away from the class. Its errors are a pip too many or
    too few (a speck, two pips merged) and, on blurred photos, all pips merged into
    one (wide set, seed 9001, first 40 photos: 53 disagreements with a sure network,
    50 of them the count's error, every one of those within a pip on a sharp photo or
    on a blurred one). Sixes read as fours with a highlight in each hollow pip are two
    pips away."""
    if blurred:
        return np.zeros(len(counts), bool)
    return (counts >= 2) & (np.abs(counts - cls) >= 2)


def vetoed(result: ReadResult, i: int, c: int) -> bool:
    """Does the sure pip count (``sure_count_disagrees``) that vetoed cell ``i``
    contradict class ``c`` too? A second reading never settles such a cell as ``c``."""
    counts = result.pip_counts
    return (counts is not None and CELL_NAMES[i] in result.vetoed
            and abs(int(counts[i]) - c) >= 2)


# -- 7 and 8: cells settled from moved crops -------------------------------------------
def recentre_candidates(result: ReadResult) -> np.ndarray:
    """The uncertain cells, not called occluded and with no occluded call touching them,
    that the re-centred reading looks at (next to a hand a moved crop can look past the
    hand's edge and be sure of the pips it still sees)."""
    doubted = set(result.uncertain) - set(result.occluded)
    near_hand = ~no_hand_near(result.classes)
    return np.array([i for i, n in enumerate(CELL_NAMES)
                     if n in doubted and not near_hand[i]], np.intp)


def beside_hand_candidates(result: ReadResult) -> np.ndarray:
    """The uncertain cells in or touching a patch of occluded calls (``at_hand``) but
    not deep under it (every cell touching it an occluded call: no move clears it)."""
    doubted = set(result.uncertain)
    deep = ~TOUCHING[:, result.classes != OCCLUDED].any(axis=1)
    near_hand = at_hand(result.classes) & ~deep
    return np.array([i for i, n in enumerate(CELL_NAMES)
                     if n in doubted and near_hand[i]], np.intp)


def recentre(result: ReadResult, evidence: Evidence, config: ReaderConfig) -> None:
    """Step 7 (``pass_recentred``; not on a frame held back): each candidate cell
    (``recentre_candidates``) is settled as the tile class it was read as where one of
    its re-centred readings is ``recentre_sure`` of that class, no moved crop rivals it
    (``recentre_rival``), its own "empty" is below ``recentre_empty_below`` and no sure
    count vetoed the class. A moved crop sure of another class leaves the cell uncertain:
    at a lower bar the cell would be reported as the class it was read as, so settling it
    as another would make the value reported depend on the bar (a bar raised would turn
    a reading into a different one, not into a doubt). ``result`` is changed in place;
    its ``classes`` keep the network's own reading."""
    if not config.pass_recentred or result.doubtful_frame:
        return
    index = recentre_candidates(result)
    if len(index) == 0:
        return
    best = evidence.recentred.of(index, "re-centred")[:, :, :OCCLUDED].max(axis=0)
    settled = []
    for k, i in enumerate(index):
        c = int(best[k].argmax())
        rival = float(np.partition(best[k], -2)[-2])
        if (c > 0 and c == result.classes[i] and best[k, c] >= config.recentre_sure
                and rival < config.recentre_rival and not vetoed(result, i, c)
                and result.probabilities[i, 0] < config.recentre_empty_below):
            result.cells[CELL_NAMES[i]] = c
            settled.append(CELL_NAMES[i])
    settle(result, settled)
    result.recentred = sorted(settled, key=reading_key)


def beside_hand(result: ReadResult, evidence: Evidence, photo: Photo,
                config: ReaderConfig) -> None:
    """Step 8 (``pass_beside_hand``; not on a blurred photo nor a frame held back):
    each candidate cell (``beside_hand_candidates``) is settled as the best visible
    class of its own reading where at least ``beside_hand_agree`` of its moved readings
    clear of the hand (their "occluded" below ``beside_hand_clear_below``) read that
    class with ``beside_hand_sure`` or more and none reads another class that surely;
    a light x2 cell is taken as empty only on a clear photo, and no sure count may have
    vetoed the class. A settled cell leaves ``uncertain`` and ``occluded`` (a tile goes
    into ``cells``). The nearer moves count only for a cell one of the farther moves saw
    clear of the hand."""
    if not config.pass_beside_hand or photo.blurred or result.doubtful_frame:
        return
    index = beside_hand_candidates(result)
    if len(index) == 0:
        return
    far = evidence.beside_hand_far.of(index, "beside-hand")
    seen = (far[:, :, OCCLUDED] < config.beside_hand_clear_below).any(axis=0)
    near = evidence.beside_hand_near.of(index[seen], "beside-hand")
    nearer = dict(zip(np.flatnonzero(seen).tolist(), range(int(seen.sum())), strict=True))
    own_best = result.probabilities[index, :OCCLUDED].argmax(axis=1)
    settled = []
    for k, i in enumerate(index):
        moved = far[:, k] if k not in nearer else np.concatenate([near[:, nearer[k]],
                                                                  far[:, k]])
        clear = moved[moved[:, OCCLUDED] < config.beside_hand_clear_below]
        c = int(own_best[k])
        if c == 0 and IS_LIGHT[i] and not photo.clear:
            continue  # a blurred tile on a light cell looks like the bare cell
        calls = clear[:, :OCCLUDED].argmax(axis=1)
        sure = clear[:, :OCCLUDED].max(axis=1) >= config.beside_hand_sure
        agree, rival = sure & (calls == c), sure & (calls != c)
        if (agree.sum() >= config.beside_hand_agree and not rival.any()
                and not vetoed(result, i, c)):
            if c > 0:
                result.cells[CELL_NAMES[i]] = c
            settled.append(CELL_NAMES[i])
    settle(result, settled)
    result.beside_hand = sorted(settled, key=reading_key)


# -- what the measurements must read for the decision ----------------------------------
def cells_to_reread(evidence: Evidence, config: ReaderConfig) -> tuple[np.ndarray, np.ndarray]:
    """The cells whose moved readings ``decide`` will ask ``evidence`` for under
    ``config``: (re-centred, beside a hand), in ``CELL_NAMES`` order
    (``rereads_wanted`` of the cells as read before any is settled)."""
    photo = Photo.of(evidence, config)
    return rereads_wanted(read_cells(evidence, photo, config), photo, config)


def rereads_wanted(result: ReadResult, photo: Photo, config: ReaderConfig
                   ) -> tuple[np.ndarray, np.ndarray]:
    """(re-centred, beside a hand): the candidates of steps 7 and 8 in ``result`` (as
    ``read_cells`` left it), none where the pass is off or does not run. The beside-hand
    candidates are taken before any cell is re-centred: the re-centred reading settles
    only cells with no occluded call touching them, which are never at a hand."""
    none = np.zeros(0, np.intp)
    recentre_cells = (recentre_candidates(result)
                      if config.pass_recentred and not result.doubtful_frame else none)
    beside_cells = (beside_hand_candidates(result) if config.pass_beside_hand
                    and not photo.blurred and not result.doubtful_frame else none)
    return recentre_cells, beside_cells


def cells_any_config_may_reread(evidence: Evidence) -> tuple[np.ndarray, np.ndarray]:
    """(re-centred, beside a hand): cells that hold every cell ``cells_to_reread`` names
    under any config, for a fit that weighs many configs on one measurement. Any cell
    may be re-centred. Beside a hand: the cells ``at_hand`` of the network's own classes,
    as no config makes a cell an occluded call that the network did not call so (the
    raises of "empty" only lower "occluded", and a lone call left unsure was one), and
    ``at_hand`` only grows with the occluded calls."""
    return ALL_CELLS, np.flatnonzero(at_hand(evidence.probabilities.argmax(axis=1)))


__all__ = ["Photo", "beside_hand", "cells_any_config_may_reread", "cells_to_reread",
           "decide", "read_cells", "recentre", "rereads_wanted", "sure_count_disagrees",
           "vetoed"]
