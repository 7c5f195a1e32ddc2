"""``python -m bot log keygen FILE`` (the log's signing key) and ``python -m bot log head`` (the current head).

The key signs every tree head of the transparency log (:mod:`models.tlog`). It is made once, kept outside the
database (``BALCAO_LOG_SIGNING_KEY_FILE``) and never overwritten; its public half (printed by ``keygen`` and
served at ``/verificar/chave.pem``) is what anyone checks the heads with. ``log head`` prints the current
signed head as JSON: a copy kept elsewhere is what ``notice verify --head FILE`` later proves the past with.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import struct
from pathlib import Path

from bot.cli.errors import CommandError, file_problem
from bot.cli.output import cli_translator
from core import migrate
from core.db import database
from core.i18n import Translator
from core.settings import Settings, get_settings
from models.tlog.heads import (
    HeadFormatError,
    generate_key_file,
    key_id_of,
    load_key_file,
    public_pem,
    use_signing_key,
)
from models.tlog.notices import signed_current_head
from models.tlog.proofs import run
from models.tlog.signer import MAX_REQUEST, RemoteSigner, SignerError, SignerState
from models.tlog.signing import use_head_interval


def install_log_key(settings: Settings, *, heads_on_schedule: bool = False) -> None:
    """Install the signer of ``BALCAO_LOG_SIGNER_SOCKET``, or else the key of ``BALCAO_LOG_SIGNING_KEY_FILE``.

    ``run`` (``heads_on_schedule``) signs heads in its head job every ``BALCAO_TLOG_HEAD_INTERVAL`` seconds; a
    one-off command runs no head job, so each of its commits signs its own head.

    Raises:
        CommandError: the signer cannot be reached, or the file cannot be read.
    """
    use_head_interval(settings.tlog_head_interval if heads_on_schedule else 0)
    if settings.log_signer_socket is not None:
        try:
            use_signing_key(RemoteSigner(settings.log_signer_socket))
        except SignerError as exc:
            tr = cli_translator(settings)
            raise CommandError(tr._("{option}: {reason}").format(option="BALCAO_LOG_SIGNER_SOCKET",
                                                                 reason=str(exc))) from None
        return
    if settings.log_signing_key_file is None:
        return
    try:
        use_signing_key(load_key_file(settings.log_signing_key_file))
    except HeadFormatError as exc:
        tr = cli_translator(settings)
        raise CommandError(tr._("{option}: {reason}").format(option="BALCAO_LOG_SIGNING_KEY_FILE",
                                                             reason=exc.render(tr))) from None


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser], tr: Translator) -> None:
    """Add ``log`` to the command line."""
    log = subparsers.add_parser("log", help=tr._("the transparency log of notices: signing key, current tree head"))
    actions = log.add_subparsers(dest="log_command", metavar=tr.pgettext("metavar", "ACTION"), required=True)
    keygen = actions.add_parser("keygen", help=tr._("make the Ed25519 key that signs tree heads (never overwrites)"))
    keygen.add_argument("file", type=Path, metavar=tr.pgettext("metavar", "FILE"),
                        help=tr._("where to write the private key (PEM, mode 600)"))
    keygen.set_defaults(handler=_keygen, no_log_key=True)
    signer = actions.add_parser("signer", help=tr._("hold the signing key in this process and sign heads for the "
                                                    "application over a unix socket (run it as another user)"))
    signer.add_argument("--socket", type=Path, required=True, metavar=tr.pgettext("metavar", "FILE"),
                        help=tr._("the unix socket to listen on (the application's BALCAO_LOG_SIGNER_SOCKET)"))
    signer.add_argument("--state", type=Path, metavar=tr.pgettext("metavar", "FILE"),
                        help=tr._("where to remember the largest tree signed, so a rollback is refused"))
    signer.set_defaults(handler=_signer, no_log_key=True)
    head = actions.add_parser("head", help=tr._("print the current signed tree head (JSON) to keep elsewhere"))
    head.add_argument("--out", type=Path, metavar=tr.pgettext("metavar", "FILE"), help=tr._("write it to FILE instead"))
    head.set_defaults(handler=_head)


async def _keygen(args: argparse.Namespace) -> int:
    tr = cli_translator(get_settings())
    try:
        key = generate_key_file(args.file)
    except FileExistsError:
        raise CommandError(tr._("{path} already exists; a log key is never overwritten.").format(
            path=args.file)) from None
    except OSError as exc:
        raise CommandError(tr._("{path}: {reason}").format(path=args.file, reason=file_problem(tr, exc))) from None
    print(tr._("Key written to {path}. Set BALCAO_LOG_SIGNING_KEY_FILE={path} and keep a copy off this "
               "machine.").format(path=args.file))
    print(tr._("Key id: {key_id}").format(key_id=key_id_of(key.public_key())))
    print(public_pem(key.public_key()), end="")
    return 0


async def _signer(args: argparse.Namespace) -> int:
    settings = get_settings()
    tr = cli_translator(settings)
    if settings.log_signing_key_file is None:
        raise CommandError(tr._("{option}: {reason}").format(option="BALCAO_LOG_SIGNING_KEY_FILE",
                                                             reason=tr._("the signer needs the key file")))
    try:
        state = SignerState(key=load_key_file(settings.log_signing_key_file), state_file=args.state)
    except HeadFormatError as exc:
        raise CommandError(tr._("{option}: {reason}").format(option="BALCAO_LOG_SIGNING_KEY_FILE",
                                                             reason=exc.render(tr))) from None

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            header = await reader.readexactly(5)
            length = struct.unpack(">I", header[1:])[0]
            granted, payload = (False, b"request too long") if length > MAX_REQUEST else state.answer(
                header[:1], await reader.readexactly(length))
            writer.write((b"\x00" if granted else b"\x01") + struct.pack(">I", len(payload)) + payload)
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    args.socket.unlink(missing_ok=True)
    server = await asyncio.start_unix_server(serve, path=str(args.socket))
    args.socket.chmod(0o660)  # the application's group may connect; nobody may read the key through it
    print(tr._("Signing heads on {path} (key id {key_id}).").format(path=args.socket,
                                                                     key_id=key_id_of(state.key.public_key())),
          flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for name in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(name, stop.set)
    async with server:
        await stop.wait()
    args.socket.unlink(missing_ok=True)
    return 0


async def _head(args: argparse.Namespace) -> int:
    settings = get_settings()
    await migrate.check_schema(settings.database_url)
    async with database(settings.database_url) as (_engine, sessions), sessions() as session:
        head = await run(session, signed_current_head)
    text = json.dumps(head.to_json(), indent=2, sort_keys=True) + "\n"
    if args.out is None:
        print(text, end="")
    else:
        args.out.write_text(text, encoding="utf-8")
    return 0
