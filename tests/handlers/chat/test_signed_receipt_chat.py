"""The filing receipt the chat sends is PAdES-signed by the case's Prefeitura (L14063 Art. 4; issue 18 §2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.db import SessionFactory
from core.settings import Settings
from models.signatures.validation import check_pdf_signature, read_roots
from tests.auxil.bot_harness import running_bot
from tests.auxil.case_chat import Talk
from tests.auxil.signing import pdfsig

JOAO = 850001


async def test_the_receipt_sent_in_the_chat_is_signed_by_sapezal(
    emulator: Any, signed_settings: Settings, sessions: SessionFactory, tmp_path: Path
) -> None:
    joao = Talk(emulator, emulator.add_user(JOAO, "João", language_code="en"))
    async with running_bot(signed_settings, sessions, emulator):
        city = await joao.send("/ouvidoria", "Choose your city")
        kinds = await joao.press(city, "city:sapezal:ouvidoria", "What kind of message is it?")
        await joao.press(kinds, "ouv:type:reclamacao", "Write your message")
        files = await joao.send("O posto de saúde do bairro está sem médico há duas semanas.", "If you want, send")
        identity = await joao.press(files, "ouv:files:done", "Who may see your name?")
        await joao.press(identity, "ouv:id:restricted", "What is your full name?")
        await joao.send("João Batista Pereira", "Please check your message")
        sent = await joao.send("yes", "Your protocol number is")
        receipt = await emulator.wait_for_message(JOAO, lambda m: m.document is not None, after=sent.message_id)
    pdf = emulator.file(receipt.document["file_id"]).data
    signing = signed_settings.municipalities["sapezal"].signing
    assert signing is not None
    report = await check_pdf_signature(pdf, trust_roots=read_roots(signing.trust_roots))
    assert report.intact and report.trusted and report.signer == "Prefeitura Municipal de Sapezal"
    assert "Signature is Valid" in pdfsig(pdf, tmp_path)
