"""Signed tree heads: Ed25519 over the canonical JSON of ``{key_id, root_hash, timestamp, tree_size, version}``.

The key lives outside the database, in the PEM file named by ``BALCAO_LOG_SIGNING_KEY_FILE``
(``python -m bot log keygen FILE`` makes one); the process installs it at start (:func:`use_signing_key`) and
every append signs the new head, so rows changed in the database by someone without the key cannot be given a
valid head. The key id is the SHA-256 of the raw public key, in hex.

A head as published (``/verificar/sth.json``, the daily files) is JSON::

    {"version": "balcao-tlog/1", "tree_size": 42, "timestamp": 1767225600000,
     "root_hash": "<base64>", "key_id": "<hex>", "public_key": "<base64 raw Ed25519>",
     "signature": "<base64>", "tsa_token": "<base64 DER RFC 3161 token, optional>"}

and its signature covers :func:`signed_bytes` (the same object without ``signature``, ``public_key`` and
``tsa_token``, in canonical JSON).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from core.i18n import N_
from models.invalid_input import InvalidInput
from models.tlog.coverage import canonical, use_leaf_key

HEAD_VERSION = "balcao-tlog/1"


class HeadFormatError(InvalidInput):
    """A tree head file or key file that cannot be read (``render(tr)`` says why, in the reader's language)."""


@dataclass(frozen=True, slots=True)
class TreeHead:
    """A tree head, signed or not."""

    tree_size: int
    root_hash: bytes
    timestamp: int  # ms since the epoch, UTC
    key_id: str | None = None
    signature: bytes | None = None
    public_key: bytes | None = None
    tsa_token: bytes | None = None

    def signed_bytes(self) -> bytes:
        """What the signature (and an RFC 3161 timestamp) covers."""
        return signed_bytes(tree_size=self.tree_size, root_hash=self.root_hash, timestamp=self.timestamp,
                            key_id=self.key_id or "")

    def to_json(self) -> dict[str, Any]:
        """The published form."""
        out: dict[str, Any] = {
            "version": HEAD_VERSION, "tree_size": self.tree_size, "timestamp": self.timestamp,
            "root_hash": _b64(self.root_hash), "key_id": self.key_id,
            "signature": _b64(self.signature) if self.signature else None,
            "public_key": _b64(self.public_key) if self.public_key else None,
        }
        if self.tsa_token:
            out["tsa_token"] = _b64(self.tsa_token)
        return out

    @classmethod
    def from_json(cls, value: Any) -> TreeHead:
        """Read a published head.

        Raises:
            HeadFormatError: not a head of this log.
        """
        try:
            if value["version"] != HEAD_VERSION:
                raise HeadFormatError(N_('unknown head version "{version}"'), version=value["version"])
            size, stamp = value["tree_size"], value["timestamp"]
            if not isinstance(size, int) or not isinstance(stamp, int) or size < 0:
                raise HeadFormatError(N_("tree_size and timestamp must be integers"))
            root = base64.b64decode(value["root_hash"], validate=True)
            if len(root) != 32:
                raise HeadFormatError(N_("root_hash is not 32 bytes"))
            return cls(
                tree_size=size, root_hash=root, timestamp=stamp, key_id=value.get("key_id"),
                signature=_unb64(value.get("signature")), public_key=_unb64(value.get("public_key")),
                tsa_token=_unb64(value.get("tsa_token")),
            )
        except HeadFormatError:
            raise
        except KeyError as exc:
            raise HeadFormatError(N_("not a tree head: {field} is missing"), field=exc.args[0]) from exc
        except (TypeError, ValueError) as exc:
            raise HeadFormatError(N_("not a tree head ({detail})"), detail=exc) from exc


def _b64(value: bytes) -> str:
    return base64.b64encode(value).decode("ascii")


def _unb64(value: Any) -> bytes | None:
    return None if value is None else base64.b64decode(value, validate=True)


def signed_bytes(*, tree_size: int, root_hash: bytes, timestamp: int, key_id: str) -> bytes:
    """The canonical JSON a head's signature covers."""
    return canonical({"version": HEAD_VERSION, "tree_size": tree_size, "root_hash": _b64(root_hash),
                      "timestamp": timestamp, "key_id": key_id})


def raw_public(key: Ed25519PublicKey) -> bytes:
    """The 32 raw bytes of a public key."""
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def key_id_of(key: Ed25519PublicKey) -> str:
    """SHA-256 of the raw public key, hex."""
    return hashlib.sha256(raw_public(key)).hexdigest()


def sign_head(*, tree_size: int, root_hash: bytes, timestamp: int, key: HeadKey) -> TreeHead:
    """A head signed with ``key``."""
    public = key.public_key()
    key_id = key_id_of(public)
    signature = key.sign(signed_bytes(tree_size=tree_size, root_hash=root_hash, timestamp=timestamp, key_id=key_id))
    return TreeHead(tree_size=tree_size, root_hash=root_hash, timestamp=timestamp, key_id=key_id,
                    signature=signature, public_key=raw_public(public))


def signature_is_valid(head: TreeHead, key: Ed25519PublicKey) -> bool:
    """Whether ``head`` is signed by ``key`` (its key id must be the key's, too)."""
    if head.signature is None or head.key_id != key_id_of(key):
        return False
    try:
        key.verify(head.signature, head.signed_bytes())
    except InvalidSignature:
        return False
    return True


def generate_key_file(path: Path) -> Ed25519PrivateKey:
    """Write a new Ed25519 key (PKCS#8 PEM, readable by the owner only) to a file that must not exist.

    Raises:
        FileExistsError: the file exists (a log key is never overwritten).
    """
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(pem)
    return key


def load_key_file(path: Path) -> Ed25519PrivateKey:
    """Read the log's signing key.

    Raises:
        HeadFormatError: missing, unreadable or not an Ed25519 private key.
    """
    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except FileNotFoundError:
        raise HeadFormatError(N_("{path}: no such file"), path=path) from None
    except (OSError, ValueError, TypeError) as exc:
        raise HeadFormatError(N_("{path}: cannot read the log signing key ({error})"), path=path,
                              error=exc.__class__.__name__) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise HeadFormatError(N_("{path}: not an Ed25519 private key"), path=path)
    return key


def load_public_key(path: Path) -> Ed25519PublicKey:
    """A public key from a PEM file, or the public half of a private key file.

    Raises:
        HeadFormatError: not an Ed25519 key.
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise HeadFormatError(N_("{path}: no such file"), path=path) from None
    except OSError as exc:
        raise HeadFormatError(N_("{path}: cannot read the file ({error})"), path=path,
                              error=exc.strerror or exc.__class__.__name__) from None
    if b"PRIVATE KEY" in data:
        return load_key_file(path).public_key()
    try:
        key = serialization.load_pem_public_key(data)
    except ValueError:
        raise HeadFormatError(N_("{path}: not a PEM public key"), path=path) from None
    if not isinstance(key, Ed25519PublicKey):
        raise HeadFormatError(N_("{path}: not an Ed25519 public key"), path=path)
    return key


def public_pem(key: Ed25519PublicKey) -> str:
    """A public key as PEM text (what the README tells verifiers to keep)."""
    return key.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()


_signing_key: HeadKey | None = None


LEAF_KEY_LABEL = b"balcao-tlog/leaf-key/2"


def leaf_key_of(key: Ed25519PrivateKey) -> bytes:
    """The secret of version-2 leaves, derived from the signing key (HMAC-SHA256 of a fixed label)."""
    raw = key.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                            serialization.NoEncryption())
    return hmac.new(raw, LEAF_KEY_LABEL, hashlib.sha256).digest()


class HeadKey(Protocol):
    """What signs heads: the Ed25519 key itself, or :class:`models.tlog.signer.RemoteSigner` (no key here)."""

    def sign(self, data: bytes) -> bytes:
        """An Ed25519 signature of ``data``."""
        ...

    def public_key(self) -> Ed25519PublicKey:
        """The public half."""
        ...


def use_signing_key(key: HeadKey | None) -> None:
    """Install what this process signs heads with (at start, from settings); ``None``: heads stay unsigned.

    It also installs the leaf key derived from the key (:func:`models.tlog.coverage.use_leaf_key`); a remote
    signer gives it.
    """
    global _signing_key
    _signing_key = key
    if key is None:
        use_leaf_key(None)
    elif isinstance(key, Ed25519PrivateKey):
        use_leaf_key(leaf_key_of(key))
    else:
        use_leaf_key(key.leaf_key())  # type: ignore[attr-defined]


def signing_key() -> HeadKey | None:
    """The key installed by :func:`use_signing_key`."""
    return _signing_key
