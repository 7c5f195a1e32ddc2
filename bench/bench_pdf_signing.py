"""What a PAdES signature adds to a notice: milliseconds to sign and to validate, and bytes, without a TSA.

A notice PDF is rendered once, then signed N times with a certificate of the local test CA (``bot.sandbox.signing_ca``,
EC P-256) and validated N times with pyHanko's validator, as ``/verificar`` does. Prints the median and the slowest
of each, and the size before and after.

    python bench/bench_pdf_signing.py          # 50 signatures
    python bench/bench_pdf_signing.py -n 200
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import statistics
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.sandbox.signing_ca import issue_signing_certificate  # noqa: E402
from core.i18n import translator  # noqa: E402
from models.notices.pdf import PdfContext, render_notice_pdf  # noqa: E402
from models.notices.tables import Notice, NoticeType  # noqa: E402
from models.signatures.pades import SigningConfig, sign_pdf  # noqa: E402
from models.signatures.validation import check_pdf_signature, read_roots  # noqa: E402


def _notice() -> Notice:
    moment = dt.datetime(2026, 3, 2, 12, 30, tzinfo=dt.UTC)
    return Notice(number="AI-2026-000001", municipality="nova-xavantina", type=NoticeType.AUTO,
                  rulebook="nx-posturas", infraction_code="CP-I-1", infraction_article="Art. 53",
                  infraction_description="Terreno sem limpeza", offender_name="Maria", place="Rua 7, 200",
                  drawn_up_at=moment, facts="Mato alto.", issuer_name="Inês", fine_cents=37800, fine_units="9",
                  fine_unit="UPF-NX", code_hash="0" * 64, pdf=b"", pdf_sha256="", issued_at=moment)


async def main(count: int) -> None:
    tr = translator("pt_BR")
    context = PdfContext(municipality="Nova Xavantina", law_title="Código de Posturas", code="7K2M-QX9D-4HRT",
                         verify_url="http://127.0.0.1:8080/verificar/7K2M-QX9D-4HRT",
                         fine_detail=f"9 UPF-NX = R$ {Decimal('378.00')}", deadline_lines=["30 dias"],
                         signed_line="Inês")
    pdf = render_notice_pdf(notice=_notice(), context=context, tr=tr)
    with tempfile.TemporaryDirectory() as directory:
        certificate = issue_signing_certificate(Path(directory), slug="nx", holder="Prefeitura Municipal de NX")
        config = SigningConfig(certificate=certificate, password=None, tsa_url=None)
        roots = read_roots(certificate.trust_roots)
        signing, checking = [], []
        signed = pdf
        for _ in range(count):
            start = time.perf_counter()
            signed = await sign_pdf(pdf, signing=config, reason="bench", location="NX")
            signing.append(time.perf_counter() - start)
            start = time.perf_counter()
            report = await check_pdf_signature(signed, trust_roots=roots)
            checking.append(time.perf_counter() - start)
            assert report.intact and report.trusted
    for name, times in (("sign", signing), ("validate", checking)):
        print(f"{name:>8}: median {statistics.median(times) * 1000:.1f} ms, slowest {max(times) * 1000:.1f} ms "
              f"({count} runs)")
    print(f"    size: {len(pdf)} bytes unsigned, {len(signed)} signed (+{len(signed) - len(pdf)})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=50, help="signatures to make and check")
    asyncio.run(main(parser.parse_args().n))
