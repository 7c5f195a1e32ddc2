"""A file sent with a defence or appeal leaves the console as the case files do (handlers.web.citizen_files): a
sandboxed download under a neutral name, a photo's preview redrawn, and only for a clerk (CP Art. 38, 44)."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from core.db import SessionFactory
from core.municipality import cities_of
from core.settings import Settings
from handlers.web.citizen_files import SANDBOX
from models.notices.filings import store_filing_attachment
from models.notices.tables import FilingKind, NoticeFiling
from tests.auxil.case_files import png
from tests.auxil.case_people import NOW, make_cast
from tests.auxil.console import console_client, sign_in
from tests.auxil.notices import cp_auto, issue

CLARA, OTAVIO = 7101, 7103


async def test_a_filings_file_is_a_sandboxed_download_for_clerks_only(
    session: AsyncSession, sessions: SessionFactory, settings: Settings
) -> None:
    cast = await make_cast(session)
    issued = await issue(session, settings, cp_auto(person_id=cast.maria.id), now=NOW)
    assert issued.notice.id is not None
    photo = await store_filing_attachment(session=session, city=cities_of(settings).default, person_id=cast.maria.id,
                                          content=png(), file_name="Maria Aparecida.png", already=[])
    filing = NoticeFiling(notice_id=issued.notice.id, kind=FilingKind.DEFESA, person_id=cast.maria.id,
                          text="O terreno foi limpo.", filed_by="person", filed_at=NOW)
    session.add(filing)
    await session.flush()
    photo.filing_id = filing.id
    await session.commit()
    url = f"/painel/defesas/{filing.id}/anexos/{photo.id}"
    async with console_client(settings, sessions, NOW) as client:
        await sign_in(client, sessions, settings, CLARA)
        download = await client.get(url)
        assert download.status == 200 and await download.read() == photo.content
        assert download.headers["Content-Security-Policy"] == SANDBOX
        assert download.headers["Content-Disposition"].startswith("attachment;")
        assert "Maria" not in download.headers["Content-Disposition"]  # never the sender's own file name
        assert issued.notice.number in download.headers["Content-Disposition"]
        preview = await client.get(url + "/previa")
        assert preview.status == 200 and preview.headers["Content-Type"] == "image/png"
        assert (await client.get(f"/painel/defesas/{filing.id}/anexos/{photo.id + 1}")).status == 404
        await sign_in(client, sessions, settings, OTAVIO)  # the Ombudsman decides no filing
        assert (await client.get(url)).status == 403
