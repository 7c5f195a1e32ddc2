"""A defence, reclamação or appeal through the emulator, as the representação is filed (issue 19 §1, §2, §4.1;
issue 20 §3): every kind of file the representação takes, a typed "sim" at the review, a protocol number and a
signed receipt.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

from sqlmodel import col, select

from core.db import SessionFactory
from core.municipality import cities_of
from core.settings import Settings
from models.drafts import get_draft
from models.notices.delivery import record_explicit_ciencia
from models.notices.tables import NoticeAttachment, NoticeDelivery, NoticeFiling
from models.signatures.validation import check_pdf_signature, read_roots
from tests.auxil.bot_harness import running_bot
from tests.auxil.case_chat import Talk
from tests.auxil.case_files import mp4, ogg, png
from tests.auxil.notices import cp_auto, issue, opted_in, pdf_text, person
from tests.auxil.signing import pdfsig

MARIA = 860101


async def _notified_auto(sessions: SessionFactory, settings: Settings, telegram_id: int) -> tuple[int, int]:
    """An auto addressed to the person in the chat, whose ciência was given yesterday: (person id, notice id)."""
    yesterday = dt.datetime.now(dt.UTC) - dt.timedelta(days=1)
    async with sessions() as session:
        maria = await person(session, telegram_id, "Maria")
        await opted_in(session, maria.id, now=yesterday)
        issued = await issue(session, settings, cp_auto(offender_document=None, person_id=maria.id), now=yesterday)
        delivery = (await session.exec(select(NoticeDelivery))).one()
        await record_explicit_ciencia(session=session, cities=cities_of(settings), delivery_id=delivery.id,
                                      person_id=maria.id, now=yesterday)
        assert issued.notice.id is not None
        return maria.id, issued.notice.id


async def _at_files(talk: Talk, notice_id: int) -> None:
    listing = await talk.send("/notificacoes", "Suas notificações")
    screen = await talk.press_and_edit(listing, f"ntc:show:{notice_id}", "Prazos")
    await talk.press(screen, f"ntc:file:{notice_id}", "Escreva sua reclamação")
    await talk.send("O terreno foi limpo no dia seguinte à fiscalização.", "mande fotos")


async def test_a_reclamacao_takes_voice_notes_audio_videos_and_captions_as_a_representacao_does(
    emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory
) -> None:
    """Issue 19 §4.1: an audio file answered "E-46E3E3" (KeyError 'audio/ogg'), a voice note got no answer."""
    maria = Talk(emulator, emulator.add_user(MARIA, "Maria", language_code="pt-br"))
    person_id, notice_id = await _notified_auto(sessions, settings, MARIA)
    await _at_files(maria, notice_id)
    mark = maria._mark()
    emulator.send_voice(maria.user, ogg(20), duration=20)
    await maria._expect(mark, "Arquivo recebido (1 de 5)")
    mark = maria._mark()
    emulator.send_document(maria.user, ogg(15), "gravacao.ogg", "audio/ogg", caption="o vizinho confirma")
    await maria._expect(mark, "Arquivo recebido (2 de 5)")
    mark = maria._mark()
    emulator.send_audio(maria.user, ogg(10), duration=10, caption="a fiscal no local")
    await maria._expect(mark, "Arquivo recebido (3 de 5)")
    mark = maria._mark()
    emulator.send_video(maria.user, mp4(30), duration=30, caption="o terreno limpo")
    await maria._expect(mark, "Arquivo recebido (4 de 5)")
    mark = maria._mark()
    emulator.send_video(maria.user, mp4(600), duration=5)  # the phone may say anything: the file decides
    await maria._expect(mark, "longa demais")
    assert not [text for text in maria.since(0) if "E-" in text and "Erro" in text]
    async with sessions() as session:
        files = (await session.exec(select(NoticeAttachment).order_by(col(NoticeAttachment.id)))).all()
        draft = await get_draft(session=session, person_id=person_id)
    assert [(f.mime_type, f.caption) for f in files] == [
        ("audio/ogg", None), ("audio/ogg", "o vizinho confirma"), ("audio/ogg", "a fiscal no local"),
        ("video/mp4", "o terreno limpo")]
    assert draft is not None and draft.data["files"] == [f.id for f in files]


async def test_an_album_sent_at_once_keeps_every_photo_and_its_caption(
    emulator: Any, bot_app: Any, settings: Settings, sessions: SessionFactory
) -> None:
    """The photos of an album arrive as updates at the same instant: none is lost, the caption stays."""
    maria = Talk(emulator, emulator.add_user(MARIA, "Maria", language_code="pt-br"))
    person_id, notice_id = await _notified_auto(sessions, settings, MARIA)
    await _at_files(maria, notice_id)
    mark = maria._mark()
    emulator.send_album(maria.user, [png(seed=1), png(seed=2), png(seed=3)], caption="antes e depois")
    await maria._expect(mark, "Arquivo recebido (3 de 5)")
    async with sessions() as session:
        files = (await session.exec(select(NoticeAttachment).order_by(col(NoticeAttachment.id)))).all()
        draft = await get_draft(session=session, person_id=person_id)
    assert [f.caption for f in files] == ["antes e depois", None, None]
    assert draft is not None and draft.data["files"] == [f.id for f in files]


async def test_a_typed_sim_files_it_with_a_protocol_number_and_a_signed_receipt(
    emulator: Any, signed_settings: Settings, sessions: SessionFactory, tmp_path: Path
) -> None:
    """Issue 20 §3: defences and appeals are filings like cases; "sim" at the review sends, as in the ouvidoria."""
    maria = Talk(emulator, emulator.add_user(MARIA, "Maria", language_code="pt-br"))
    async with running_bot(signed_settings, sessions, emulator):
        _person_id, notice_id = await _notified_auto(sessions, signed_settings, MARIA)
        await _at_files(maria, notice_id)
        received = await maria.photo(png(), "Arquivo recebido (1 de 5)")
        review = await maria.press(received, "fil:files:done", "Confira antes de enviar")
        sent = await maria.send("sim", "Enviado!")
        receipt = await emulator.wait_for_message(MARIA, lambda m: m.document is not None, after=sent.message_id)
        year = dt.datetime.now(dt.UTC).year
        assert f"RCL-{year}-000001" in sent.text and sent.inline_buttons == []
        again = await maria.press(review, "fil:send", "já foi registrada")  # the review's Send, pressed later
        assert f"RCL-{year}-000001" in again.text
    async with sessions() as session:
        (filing,) = (await session.exec(select(NoticeFiling))).all()
    assert filing.protocol == f"RCL-{year}-000001"
    assert receipt.document["file_name"] == f"{filing.protocol}.pdf"
    pdf = emulator.file(receipt.document["file_id"]).data
    text = re.sub(r"\s+", " ", pdf_text(pdf))
    assert filing.protocol in text and "O terreno foi limpo" in text and "1 arquivo anexado" in text
    signing = signed_settings.municipalities["nova-xavantina"].signing
    assert signing is not None
    report = await check_pdf_signature(pdf, trust_roots=read_roots(signing.trust_roots))
    assert report.intact and report.trusted
    assert "Signature is Valid" in pdfsig(pdf, tmp_path)
