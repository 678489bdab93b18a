"""``ReaderConfig`` holds every tuned number of the reader: each field bounded and
described, a value out of bounds refused in one line naming it (in code and in a model
card), and every field read by the measurements or the decision."""

from __future__ import annotations

import ast
import json
import shutil
from dataclasses import MISSING, fields
from pathlib import Path

import pytest

from zatre_vision.vision.location import ProofConfig
from zatre_vision.vision.reader import BoardReader, ReaderCardError, ReaderConfig
from zatre_vision.vision.reading.classify import DEFAULT_MODEL, ModelError
from zatre_vision.vision.reading.measure import MEASURE_FIELDS

READING = Path(__file__).resolve().parents[2] / "zatre_vision" / "vision" / "reading"
NUMBERS = [f for f in fields(ReaderConfig) if "bounds" in f.metadata]
SWITCHES = [f for f in fields(ReaderConfig) if f.metadata.get("switch")]


def _outside(f) -> list[float]:
    """Values just outside a field's bounds (whole numbers for a whole-number field)."""
    low, high = f.metadata["bounds"]
    step = 1 if f.type == "int" else 0.01
    return [low - step, high + step]


def test_every_field_is_a_bounded_number_a_switch_or_the_print_check():
    for f in fields(ReaderConfig):
        assert f.metadata.get("about"), f"{f.name} has no description"
        if f in SWITCHES:
            assert f.default is True and "bounds" not in f.metadata
        elif f.name == "print_proof":
            assert f.default is MISSING   # its own config, ProofConfig
        else:
            low, high = f.metadata["bounds"]
            assert low < high and low <= f.default <= high, f.name
            assert f.type in ("float", "int"), f.name


@pytest.mark.parametrize("f", NUMBERS, ids=lambda f: f.name)
def test_a_value_out_of_bounds_is_refused_in_one_line_naming_it(f):
    low, high = f.metadata["bounds"]
    for value in _outside(f):
        with pytest.raises(ValueError) as caught:
            ReaderConfig(**{f.name: value})
        message = str(caught.value)
        assert "\n" not in message
        assert f.name in message and str(value) in message
        assert f"{low}..{high}" in message and f.metadata["about"] in message
    # the bounds themselves are allowed
    assert getattr(ReaderConfig(**{f.name: low}), f.name) == low
    assert getattr(ReaderConfig(**{f.name: high}), f.name) == high


@pytest.mark.parametrize("value", ["0.6", None, True, float("nan")])
def test_a_value_that_is_not_a_number_is_refused(value):
    with pytest.raises(ValueError, match="min_confidence"):
        ReaderConfig(min_confidence=value)


@pytest.mark.parametrize("f", NUMBERS, ids=lambda f: f.name)
def test_a_card_out_of_bounds_is_one_clear_error(f):
    for value in _outside(f):
        card = {"reader_thresholds": {"values": {f.name: value}}}
        with pytest.raises(ReaderCardError) as caught:
            ReaderConfig.from_card(card)
        message = str(caught.value)
        assert "\n" not in message and f.name in message and "outside" in message
    if f.type == "int":
        with pytest.raises(ReaderCardError, match=f"{f.name} is 2.5, not a whole number"):
            ReaderConfig.from_card({"reader_thresholds": {"values": {f.name: 2.5}}})


def test_a_reader_whose_card_is_out_of_bounds_names_the_card_and_the_field(tmp_path):
    model = tmp_path / "pips.onnx"
    shutil.copyfile(DEFAULT_MODEL, model)
    card = json.loads(DEFAULT_MODEL.with_suffix(".onnx.json").read_text())
    card["reader_thresholds"]["values"]["beside_hand_agree"] = 30
    (tmp_path / "pips.onnx.json").write_text(json.dumps(card))
    with pytest.raises(ModelError) as caught:
        BoardReader(model)
    message = str(caught.value)
    assert "\n" not in message
    assert "pips.onnx.json" in message and "beside_hand_agree = 30" in message
    assert "1..24" in message


def test_describe_gives_each_field_its_default_bounds_and_purpose():
    lines = {line.split(" = ")[0]: line for line in ReaderConfig.describe()}
    for f in NUMBERS:
        low, high = f.metadata["bounds"]
        assert lines[f.name] == (f"{f.name} = {f.default} [{low}..{high}]: "
                                 f"{f.metadata['about']}")
    for f in SWITCHES:
        assert lines[f.name] == f"{f.name} = True (on or off): {f.metadata['about']}"
    proof = next(f for f in fields(ReaderConfig) if f.name == "print_proof")
    described = ReaderConfig.describe()
    assert f"print_proof: {proof.metadata['about']}" in described
    # the proof's own fields follow its line, named print_proof.<field>
    proof_lines = [line for line in described if line.startswith("print_proof.")]
    assert proof_lines == ProofConfig.describe("print_proof.")
    # one line for each field of the reader, in the order they are declared
    own = [line.split(" = ")[0] for line in described
           if not line.startswith("print_proof")]
    assert own == [f.name for f in fields(ReaderConfig) if f.name != "print_proof"]
    # no two fields are described alike
    abouts = [f.metadata["about"] for f in fields(ReaderConfig)]
    assert len(set(abouts)) == len(abouts)


def _config_reads(path: Path) -> set[str]:
    """The attributes read from ``config``, ``cfg`` or ``self.config`` in a module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))

    def is_config(node) -> bool:
        return ((isinstance(node, ast.Name) and node.id in ("config", "cfg"))
                or (isinstance(node, ast.Attribute) and node.attr == "config"))

    return {node.attr for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and is_config(node.value)}


def test_every_field_is_read_by_the_measurements_or_the_decision():
    """A tuned number nothing reads would be a knob that turns nothing. The decision
    reads its fields, the measurements theirs (``MEASURE_FIELDS``), the reader the
    print check it hands location."""
    decision = _config_reads(READING / "decide.py")
    measurement = _config_reads(READING / "measure.py")
    reader = _config_reads(READING.parent / "reader.py")
    for f in fields(ReaderConfig):
        assert f.name in decision | measurement | reader, f"nothing reads {f.name}"
    # what the measurements read is what a fit must measure again when it changes
    assert measurement <= set(MEASURE_FIELDS)
    assert set(MEASURE_FIELDS) <= measurement | reader
    assert "print_proof" in reader
