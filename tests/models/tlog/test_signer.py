"""Issue 23, item 2: the signing key out of the application's reach. ``python -m bot log signer`` holds it in its own
process; the application signs every head through the socket and holds no key, and the signer refuses to sign a
smaller tree than it already signed (a rollback)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlmodel.ext.asyncio.session import AsyncSession

from models.audit import record
from models.tlog.heads import signature_is_valid, signed_bytes, signing_key, use_signing_key
from models.tlog.proofs import current_head, run
from models.tlog.signer import RemoteSigner, SignerError
from tests.auxil.tlog import verify

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def signer_socket(tmp_path: Path, log_key: Ed25519PrivateKey) -> Iterator[Path]:
    key_file = tmp_path / "log.pem"
    key_file.write_bytes(log_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
    socket_path = tmp_path / "signer.sock"
    env = {**os.environ, "BALCAO_LOG_SIGNING_KEY_FILE": str(key_file), "BALCAO_CLI_LOCALE": "en",
           "BALCAO_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'unused.db'}", "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-m", "bot", "log", "signer", "--socket", str(socket_path),
                                "--state", str(tmp_path / "signer.json")], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()  # printed once it listens
        assert "Signing heads on" in line, (line, process.stderr.read() if process.stderr else "")
        yield socket_path
    finally:
        process.terminate()
        process.wait(timeout=30)


async def test_the_application_signs_every_head_through_the_signer_and_holds_no_key(
    session: AsyncSession, signer_socket: Path, log_key: Ed25519PrivateKey
) -> None:
    use_signing_key(RemoteSigner(signer_socket))
    installed = signing_key()
    assert installed is not None and not hasattr(installed, "private_bytes")  # no key in this process
    for n in range(3):
        await record(session=session, actor="staff:1", action="x", entity="case", entity_id=str(n))
        await session.commit()
    head = await run(session, current_head)
    assert head.tree_size == 3 and signature_is_valid(head, log_key.public_key())
    assert (await verify(session)).ok
    with pytest.raises(SignerError, match="rollback"):  # a head for an older, smaller tree is refused
        RemoteSigner(signer_socket).sign(signed_bytes(tree_size=1, root_hash=bytes(32), timestamp=1,
                                                      key_id=head.key_id or ""))
    with pytest.raises(SignerError, match="not a tree head"):  # it signs heads, not whatever it is sent
        RemoteSigner(signer_socket).sign(b"any document at all")
