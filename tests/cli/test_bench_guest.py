"""The guest's benchmarks end to end, small: a short PIN flood locks the operator out
of nothing, and a backup of a running table opens nothing (counts, not timings)."""

import json

from zatre_vision.server import security


def test_bench_pin_flood_for_a_few_seconds(zatre, tmp_path):
    out = tmp_path / "pin_flood.json"
    res = zatre("bench", "pin-flood", "--seconds", "6", "--workers", "4", "--out", str(out))
    assert res.returncode == 0, res.stderr
    r = json.loads(out.read_text())
    assert r["operator"]["lockouts"] == 0 and r["summary"]["guesses_let_in"] == 0
    assert r["summary"]["addresses"] > 16
    assert r["guest"]["checked_wrong_401"] <= security.FREE_FAILURES_ALL + 1
    assert r["operator"]["new_phone"]["console_code_reply"] == 200
    for key in ("commit", "date", "machine", "command"):
        assert r[key], key


def test_bench_backup_access(zatre, tmp_path):
    out = tmp_path / "backup_access.json"
    res = zatre("bench", "backup-access", "--out", str(out))
    assert res.returncode == 0, res.stderr
    r = json.loads(out.read_text())
    assert r["summary"]["ways_in"] == 0 and r["files_beside_the_backup"] == []
    assert r["summary"]["candidates"] > 50 and r["forged_sessions"]["tried"] > 100
    assert r["operator_still_signed_in"]
