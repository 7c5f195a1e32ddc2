"""Issue 18 "Done when": an auto issued in the console by a designated inspector, decided in the first instance by
the Chefe do Departamento and on appeal by the Prefeito, is a signed PDF at each step.

Each PDF names its author (name, office, matrícula, designation act: issue 18 §1), validates with pyHanko's validator
and with poppler's ``pdfsig`` (L14063 Art. 4 II), and ``/verificar`` reports each one's signature. The
impeded decisions are refused with their article: the autuante judging the reclamação against their own auto
(L9784 Art. 18 I; CF Art. 37), a clerk without the competence (CP Art. 40), the first-instance decider deciding
the appeal (L9784 Art. 13 II, Art. 56 §1). The person's own steps (ciência, reclamação, appeal) go through the
domain functions the chat calls; every staff step goes through the console's routes with a signed-in session.
"""

from __future__ import annotations

import base64
import datetime as dt
import io
import re
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient
from asn1crypto import x509
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.validation import async_validate_pdf_signature
from pyhanko_certvalidator import ValidationContext
from sqlmodel import col, select

from core.db import SessionFactory
from core.municipality import Publication, cities_of
from core.settings import Settings
from models.notices.delivery import record_explicit_ciencia
from models.notices.filings import FilingRefused, decide_filing, file_filing
from models.notices.tables import DocumentKind, FilingKind, FilingOutcome, Notice, NoticeDelivery, NoticeFiling
from models.people import Role
from models.signatures.validation import read_roots
from notifications.notice_messages import DECISION
from tests.auxil.console import console_client, sign_in
from tests.auxil.notices import (
    AUTUANTE,
    CHEFE,
    PREFEITO,
    cast,
    designate,
    opted_in,
    outbox,
    pdf_plain_text,
    person,
    staff,
)
from tests.auxil.signing import pdfsig

NOW = dt.datetime(2026, 3, 2, 14, 0, tzinfo=dt.UTC)  # a Monday, 10:00 in Cuiabá
MARIA, ANA = 5101, 97010
CODE = re.compile(r"\b[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}\b")


def roots(settings: Settings) -> list[x509.Certificate]:
    signing = settings.municipalities["nova-xavantina"].signing
    assert signing is not None
    return read_roots(signing.trust_roots)


async def assert_signed_by_the_prefeitura(pdf: bytes, settings: Settings, tmp_path: Path) -> str:
    """The PDF validates with pyHanko (trusted, whole file) and with pdfsig; its text as pdftotext reads it."""
    status = await async_validate_pdf_signature(
        PdfFileReader(io.BytesIO(pdf)).embedded_signatures[0],
        signer_validation_context=ValidationContext(trust_roots=roots(settings), allow_fetching=False))
    assert status.bottom_line and status.trusted
    assert status.signing_cert.subject.native["common_name"] == "Prefeitura Municipal de Nova Xavantina"
    checked = pdfsig(pdf, tmp_path)
    assert "Signature is Valid" in checked and "Total document signed" in checked
    return pdf_plain_text(pdf)


async def decide(client: TestClient, csrf: str, filing_id: int, outcome: str, text: str) -> tuple[int, str]:
    response = await client.post(f"/painel/defesas/{filing_id}/decisao", allow_redirects=False,
                                 data={"csrf": csrf, "outcome": outcome, "text": text})
    return response.status, await response.text()


async def delivery_of(sessions: SessionFactory, notice_id: int, document: DocumentKind) -> NoticeDelivery:
    async with sessions() as session:
        return (await session.exec(select(NoticeDelivery).where(
            NoticeDelivery.notice_id == notice_id, NoticeDelivery.document == document)
            .order_by(col(NoticeDelivery.id).desc()))).first()  # type: ignore[return-value]


@pytest.fixture
async def maria_id(sessions: SessionFactory, signed_settings: Settings) -> int:
    async with sessions() as session:
        await cast(session, signed_settings)  # the designated inspector, the Chefe, the Prefeito
        await staff(session, ANA, "Ana Atendente", Role.CLERK)  # a clerk without any competence
        maria = await person(session, MARIA, "Maria")
        assert maria.id is not None
        await opted_in(session, maria.id, now=NOW)
        return maria.id


