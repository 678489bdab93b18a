"""One way to write a config (``zatre_vision/settings.py``): every field bounded or a
switch or a nested config, described; bad values refused in one line naming the field."""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, fields, replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

import zatre_vision
from zatre_vision.settings import Settings, SettingsError, is_settings, knob, part, switch
from zatre_vision.tracking.pipeline import PipelineConfig
from zatre_vision.tracking.tracker import TrackerConfig
from zatre_vision.tracking.votes import VoteConfig
from zatre_vision.vision.location.print_proof import ProofConfig


@dataclass(frozen=True)
class Inner(Settings):
    rate: float = knob(0.5, 0.0, 1.0, "a share")


@dataclass(frozen=True)
class Outer(Settings):
    count: int = knob(3, 1, 10, "how many")
    on: bool = switch("a pass")
    inner: Inner = part(Inner, "the inner part")


def test_a_value_out_of_bounds_is_refused_naming_the_field_and_its_bounds():
    with pytest.raises(SettingsError, match=r"^Outer\.count = 11 is outside 1\.\.10 \(how many\)$"):
        Outer(count=11)
    with pytest.raises(SettingsError, match=r"Inner\.rate = -0\.1 is outside 0\.0\.\.1\.0"):
        Inner(rate=-0.1)


@pytest.mark.parametrize(("raw", "message"), [
    ({"count": 2.5}, "Outer.count is 2.5, not a whole number"),
    ({"count": "3"}, "Outer.count is '3', not a number"),
    ({"count": True}, "Outer.count is True, not a number"),
    ({"on": 1}, "Outer.on is 1, not true or false"),
    ({"inner": {"rate": 2}}, "Outer.inner.rate = 2.0 is outside 0.0..1.0 (a share)"),
    ({"inner": 3}, "Outer.inner: not an object"),
    ({"speed": 1}, "Outer: unknown field 'speed' (known: count, on, inner)"),
    ([1, 2], "Outer: not an object"),
    ({"inner": {"rate": float("nan")}}, "Outer.inner.rate is not a number (NaN)"),
])
def test_a_bad_json_value_gets_one_line_naming_where_it_is(raw, message):
    with pytest.raises(SettingsError) as exc:
        Outer.from_dict(raw)
    assert str(exc.value) == message
    assert "\n" not in str(exc.value)


def test_a_card_path_names_where_the_value_came_from():
    with pytest.raises(SettingsError, match=r"^card\.thresholds\.count = 0 is outside"):
        Outer.from_dict({"count": 0}, "card.thresholds")


def test_a_whole_float_for_an_int_field_and_an_int_for_a_float_field_take_their_type():
    made = Outer.from_dict({"count": 4.0, "inner": {"rate": 1}})
    assert made.count == 4 and type(made.count) is int
    assert made.inner.rate == 1.0 and type(made.inner.rate) is float


def test_what_is_left_out_keeps_its_default():
    assert Outer.from_dict({"on": False}) == Outer(on=False)
    assert Outer.from_dict({}).inner == Inner()


def test_a_field_made_without_bounds_or_description_is_refused():
    @dataclass(frozen=True)
    class Loose(Settings):
        x: float = 1.0

    with pytest.raises(TypeError, match="Loose.x: made without knob"):
        Loose()


def test_a_default_outside_its_own_bounds_is_a_mistake_at_once():
    with pytest.raises(SettingsError, match="outside its own bounds"):
        knob(5, 0, 1, "wrong")


def test_describe_names_every_field_with_its_bounds_once():
    lines = Outer.describe()
    assert lines == ["count = 3 [1..10]: how many", "on = True (on or off): a pass",
                     "inner: the inner part", "inner.rate = 0.5 [0.0..1.0]: a share"]


