"""RFC 3161 timestamps of tree heads: the request, and the checks of a response and of a stored token.

A timestamp authority (TSA, ``BALCAO_TSA_URL``) signs the SHA-256 of a head's signed bytes with its own clock,
so a head kept with its token proves the log had that content no later than that time, even to someone who
does not trust the city hall's clock. The token is a CMS ``SignedData`` whose content is a ``TSTInfo``; it is
checked here as stored: the ``messageImprint`` must be SHA-256 of the head, the nonce the one sent, the CMS
``messageDigest`` attribute the digest of the ``TSTInfo``, and the signature valid under the certificate the
token carries. (Which TSA to trust is the verifier's choice: the certificate is returned for them to pin.)
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass

from asn1crypto import cms, tsp
from asn1crypto.core import Asn1Value
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

CONTENT_TYPE = "application/timestamp-query"
REPLY_TYPE = "application/timestamp-reply"


class TimestampError(ValueError):
    """A response or token that does not timestamp the head it should."""


@dataclass(frozen=True, slots=True)
class Timestamp:
    """What a valid token says."""

    gen_time: dt.datetime
    serial: int
    nonce: int | None
    tsa_certificate: bytes  # DER


def request(data: bytes, *, nonce: int) -> bytes:
    """A DER ``TimeStampReq`` for SHA-256 of ``data``, asking for the TSA's certificate."""
    return tsp.TimeStampReq({
        "version": "v1",
        "message_imprint": {"hash_algorithm": {"algorithm": "sha256"}, "hashed_message": hashlib.sha256(data).digest()},
        "nonce": nonce,
        "cert_req": True,
    }).dump()


def token_of_response(response: bytes, data: bytes, *, nonce: int) -> bytes:
    """The token (DER ``ContentInfo``) of a ``TimeStampResp``, once it is checked against ``data`` and ``nonce``.

    Raises:
        TimestampError: refused by the TSA, malformed, or not for this head.
    """
    try:
        parsed = tsp.TimeStampResp.load(response)
        status = parsed["status"]["status"].native
        token = parsed["time_stamp_token"]
        if status not in ("granted", "granted_with_mods") or token.native is None:
            raise TimestampError(f"the TSA refused the request ({status})")
        der = token.dump()
    except (ValueError, TypeError, KeyError) as exc:
        if isinstance(exc, TimestampError):
            raise
        raise TimestampError(f"not a TimeStampResp: {exc.__class__.__name__}") from None
    stamp = check_token(der, data)
    if stamp.nonce != nonce:
        raise TimestampError("the nonce differs from the one sent")
    return der


def _verify(certificate: x509.Certificate, signature: bytes, signed: bytes) -> None:
    key = certificate.public_key()
    try:
        if isinstance(key, ec.EllipticCurvePublicKey):
            key.verify(signature, signed, ec.ECDSA(hashes.SHA256()))
        elif isinstance(key, rsa.RSAPublicKey):
            key.verify(signature, signed, padding.PKCS1v15(), hashes.SHA256())
        elif isinstance(key, Ed25519PublicKey):
            key.verify(signature, signed)
        else:
            raise TimestampError("the TSA's key type is not supported")
    except InvalidSignature:
        raise TimestampError("the TSA's signature is not valid") from None


def _attribute(attributes: Asn1Value, name: str) -> object:
    for attribute in attributes:
        if attribute["type"].native == name:
            return attribute["values"][0].native
    raise TimestampError(f"the token has no {name} attribute")


def check_token(token: bytes, data: bytes) -> Timestamp:
    """Check a stored token: it timestamps SHA-256 of ``data`` and its signature holds.

    Raises:
        TimestampError: it does not.
    """
    try:
        info = cms.ContentInfo.load(token)
        if info["content_type"].native != "signed_data":
            raise TimestampError("the token is not CMS SignedData")
        signed = info["content"]
        encap = signed["encap_content_info"]
        if encap["content_type"].native != "tst_info":
            raise TimestampError("the token does not carry a TSTInfo")
        tst_der = encap["content"].contents
        tst = tsp.TSTInfo.load(tst_der)
        imprint = tst["message_imprint"]
        if imprint["hash_algorithm"]["algorithm"].native != "sha256":
            raise TimestampError("the token's imprint is not SHA-256")
        if imprint["hashed_message"].native != hashlib.sha256(data).digest():
            raise TimestampError("the token's messageImprint is not this head's SHA-256")
        signer = signed["signer_infos"][0]
        attributes = signer["signed_attrs"]
        if _attribute(attributes, "message_digest") != hashlib.sha256(tst_der).digest():
            raise TimestampError("the token's messageDigest is not the TSTInfo's")
        certificates = [c.chosen for c in signed["certificates"]]
        if not certificates:
            raise TimestampError("the token carries no certificate")
        certificate_der = certificates[0].dump()
        certificate = x509.load_der_x509_certificate(certificate_der)
        _verify(certificate, signer["signature"].native, b"\x31" + attributes.dump()[1:])
        return Timestamp(gen_time=tst["gen_time"].native, serial=int(tst["serial_number"].native),
                         nonce=tst["nonce"].native, tsa_certificate=certificate_der)
    except (ValueError, TypeError, KeyError, IndexError) as exc:
        if isinstance(exc, TimestampError):
            raise
        raise TimestampError(f"malformed token: {exc.__class__.__name__}") from None
