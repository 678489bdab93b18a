"""``zatre backup FILE`` and ``zatre restore FILE`` (see store/backup.py)."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import InputError

_config = click.option("--config", "config_file", type=click.Path(dir_okay=False), default=None,
                       help="The settings file the service uses (default: $ZATRE_CONFIG, "
                            "else /etc/zatre/config.yaml where it exists).")
_data_dir = click.option("--data-dir", type=click.Path(file_okay=False), default=None,
                         help="Folder of the SQLite database (default: from the settings).")


def _database(config_file: str | None, data_dir: str | None, writing: bool = False
              ) -> tuple[Path, str]:
    """The table's database, from the settings the command finds, and the line that
    says which they are; ``writing``: refused in a folder no table uses."""
    from ..config import ConfigError, check_table_folder, load_command_settings
    from ..store.backup import database_path
    from ..store.base import StoreError

    overrides = {"server": {"data_dir": data_dir}} if data_dir else None
    try:
        settings, line, found = load_command_settings(config_file, overrides)
        if writing:
            check_table_folder(settings, found or bool(data_dir), "a restored database")
        return database_path(settings.server.data_dir, settings.server.db), line
    except (ConfigError, StoreError) as exc:
        raise InputError(str(exc)) from None


@click.command()
@click.argument("target", metavar="FILE")
@_config
@_data_dir
def backup(target: str, config_file: str | None, data_dir: str | None) -> None:
    """Copy the SQLite database to a file while the table may be running."""
    from ..store.backup import backup as do_backup
    from ..store.base import StoreError

    source, line = _database(config_file, data_dir)
    try:
        version = do_backup(source, Path(target))
    except (StoreError, OSError) as exc:
        raise InputError(str(exc)) from None
    click.echo(f"backed up {source} to {target} (schema version {version}); {line}", err=True)


@click.command()
@click.argument("source", metavar="FILE")
@_config
@_data_dir
def restore(source: str, config_file: str | None, data_dir: str | None) -> None:
    """Put a backup made by `zatre backup` back as the table's database."""
    from ..store.backup import restore as do_restore
    from ..store.base import StoreError

    target, line = _database(config_file, data_dir, writing=True)
    try:
        kept = do_restore(Path(source), target)
    except (StoreError, OSError) as exc:
        raise InputError(str(exc)) from None
    note = f"; the database it replaced is kept as {kept}" if kept else ""
    click.echo(f"restored {source} as {target}{note}; {line}", err=True)
    click.echo("a backup holds no PIN: choose the table's new PIN here with `zatre pin set` "
               "(or at the first setup, with the setup code `zatre serve` prints)", err=True)
