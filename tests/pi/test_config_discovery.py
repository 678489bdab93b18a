"""Where the commands that look after a table find its settings (issue 52): --config,
else ZATRE_CONFIG, else the installed /etc/zatre/config.yaml where it exists, else the
defaults; and a table's file is never written into a data folder no table uses."""

import pytest

from zatre_vision.config import (
    ConfigError,
    check_table_folder,
    find_config,
    load_command_settings,
    load_settings,
)


def test_the_order_is_option_environment_installed_defaults(tmp_path):
    installed = tmp_path / "etc/zatre/config.yaml"
    mine = tmp_path / "mine.yaml"
    env = {"ZATRE_CONFIG": str(mine)}
    assert find_config(None, {}, installed) == (None, "none")
    installed.parent.mkdir(parents=True)
    installed.write_text("server:\n  data_dir: /var/lib/zatre\n")
    assert find_config(None, {}, installed) == (installed, "installed")
    assert find_config(None, env, installed) == (mine, "ZATRE_CONFIG")
    assert find_config("given.yaml", env, installed)[1] == "--config"


def test_the_line_says_which_settings_and_which_data(tmp_path):
    installed = tmp_path / "config.yaml"
    installed.write_text(f"server:\n  data_dir: {tmp_path / 'table'}\n")
    settings, line, found = load_command_settings(None, env={}, installed=installed)
    assert found and line == f"settings: {installed} (installed), data in {tmp_path / 'table'}"
    settings, line, found = load_command_settings(None, env={}, installed=tmp_path / "no.yaml")
    assert not found and line.startswith("settings: none found") and "data in data" in line


def test_a_folder_no_table_uses_is_refused_unless_settings_name_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    defaults = load_settings(None)
    with pytest.raises(ConfigError, match="no table uses this folder"):
        check_table_folder(defaults, False, "calibration.json")
    check_table_folder(defaults, True, "calibration.json")  # the table's settings name it
    (tmp_path / "data").mkdir()
    (tmp_path / "data/zatre.db").write_bytes(b"")
    check_table_folder(defaults, False, "calibration.json")  # a table ran here