def _configs() -> list[type[Settings]]:
    """Every config written this way in the package (its modules imported)."""
    for info in pkgutil.walk_packages(zatre_vision.__path__, "zatre_vision."):
        if ".training" in info.name or info.name.endswith("__main__"):
            continue  # the training modules need torch, not a config of this kind
        importlib.import_module(info.name)
    seen, todo = [], list(Settings.__subclasses__())
    while todo:
        cls = todo.pop()
        if cls.__module__.startswith("zatre_vision") and is_settings(cls):
            seen.append(cls)
        todo += cls.__subclasses__()
    return seen


def test_the_reader_proof_and_tracking_configs_are_written_this_way():
    names = {cls.__name__ for cls in _configs()}
    assert {"ProofConfig", "Likelihoods", "PipelineConfig", "TrackerConfig",
            "MotionConfig", "VoteConfig"} <= names


@pytest.mark.parametrize("cls", _configs(), ids=lambda c: c.__name__)
def test_every_config_round_trips_through_json_and_refuses_its_bounds(cls):
    made = cls()
    assert cls.from_dict(made.to_dict()) == made
    for f in fields(cls):
        bounds = f.metadata.get("bounds")
        if bounds is None:
            continue
        low, high = bounds
        with pytest.raises(SettingsError, match=f"{cls.__name__}.{f.name} = "):
            replace(made, **{f.name: high + 1})
        with pytest.raises(SettingsError, match=f"{cls.__name__}.{f.name} = "):
            replace(made, **{f.name: low - 1})


def test_votes_that_could_never_settle_are_refused():
    with pytest.raises(SettingsError, match="no cell would settle"):
        VoteConfig(window=2, settle=3)
    assert VoteConfig(window=3, settle=3).settle == 3


@given(still=st.floats(0.0, 60.0), window=st.integers(1, 100), data=st.data())
def test_any_tracker_config_in_bounds_round_trips(still, window, data):
    settle = data.draw(st.integers(1, window))
    made = TrackerConfig(commit_still_s=still, votes=VoteConfig(window=window, settle=settle))
    assert TrackerConfig.from_dict(made.to_dict()) == made


def test_a_pipeline_config_from_json_reaches_its_nested_parts():
    made = PipelineConfig.from_dict({"tracker": {"end_wait_s": 5, "votes": {"settle": 3}},
                                     "motion": {"grow": 0}})
    assert made.tracker.end_wait_s == 5.0 and made.tracker.votes.settle == 3
    assert made.motion.grow == 0 and made.lost_after == PipelineConfig().lost_after
    with pytest.raises(SettingsError, match=r"^PipelineConfig\.tracker\.end_wait_s = 61\.0"):
        PipelineConfig.from_dict({"tracker": {"end_wait_s": 61}})


def test_a_proof_config_keeps_its_chances_away_from_0_and_1():
    with pytest.raises(SettingsError, match="ridge_none = 0.0 is outside 0.001..0.999"):
        ProofConfig.from_dict({"likelihoods": {"ridge_none": 0}}, "ProofConfig")


@dataclass(frozen=True)
class MaybeOuter(Settings):
    inner: Inner | None = part(Inner, "a pass that may be switched off as a whole")


def test_a_part_that_may_be_none_takes_none_a_config_or_an_object_and_nothing_else():
    assert MaybeOuter(inner=None).inner is None
    assert MaybeOuter.from_dict({"inner": None}).inner is None
    assert MaybeOuter.from_dict(MaybeOuter().to_dict()) == MaybeOuter()
    assert MaybeOuter.from_dict({"inner": {}}) == MaybeOuter()
    with pytest.raises(SettingsError, match=r"^MaybeOuter.inner is int, not Inner$"):
        MaybeOuter(inner=3)
    with pytest.raises(SettingsError, match=r"^card.inner: unknown field 'nope'"):
        MaybeOuter.from_dict({"inner": {"nope": 1}}, "card")
    assert "inner.rate = 0.5 [0.0..1.0]: a share" in MaybeOuter.describe()
