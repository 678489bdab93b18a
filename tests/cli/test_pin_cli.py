"""`zatre pin grant` and `zatre pin set` as the table's console runs them (processes)."""

import re

from werkzeug.security import check_password_hash

from zatre_vision.store import open_store


def _store(data):
    return open_store(data)


def test_pin_set_refuses_a_short_pin_then_sets_one(zatre, tmp_path):
    data = tmp_path / "data"
    _store(data).close()                       # a table's database lies there
    short = zatre("pin", "set", "--data-dir", str(data), input="1234\n1234\n")
    assert short.returncode == 2 and "6 to 12 digits" in short.stderr
    assert "Traceback" not in short.stderr
    done = zatre("pin", "set", "--data-dir", str(data), input="975310\n975310\n")
    assert done.returncode == 0, done.stderr
    assert "975310" not in done.stdout + done.stderr
    store = _store(data)
    try:
        assert check_password_hash(store.get_setting("pin_hash:table-1"), "975310")
    finally:
        store.close()


def test_pin_set_refuses_where_no_table_is(zatre, tmp_path):
    proc = zatre("pin", "set", "--pin", "975310", cwd=tmp_path)
    assert proc.returncode == 2 and "no table uses this folder" in proc.stderr


def test_pin_grant_prints_a_code_that_signs_in_once(zatre, tmp_path):
    from zatre_vision.server.console_codes import use_console_code

    data = tmp_path / "data"
    _store(data).close()
    proc = zatre("pin", "grant", "--data-dir", str(data))
    assert proc.returncode == 0, proc.stderr
    code = proc.stdout.strip()
    assert re.fullmatch(r"([A-Z2-9]{4}-){3}[A-Z2-9]{4}", code)
    assert "once" in proc.stderr
    store = _store(data)
    try:
        assert use_console_code(store, "table-1", code)
        assert not use_console_code(store, "table-1", code)
    finally:
        store.close()
