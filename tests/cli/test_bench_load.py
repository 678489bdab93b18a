"""``zatre bench load`` end to end on a small crowd: every stream gets every state
version and the operator's requests all succeed (the timings themselves are the
benchmark's to report, not a test's)."""

import json


def test_bench_load_on_a_small_crowd(zatre, tmp_path):
    out = tmp_path / "load.json"
    res = zatre("bench", "load", "--streams", "10", "--idle", "10", "--seconds", "5",
                "--out", str(out))
    assert res.returncode in (0, 1), res.stderr     # 1 only if a timing target is missed
    r = json.loads(out.read_text())
    assert r["errors"] == 0, r
    assert r["streams"]["streaming"] == 10 and r["streams"]["missed_versions"] == 0
    assert r["load"]["turns_posted"] >= 4 and r["load"]["api_state"]["requests"] >= 90
    assert r["setup"]["idle_sockets"] == 10
    for key in ("commit", "date", "machine", "command"):
        assert r[key], key
