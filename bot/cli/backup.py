"""``backup FILE`` and ``restore FILE``: SQLite's online backup, and its checked restore (see ``bot.backups``)."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from bot.backups import BackupError, backup_sqlite, restore_sqlite
from bot.cli.errors import CommandError
from bot.cli.output import cli_translator
from core.i18n import N_, Translator
from core.settings import get_settings
from models.columns import utcnow

REFUSALS = {
    "postgresql": N_(
        "This deployment uses PostgreSQL: back it up with pg_dump and restore it with pg_restore "
        "(the README's operations guide has the commands)."
    ),
    "memory": N_("An in-memory database cannot be backed up."),
    "no_database": N_("There is no database file to back up yet."),
    "target_exists": N_("That file exists already; choose another name, or add --overwrite to replace it."),
    "no_backup": N_("There is no backup file with that name."),
    "not_sqlite": N_("That file is not an SQLite database."),
    "damaged": N_("That backup is damaged (its integrity check failed); nothing was restored."),
    "not_balcao": N_("That database is not a Balcão backup (it has no migration record); nothing was restored."),
    "source_not_balcao": N_(
        "This database is not Balcão's (it has no migration record); nothing was copied. Check BALCAO_DATABASE_URL."
    ),
    "source_not_sqlite": N_(
        "This database is not an SQLite database; nothing was copied. Check BALCAO_DATABASE_URL."
    ),
    "target_full": N_("The disk where the backup goes is full; nothing was kept. Free some space, or choose another "
                      "disk, and run the backup again."),
    "target_write_failed": N_("The backup could not be written there (the disk refused the write); nothing was kept. "
                              "Check the disk and the folder's permissions, or choose another place."),
    "source_damaged": N_("The copy of this database failed its integrity check; nothing was kept."),
    "newer": N_("That backup comes from a newer version of Balcão; install that version to restore it."),
}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser], tr: Translator) -> None:
    """Add ``backup`` and ``restore`` to the command line."""
    backup = subparsers.add_parser(
        "backup",
        help=tr._("copy the SQLite database to FILE while Balcão keeps running (online backup)"),
        description=tr._("For PostgreSQL use pg_dump (see the README)."),
    )
    backup.add_argument("file", type=Path, metavar=tr.pgettext("metavar", "FILE"), help=tr._("where to write the copy"))
    backup.add_argument("--overwrite", action="store_true", help=tr._("replace FILE if it exists"))
    backup.set_defaults(handler=_backup)
    restore = subparsers.add_parser(
        "restore",
        help=tr._("check FILE and copy it over the configured SQLite database (stop every Balcão process first)"),
        description=tr._("The database that was there is kept beside it as <name>.before-restore-<time>."),
    )
    restore.add_argument("file", type=Path, metavar=tr.pgettext("metavar", "FILE"), help=tr._("the backup to restore"))
    restore.set_defaults(handler=_restore)


def _refusal(error: BackupError, tr: Translator) -> CommandError:
    return CommandError(tr._(REFUSALS[str(error)]))


async def _backup(args: argparse.Namespace) -> int:
    settings = get_settings()
    tr = cli_translator(settings)
    try:
        facts = await asyncio.to_thread(
            backup_sqlite, database_url=settings.database_url, target=args.file, overwrite=args.overwrite
        )
    except BackupError as error:
        raise _refusal(error, tr) from None
    print(tr._("Backup written to {file} ({size} bytes, migration {revision}).").format(
        file=facts.path, size=tr.number(facts.size_bytes), revision=facts.revision))
    return 0


async def _restore(args: argparse.Namespace) -> int:
    settings = get_settings()
    tr = cli_translator(settings)
    try:
        facts, kept = await asyncio.to_thread(
            restore_sqlite, database_url=settings.database_url, backup=args.file, now=utcnow()
        )
    except BackupError as error:
        raise _refusal(error, tr) from None
    print(tr._("Restored {file} (migration {revision}).").format(file=facts.path, revision=facts.revision))
    if kept is not None:
        print(tr._("The database that was there is kept in {file}.").format(file=kept))
    print(tr._("Next: python -m bot db upgrade, then start Balcão again."))
    return 0
