"""The log's key out of the application's reach: a separate signer process, over a unix socket (issue 23, item 2).

``python -m bot log signer --socket PATH`` runs as its own system user, the only one that can read
``BALCAO_LOG_SIGNING_KEY_FILE``. The application is given ``BALCAO_LOG_SIGNER_SOCKET`` instead of the key file,
and holds no key: every append asks the signer to sign the new head (:class:`RemoteSigner`, a blocking round
trip of well under a millisecond on the same machine). An attacker who takes over the application can have heads
signed while the signer runs, but cannot take the key away to forge heads later or elsewhere, and the signer
refuses to sign a tree smaller than the largest it has signed (a rollback), remembering it in its state file.

The protocol, one request per connection: one byte (``P`` public key, ``L`` leaf key, ``S`` sign), a 4-byte
big-endian length and the payload (for ``S``, the canonical JSON a head's signature covers); the answer is a
status byte (``0`` granted, ``1`` refused) and a length-prefixed payload (the raw public key, the leaf key, the
signature, or the reason in English).
"""

from __future__ import annotations

import json
import socket
import struct
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from models.tlog.heads import HEAD_VERSION, leaf_key_of, raw_public

MAX_REQUEST = 4096
TIMEOUT_SECONDS = 5


class SignerError(Exception):
    """The signer refused, or could not be reached (the message says why, in English)."""


def _exchange(path: Path, op: bytes, payload: bytes = b"") -> bytes:
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.settimeout(TIMEOUT_SECONDS)
            connection.connect(str(path))
            connection.sendall(op + struct.pack(">I", len(payload)) + payload)
            answer = b""
            while len(answer) < 5 or len(answer) < 5 + struct.unpack(">I", answer[1:5])[0]:
                chunk = connection.recv(4096)
                if not chunk:
                    raise SignerError("the signer closed the connection")
                answer += chunk
    except OSError as exc:
        raise SignerError(f"the signer at {path} cannot be reached ({exc.__class__.__name__})") from None
    body = answer[5:]
    if answer[:1] != b"\x00":
        raise SignerError(body.decode("utf-8", "replace"))
    return body


class RemoteSigner:
    """Signs heads through the signer process; quacks like the key where the log signs (``sign``, ``public_key``).

    Raises:
        SignerError: (at construction) the signer cannot be reached.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._public = Ed25519PublicKey.from_public_bytes(_exchange(path, b"P"))
        self._leaf = _exchange(path, b"L")

    def sign(self, data: bytes) -> bytes:
        """The signer's Ed25519 signature of a head's signed bytes.

        Raises:
            SignerError: refused or unreachable (the commit that appends then fails: nothing unsigned is stored).
        """
        return _exchange(self.path, b"S", data)

    def public_key(self) -> Ed25519PublicKey:
        """The signer's public key (asked once, at start)."""
        return self._public

    def leaf_key(self) -> bytes:
        """The secret of version-2 leaves (derived from the key by the signer, asked once)."""
        return self._leaf


@dataclass(slots=True)
class SignerState:
    """What the signer process holds: the key and the largest tree it signed (kept in ``state_file``)."""

    key: Ed25519PrivateKey
    state_file: Path | None
    largest: int = 0

    def __post_init__(self) -> None:
        if self.state_file is not None and self.state_file.exists():
            self.largest = int(json.loads(self.state_file.read_text(encoding="utf-8"))["largest_tree_size"])

    def answer(self, op: bytes, payload: bytes) -> tuple[bool, bytes]:
        """The answer to one request: (granted, payload)."""
        if op == b"P":
            return True, raw_public(self.key.public_key())
        if op == b"L":
            return True, leaf_key_of(self.key)
        if op != b"S":
            return False, b"unknown request"
        try:
            head = json.loads(payload.decode("utf-8"))
            size = head["tree_size"]
            if head["version"] != HEAD_VERSION or not isinstance(size, int) or size < 0:
                raise ValueError("not a head")
        except (UnicodeDecodeError, ValueError, KeyError, TypeError):
            return False, b"not a tree head of this log"
        if size < self.largest:
            return False, f"refused: a tree of {size} entries after one of {self.largest} (a rollback)".encode()
        if size > self.largest:
            self.largest = size
            if self.state_file is not None:
                self.state_file.write_text(json.dumps({"largest_tree_size": size}), encoding="utf-8")
        return True, self.key.sign(payload)