async def test_console_auto_first_instance_and_appeal_each_a_signed_pdf_naming_its_author(
    signed_settings: Settings, sessions: SessionFactory, maria_id: int, tmp_path: Path
) -> None:
    settings = signed_settings
    async with console_client(settings, sessions, NOW) as client:
        # CP Art. 12, 34: the designated inspector draws up and issues the auto in the console.
        csrf = await sign_in(client, sessions, settings, AUTUANTE)
        issued = await client.post("/painel/notificacoes/nova", allow_redirects=False, data={
            "csrf": csrf, "type": "auto", "rulebook": "nx-posturas", "infraction_code": "CP-I-1",
            "offender_name": "Maria Aparecida da Silva", "place": "Rua 7 de Setembro, 200",
            "drawn_up_on": "2026-03-02", "drawn_up_time": "09:00", "facts": "Terreno com mato alto.",
            "person_telegram_id": str(MARIA)})
        assert issued.status == 303, await issued.text()
        async with sessions() as session:
            notice = (await session.exec(select(Notice))).one()
        assert notice.id is not None
        text = await assert_signed_by_the_prefeitura(notice.pdf, settings, tmp_path)
        assert "Inês Fiscal" in text and "1234" in text  # the auto names its author (issue 18 §2)
        found = CODE.search(text)
        assert found is not None
        code = found.group(0)

        # The person takes ciência in the chat and files a reclamação (CP Art. 37).
        async with sessions() as session:
            delivery = await delivery_of(sessions, notice.id, DocumentKind.NOTICE)
            assert delivery.id is not None
            await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                          person_id=maria_id, now=NOW)
            reclamacao = await file_filing(session=session, cities=cities_of(settings), notice_id=notice.id,
                                           person_id=maria_id, text="O terreno foi limpo no dia seguinte.", now=NOW)
            assert reclamacao.id is not None and reclamacao.kind is FilingKind.RECLAMACAO
            # L9784 Art. 18 I, CF Art. 37: the autuante, even holding the first-instance competence, may not
            # judge a reclamação against their own auto; the console does not even open the page to an inspector.
            await designate(session, settings, AUTUANTE, "primeira_instancia")
            with pytest.raises(FilingRefused) as impeded:
                await decide_filing(session=session, cities=cities_of(settings),
                                    publication=Publication.of(settings), filing_id=reclamacao.id,
                                    outcome=FilingOutcome.DENIED, text="Improcedente: " + "x" * 40,
                                    decider_telegram_id=AUTUANTE, now=NOW)
        assert impeded.value.citation == "Lei 9.784/1999, Art. 18, I; CF, Art. 37"
        reasons = "Improcedente: as fotos da fiscalização mostram o mato alto no dia da autuação."
        assert (await decide(client, csrf, reclamacao.id, "denied", reasons))[0] == 403

        # CP Art. 40: a clerk without the Chefe's competence is refused, with the article.
        csrf = await sign_in(client, sessions, settings, ANA)
        status, page = await decide(client, csrf, reclamacao.id, "denied", reasons)
        assert status == 422 and "Art. 40" in page

        # The Chefe do Departamento decides: a signed PDF naming him, his office, matrícula and portaria.
        csrf = await sign_in(client, sessions, settings, CHEFE)
        assert (await decide(client, csrf, reclamacao.id, "denied", reasons))[0] == 303
        async with sessions() as session:
            first = await session.get(NoticeFiling, reclamacao.id)
        assert first is not None and first.decision_pdf is not None
        text = await assert_signed_by_the_prefeitura(first.decision_pdf, settings, tmp_path)
        for shown in ("Carlos Chefe", "Chefe do Departamento", "matrícula nº 2345", "Portaria nº 97002/2026",
                      reasons[:60], "Art. 40 e 41", "Lei nº 9.784/1999, Art. 50", notice.number,
                      "Assinada eletronicamente em 02/03/2026 às 10:00 por Carlos Chefe",
                      "DECISÃO SOBRE A RECLAMAÇÃO (PRIMEIRA INSTÂNCIA)", "Improcedente: a notificação continua valendo",
                      # L9784 Art. 26 §1 III: what she may do next, and by when
                      "Você pode recorrer em até 10 dias úteis, contados do dia em que receber esta",
                      "Art. 43", "O processo continua"):  # §1 V: it goes on whether or not she acts
            assert shown in text, shown
        served = await client.get(f"/painel/defesas/{reclamacao.id}/decisao.pdf")
        assert served.status == 200 and await served.read() == first.decision_pdf  # available in the console
        assert (await client.get("/painel/defesas/999999/decisao.pdf")).status == 404  # no such signed decision
        listed = await (await client.get("/painel/notificacoes")).text()
        assert f'href="/painel/defesas/{reclamacao.id}/decisao.pdf"' in listed

        # Delivered in the chat with its PDF; the person takes ciência of it and appeals (CP Art. 43–44).
        async with sessions() as session:
            sent = [row for row in await outbox(session, DECISION) if row.payload["filing_id"] == reclamacao.id]
            assert base64.b64decode(sent[0].payload["pdf_b64"]) == first.decision_pdf
            decision_delivery = await delivery_of(sessions, notice.id, DocumentKind.DECISION)
            assert decision_delivery.id is not None
            await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=decision_delivery.id,
                                          person_id=maria_id, now=NOW)
            appeal = await file_filing(session=session, cities=cities_of(settings), notice_id=notice.id,
                                       person_id=maria_id,
                                       text="Recorro: limpei o terreno antes do prazo.", now=NOW)
            assert appeal.id is not None and appeal.kind is FilingKind.RECURSO
            await designate(session, settings, CHEFE, "segunda_instancia")

        # L9784 Art. 13 II, 56 §1: the first-instance decider may not decide the appeal against his decision,
        # even holding the second-instance competence.
        status, page = await decide(client, csrf, appeal.id, "denied", reasons)
        assert status == 422 and "Art. 13, II e Art. 56" in page

        # CP Art. 45: the Prefeito decides the appeal in person: a second signed PDF, naming her.
        csrf = await sign_in(client, sessions, settings, PREFEITO)
        final = "Improcedente o recurso: a limpeza ocorreu depois da autuação, como consta do termo."
        assert (await decide(client, csrf, appeal.id, "denied", final))[0] == 303
        async with sessions() as session:
            second = await session.get(NoticeFiling, appeal.id)
        assert second is not None and second.decision_pdf is not None
        text = await assert_signed_by_the_prefeitura(second.decision_pdf, settings, tmp_path)
        for shown in ("Paula Prefeita", "matrícula nº 3456", "Portaria nº 97003/2026", final[:60], "Art. 43 a 45",
                      "DECISÃO SOBRE O RECURSO (SEGUNDA INSTÂNCIA)", "Esta decisão é final na esfera administrativa",
                      "Pague a multa em até"):  # CP Art. 47: the payment window it opens
            assert shown in text, shown

        # /verificar reports the signature of each decision's PDF beside the notice's.
        page = await (await client.get(f"/verificar/{code}")).text()
        for number in (1, 2):
            found_dd = re.search(rf'<dd class="ok" id="assinatura-decisao-{number}">([^<]+)</dd>', page)
            assert found_dd is not None and "Válida" in found_dd.group(1), page
