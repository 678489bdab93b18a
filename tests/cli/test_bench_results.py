"""Every benchmark's result file records the commit, date, machine and command that
made it (``bench/results.py``), and the benchmarks moved in from ``benchmarks/`` run
as ``zatre bench NAME`` (their figures are theirs to report, not a test's)."""

import json

from zatre_vision.bench.results import PROVENANCE, with_provenance, write_bench_result


def test_a_result_gets_the_five_fields_and_keeps_its_own():
    out = with_provenance({"summary": {"x": 1}, "date": "2026-01-02",
                           "machine": {"note": "shared"}}, command="zatre bench rules")
    assert list(out)[:5] == list(PROVENANCE)
    assert out["date"] == "2026-01-02" and out["command"] == "zatre bench rules"
    assert out["commit"] and out["machine"]["note"] == "shared" and out["machine"]["cpus"]
    assert "zatre_vision/rules" in out["measures"]


def test_the_file_written_holds_them(tmp_path, capsys):
    path = tmp_path / "deep" / "r.json"
    write_bench_result(path, {"summary": {"ok": True}}, command="zatre bench synth")
    data = json.loads(path.read_text())
    assert all(data[k] for k in PROVENANCE) and data["summary"] == {"ok": True}
    assert json.loads(capsys.readouterr().out) == {"ok": True}


def test_bench_synth_on_two_photos(zatre, tmp_path):
    out = tmp_path / "synth.json"
    res = zatre("bench", "synth", "--photos", "2", "--out", str(out))
    assert res.returncode == 0, res.stderr
    data = json.loads(out.read_text())
    assert data["photos"] == 2 and data["photos_per_second"] > 0
    assert data["command"] == f"zatre bench synth --photos 2 --out {out}"


def test_bench_sse_with_two_spectators(zatre, tmp_path):
    out = tmp_path / "sse.json"
    res = zatre("bench", "sse", "--clients", "2", "--pace", "0.02", "--out", str(out))
    data = json.loads(out.read_text())
    assert res.returncode == 0 and data["ok"], (res.stderr, data)
    assert data["events_missed"] == 0 and data["turns"] > 10
    assert all(data[k] for k in PROVENANCE)


def test_every_bench_is_listed(zatre):
    res = zatre("bench", "--help")
    for name in ("rules", "vision", "tracking", "analyse", "adapt", "load", "camera",
                 "startup", "bad-input", "serve", "sse", "synth"):
        assert f"\n  {name} " in res.stdout, name


def test_bench_analyse_small(zatre, tmp_path):
    """Issue 54: the bench checks team games against exhaustive search and measures
    runaway records; a small run has every part, and its checks hold."""
    out = tmp_path / "analyse.json"
    res = zatre("bench", "analyse", "--hard", "1", "--team-games", "1", "--team-turns", "4",
                "--repeat", "1", "--out", str(out))
    assert res.returncode == 0, res.stderr
    data = json.loads(out.read_text())
    assert all(data[k] for k in PROVENANCE)
    assert data["command"] == ("zatre bench analyse --hard 1 --team-games 1 --team-turns 4 "
                               f"--repeat 1 --out {out}")
    teams = data["team_games"]
    assert teams["turns"] == 4 and teams["checked_turns"] >= 3
    assert teams["same_best_as_exhaustive"] == teams["checked_turns"]
    assert teams["capped_turns"] == 0 and teams["games"][0]["different"] == []
    runaway = data["runaway_records"]["rows"]
    assert {r["record"] for r in runaway} >= {"first turn of 12 tiles",
                                               "100 tiles on the first turn (1 kB)"}
    assert all(r["searched_turns"] == 0 for r in runaway)
    assert data["hard_turns"]["n"] == 1
