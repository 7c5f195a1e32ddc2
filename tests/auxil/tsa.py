"""A local RFC 3161 timestamp authority on 127.0.0.1 (aiohttp), signing real TimeStampResp tokens (EC P-256)."""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from aiohttp import web
from asn1crypto import algos, cms, tsp
from asn1crypto import x509 as asn1_x509
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

GEN_TIME = dt.datetime(2026, 3, 5, 23, 0, tzinfo=dt.UTC)


def _certificate(key: ec.EllipticCurvePrivateKey) -> x509.Certificate:
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Test TSA")])
    return (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(7).not_valid_before(GEN_TIME - dt.timedelta(days=1))
            .not_valid_after(GEN_TIME + dt.timedelta(days=365))
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.TIME_STAMPING]), critical=True)
            .sign(key, hashes.SHA256()))


def timestamp_response(request_der: bytes, *, key: ec.EllipticCurvePrivateKey, serial: int = 1,
                       imprint: bytes | None = None, gen_time: dt.datetime = GEN_TIME) -> bytes:
    """A granted TimeStampResp for a TimeStampReq (``imprint`` forges a different one) dated ``gen_time``."""
    request = tsp.TimeStampReq.load(request_der)
    message = request["message_imprint"]
    if imprint is not None:
        message = tsp.MessageImprint({"hash_algorithm": {"algorithm": "sha256"}, "hashed_message": imprint})
    tst = tsp.TSTInfo({"version": "v1", "policy": "1.3.6.1.4.1.4146.2.3", "message_imprint": message,
                       "serial_number": serial, "gen_time": gen_time, "nonce": request["nonce"].native})
    tst_der = tst.dump()
    attributes = [
        cms.CMSAttribute({"type": "content_type", "values": ["tst_info"]}),
        cms.CMSAttribute({"type": "message_digest", "values": [hashlib.sha256(tst_der).digest()]}),
    ]
    signature = key.sign(cms.CMSAttributes(attributes).dump(), ec.ECDSA(hashes.SHA256()))
    certificate = asn1_x509.Certificate.load(_certificate(key).public_bytes(serialization.Encoding.DER))
    signer = cms.SignerInfo({
        "version": "v1",
        "sid": cms.SignerIdentifier({"issuer_and_serial_number": cms.IssuerAndSerialNumber({
            "issuer": certificate.issuer, "serial_number": certificate.serial_number})}),
        "digest_algorithm": algos.DigestAlgorithm({"algorithm": "sha256"}),
        "signed_attrs": cms.CMSAttributes(attributes),
        "signature_algorithm": algos.SignedDigestAlgorithm({"algorithm": "sha256_ecdsa"}),
        "signature": signature,
    })
    signed = cms.SignedData({
        "version": "v3", "digest_algorithms": [algos.DigestAlgorithm({"algorithm": "sha256"})],
        "encap_content_info": {"content_type": "tst_info", "content": cms.ParsableOctetString(tst_der)},
        "certificates": [certificate], "signer_infos": [signer],
    })
    token = cms.ContentInfo({"content_type": "signed_data", "content": signed})
    return tsp.TimeStampResp({"status": {"status": "granted"}, "time_stamp_token": token}).dump()


@asynccontextmanager
async def local_tsa(*, forge: bool = False, now: bool = False, port: int = 0) -> AsyncIterator[tuple[str, list[bytes]]]:
    """A running TSA: yields its URL and the requests it received (its tokens say GEN_TIME, or ``now`` the
    moment of the request); ``port`` starts it again where an earlier one ran."""
    key = ec.generate_private_key(ec.SECP256R1())
    received: list[bytes] = []

    async def stamp(request: web.Request) -> web.Response:
        body = await request.read()
        received.append(body)
        answer = timestamp_response(body, key=key, serial=len(received),
                                    imprint=hashlib.sha256(b"something else").digest() if forge else None,
                                    gen_time=dt.datetime.now(dt.UTC) if now else GEN_TIME)
        return web.Response(body=answer, content_type="application/timestamp-reply")

    app = web.Application()
    app.router.add_post("/tsa", stamp)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", port, reuse_address=True)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield f"http://127.0.0.1:{port}/tsa", received
    finally:
        await runner.cleanup()
