"""A local test certificate authority and one signing certificate per municipality, for the demo and the tests.

Production signs with an ICP-Brasil e-CNPJ (or a gov.br certificate); the demo and the tests cannot, so they make
their own CA here (``cryptography``) and sign with a certificate it issues. ``/verificar`` trusts that CA because
it is the configured ``trust_roots``; no real reader would.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from core.municipalities import Municipalities, SigningCertificate
from core.settings import Settings

VALID_FROM = dt.datetime(2020, 1, 1, tzinfo=dt.UTC)
VALID_UNTIL = dt.datetime(2040, 1, 1, tzinfo=dt.UTC)


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COUNTRY_NAME, "BR"),
                      x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Balcão (teste, sem validade jurídica)"),
                      x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _write_key(path: Path, key: ec.EllipticCurvePrivateKey) -> None:
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    path.chmod(0o600)


def make_test_ca(directory: Path) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    """A self-signed CA (``ca.pem``, ``ca-key.pem`` in ``directory``), made once and reused."""
    directory.mkdir(parents=True, exist_ok=True)
    cert_path, key_path = directory / "ca.pem", directory / "ca-key.pem"
    if cert_path.is_file() and key_path.is_file():
        key = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
        assert isinstance(key, ec.EllipticCurvePrivateKey)
        return x509.load_pem_x509_certificate(cert_path.read_bytes()), key
    key = ec.generate_private_key(ec.SECP256R1())
    name = _name("AC de teste do Balcão")
    certificate = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(VALID_FROM).not_valid_after(VALID_UNTIL)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False, key_encipherment=False,
                                     data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                     crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
        .sign(key, hashes.SHA256())
    )
    _write_key(key_path, key)
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    return certificate, key


def issue_signing_certificate(directory: Path, *, slug: str, holder: str) -> SigningCertificate:
    """A signing certificate for ``holder`` (the Prefeitura) from the test CA, as a key and certificate in PEM.

    The key usage is that of an e-CNPJ: digital signature and non-repudiation (content commitment).
    """
    ca_cert, ca_key = make_test_ca(directory)
    key = ec.generate_private_key(ec.SECP256R1())
    certificate = (
        x509.CertificateBuilder().subject_name(_name(holder)).issuer_name(ca_cert.subject)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(VALID_FROM).not_valid_after(VALID_UNTIL)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=True, key_encipherment=False,
                                     data_encipherment=False, key_agreement=False, key_cert_sign=False,
                                     crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key_path, cert_path = directory / f"{slug}-key.pem", directory / f"{slug}.pem"
    _write_key(key_path, key)
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    return SigningCertificate(key_file=key_path, cert_file=cert_path, chain_files=(directory / "ca.pem",),
                              trust_roots=(directory / "ca.pem",))


def with_test_certificates(settings: Settings, directory: Path) -> Settings:
    """``settings`` where every municipality without a certificate signs with one from the test CA."""
    served = settings.municipalities
    items = tuple(
        item if item.signing is not None else item.model_copy(update={"signing": issue_signing_certificate(
            directory, slug=item.slug, holder=item.prefeitura)})
        for item in served.values()
    )
    return settings.with_municipalities(Municipalities(items, source=served.source))
