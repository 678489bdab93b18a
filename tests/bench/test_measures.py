"""What a result file measures is read from the import graph (``bench/measures.py``)."""

from zatre_vision.bench.measures import BENCH_ENTRIES, closure, measured_paths, measures_of


def test_an_import_inside_a_function_is_followed(tmp_path):
    pkg = tmp_path / "zatre_vision"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "deep.py").write_text("X = 1\n")
    (pkg / "top.py").write_text("def f():\n    from .sub.deep import X\n    return X\n")
    (pkg / "alone.py").write_text("import json\n")
    assert closure(("zatre_vision.top",), pkg) == {"zatre_vision.top", "zatre_vision.sub.deep"}
    assert measured_paths(("zatre_vision.top",), pkg) == ["zatre_vision/sub",
                                                          "zatre_vision/top.py"]


def test_the_rules_bench_measures_the_rules_and_not_the_server_or_the_models():
    paths = measures_of("zatre bench rules --positions 10")
    assert {"zatre_vision/rules", "zatre_vision/bench/rules_bench.py"} <= set(paths)
    assert not any(p.startswith(("zatre_vision/server", "models/", "web")) for p in paths)


def test_the_vision_bench_measures_the_reader_the_renderer_and_both_models():
    paths = set(measures_of("zatre bench vision --photos 150 --no-card"))
    assert {"zatre_vision/vision", "zatre_vision/synth", "models/pips.onnx",
            "models/pips.onnx.json", "models/board.onnx", "models/board.onnx.json"} <= paths
    assert "zatre_vision/bench/results.py" not in paths   # provenance changes no figure


def test_the_server_benches_measure_what_the_child_process_serves():
    for name in ("serve", "load", "sse"):
        paths = set(measured_paths(BENCH_ENTRIES[name]))
        assert {"zatre_vision/server", "web", "zatre_vision/store"} <= paths, name


def test_the_fit_is_measured_through_its_module_and_an_unknown_command_measures_nothing():
    paths = measures_of("python -m zatre_vision.training.fit_tile_adaptation --test 24")
    assert {"zatre_vision/training", "zatre_vision/calibrate", "models/pips.onnx"} <= set(paths)
    assert measures_of("zatre bench nothing") == [] and measures_of("python x.py") == []
