"""CP Art. 40 §§1–2 (vista, then 5 days to decide) and Art. 42 (no appeal while a diligência is
pending, nor before the §2 period after vista); the warning staff get for the decision due."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlmodel.ext.asyncio.session import AsyncSession

from core.municipality import Publication, cities_of
from core.settings import Settings
from models.notices.chain import events_of
from models.notices.filings import FilingRefused, decide_filing, file_filing
from models.notices.review import conclude_diligencia, decision_warnings, open_vista, order_diligencia
from models.notices.status import notice_view
from models.notices.tables import FilingKind, FilingOutcome, Notice
from tests.auxil.notices import CHEFE
from tests.auxil.tlog import verify
from tests.models.notices.conftest import Cast
from tests.models.notices.test_deadlines_from_ciencia import at_cuiaba
from tests.models.notices.test_filings import _notified_auto


async def _reclamacao(session: AsyncSession, settings: Settings, cast: Cast) -> tuple[int, int]:
    notice_id = await _notified_auto(session, settings, cast, dt.date(2026, 4, 6))
    filing = await file_filing(session=session, cities=cities_of(settings), notice_id=notice_id,
                               person_id=cast.maria.id,
                               text="Não sou a proprietária.", now=at_cuiaba(dt.date(2026, 4, 7)))
    assert filing.id is not None
    return notice_id, filing.id


async def _view(session: AsyncSession, settings: Settings, notice_id: int, day: dt.date):  # type: ignore[no-untyped-def]
    notice = await session.get(Notice, notice_id)
    assert notice is not None
    return await notice_view(session=session, city=cities_of(settings).of(notice.municipality), notice=notice,
                             today=day)


async def test_cp_art_40_vista_to_each_side_in_turn_then_5_days_to_decide_and_art_42_after_them(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """Art. 40 §1: 3 days to the autuado, then 3 to the autuante; §2: 5 days to decide; only then Art. 42."""
    notice_id, filing_id = await _reclamacao(session, settings, cast)
    await open_vista(session=session, cities=cities_of(settings), filing_id=filing_id, decider_telegram_id=CHEFE,
                     now=at_cuiaba(dt.date(2026, 4, 10)))  # Friday: 3 days end Monday 13 April
    with pytest.raises(FilingRefused, match="still running") as early:
        await open_vista(session=session, cities=cities_of(settings), filing_id=filing_id, decider_telegram_id=CHEFE,
                         now=at_cuiaba(dt.date(2026, 4, 13)))
    assert early.value.citation.endswith("Art. 40, §1º")
    with pytest.raises(FilingRefused, match="vista for final arguments"):  # the decision waits for the vista
        await decide_filing(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                            filing_id=filing_id, outcome=FilingOutcome.DENIED,
                            text="Improcedente. Vistos os fatos e as provas dos autos.",
                            decider_telegram_id=CHEFE, now=at_cuiaba(dt.date(2026, 4, 12)))
    await open_vista(session=session, cities=cities_of(settings), filing_id=filing_id, decider_telegram_id=CHEFE,
                     now=at_cuiaba(dt.date(2026, 4, 14)))  # the autuante: until Friday 17 April
    with pytest.raises(FilingRefused, match="Both sides"):
        await open_vista(session=session, cities=cities_of(settings), filing_id=filing_id, decider_telegram_id=CHEFE,
                         now=at_cuiaba(dt.date(2026, 4, 20)))

    # Without the vista the Art. 40 period (10 days from 7 April) ended on 17 April and Art. 42 opened on the 18th.
    # With it, §2 gives 5 days after the last vista (17 April): until Wednesday 22 April.
    view = await _view(session, settings, notice_id, dt.date(2026, 4, 22))
    due = {w.rule.id: w.final_date for w in view.windows}
    assert due["cp-40-2-decisao-apos-vista"] == dt.date(2026, 4, 22) and "cp-40-decisao" not in due
    assert [w.final_date for w in view.windows if w.rule.id == "cp-40-1-vista"] == [dt.date(2026, 4, 13),
                                                                                  dt.date(2026, 4, 17)]
    assert view.art42_from is None and view.can_file is None
    with pytest.raises(FilingRefused, match="waiting for a decision"):
        await file_filing(session=session, cities=cities_of(settings), notice_id=notice_id, person_id=cast.maria.id,
                          text="Recorro.", now=at_cuiaba(dt.date(2026, 4, 20)))
    late = await _view(session, settings, notice_id, dt.date(2026, 4, 23))
    assert late.art42_from == dt.date(2026, 4, 23) and late.can_file is FilingKind.RECURSO
    kinds = [e.kind for e in await events_of(session=session, notice_id=notice_id)]
    assert kinds[-2:] == ["vista", "vista"]
    assert (await verify(session)).ok


async def test_cp_art_40_1_vista_only_within_the_art_40_period(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """Art. 40 §1: vista may be given "no prazo deste artigo" (10 days from the reclamação of 7 April)."""
    _notice_id, filing_id = await _reclamacao(session, settings, cast)
    with pytest.raises(FilingRefused, match="within the 10 days"):
        await open_vista(session=session, cities=cities_of(settings), filing_id=filing_id, decider_telegram_id=CHEFE,
                         now=at_cuiaba(dt.date(2026, 4, 18)))


async def test_the_vista_order_setting_names_the_autuante_first(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """BALCAO_CP_VISTA_ORDER=autuante_primeiro: the defence speaks last (Art. 40 §1 "sucessivamente")."""
    _notice_id, filing_id = await _reclamacao(session, settings, cast)
    other = settings.model_copy(update={"cp_vista_order": "autuante_primeiro"})
    await open_vista(session=session, cities=cities_of(other), filing_id=filing_id, decider_telegram_id=CHEFE,
                     now=at_cuiaba(dt.date(2026, 4, 8)))
    [*_, event] = await events_of(session=session, notice_id=_notice_id)
    assert event.data["side"] == "autuante"


async def test_cp_art_42_no_appeal_while_a_diligencia_is_pending_then_art_40_again_from_its_end(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """Art. 42: "nem convertido o julgamento em diligência" — the appeal for lack of decision waits for it."""
    notice_id, filing_id = await _reclamacao(session, settings, cast)
    await order_diligencia(session=session, cities=cities_of(settings), filing_id=filing_id, text="Vistoria no imóvel.",
                           decider_telegram_id=CHEFE,
                           now=at_cuiaba(dt.date(2026, 4, 9)))
    with pytest.raises(FilingRefused, match="already pending"):
        await order_diligencia(session=session, cities=cities_of(settings), filing_id=filing_id, text="Outra.",
                               decider_telegram_id=CHEFE)
    # today's main opened Art. 42 on 18 April whatever happened; with the diligência pending it stays closed
    pending = await _view(session, settings, notice_id, dt.date(2026, 5, 4))
    assert pending.art42_from is None and pending.can_file is None
    assert await decision_warnings(session=session, cities=cities_of(settings), now=at_cuiaba(dt.date(2026, 5,
                                                                                                      4))) == []
    with pytest.raises(FilingRefused, match="diligência"):
        await decide_filing(session=session, cities=cities_of(settings), publication=Publication.of(settings),
                            filing_id=filing_id, outcome=FilingOutcome.DENIED,
                            text="Improcedente. Vistos os fatos e as provas dos autos.",
                            decider_telegram_id=CHEFE, now=at_cuiaba(dt.date(2026, 5, 4)))
    await conclude_diligencia(session=session, cities=cities_of(settings), filing_id=filing_id,
                              decider_telegram_id=CHEFE,
                              now=at_cuiaba(dt.date(2026, 5, 4)))
    after = await _view(session, settings, notice_id, dt.date(2026, 5, 14))
    assert {w.rule.id: w.final_date for w in after.windows}["cp-40-decisao"] == dt.date(2026, 5, 14)
    assert after.art42_from is None
    opened = await _view(session, settings, notice_id, dt.date(2026, 5, 15))
    assert opened.art42_from == dt.date(2026, 5, 15)


async def test_cp_art_40_2_the_decision_due_after_vista_is_warned_to_staff(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """The 5 days of Art. 40 §2 (until 22 April here) are warned BALCAO_NOTICE_REMINDER_DAYS before and on the day."""
    _notice_id, filing_id = await _reclamacao(session, settings, cast)
    await open_vista(session=session, cities=cities_of(settings), filing_id=filing_id, decider_telegram_id=CHEFE,
                     now=at_cuiaba(dt.date(2026, 4, 10)))
    await open_vista(session=session, cities=cities_of(settings), filing_id=filing_id, decider_telegram_id=CHEFE,
                     now=at_cuiaba(dt.date(2026, 4, 14)))
    assert await decision_warnings(session=session, cities=cities_of(settings), now=at_cuiaba(dt.date(2026, 4,
                                                                                                      18))) == []
    [warning] = await decision_warnings(session=session, cities=cities_of(settings), now=at_cuiaba(dt.date(2026, 4,
                                                                                                           19)))
    assert (warning.window.rule.id, warning.window.final_date, warning.offset) == (
        "cp-40-2-decisao-apos-vista", dt.date(2026, 4, 22), 3)
    [on_the_day] = await decision_warnings(session=session, cities=cities_of(settings), now=at_cuiaba(dt.date(2026,
                                                                                                              4, 22)))
    assert on_the_day.offset == 0 and on_the_day.dedupe_key != warning.dedupe_key


async def test_cp_art_42_a_diligencia_ordered_after_the_10_days_does_not_take_away_the_open_appeal(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """Art. 42 and Art. 40: filed 7/4/2026, undecided after 17/4, the appeal opened on 18/4. A diligência ordered on
    20/4 converts nothing within Art. 40's period: the appeal stays open (today's main closed it)."""
    notice_id, filing_id = await _reclamacao(session, settings, cast)
    assert (await _view(session, settings, notice_id, dt.date(2026, 4, 18))).art42_from == dt.date(2026, 4, 18)
    await order_diligencia(session=session, cities=cities_of(settings), filing_id=filing_id, text="Vistoria no imóvel.",
                           decider_telegram_id=CHEFE,
                           now=at_cuiaba(dt.date(2026, 4, 20)))
    view = await _view(session, settings, notice_id, dt.date(2026, 4, 21))
    assert view.art42_from == dt.date(2026, 4, 18) and view.can_file is FilingKind.RECURSO
    await file_filing(session=session, cities=cities_of(settings), notice_id=notice_id, person_id=cast.maria.id,
                      text="Recorro por falta de decisão.", now=at_cuiaba(dt.date(2026, 4, 21)))


async def test_cp_art_40_after_vista_and_a_concluded_diligencia_the_10_days_count_from_its_conclusion(
    session: AsyncSession, settings: Settings, cast: Cast
) -> None:
    """Art. 40 §2 then Art. 42 (LEGAL-CHOICES #10): vista to 17/4 gives a decision by 22/4; a diligência ordered
    on 21/4 and concluded on 24/4 moves it to 10 days after the conclusion, 4/5/2026, and Art. 42 to 5/5 (today's
    main kept 22/4 and opened the appeal on 23/4)."""
    notice_id, filing_id = await _reclamacao(session, settings, cast)
    for day in (dt.date(2026, 4, 10), dt.date(2026, 4, 14)):
        await open_vista(session=session, cities=cities_of(settings), filing_id=filing_id, decider_telegram_id=CHEFE,
                         now=at_cuiaba(day))
    await order_diligencia(session=session, cities=cities_of(settings), filing_id=filing_id, text="Ouvir o autuante.",
                           decider_telegram_id=CHEFE,
                           now=at_cuiaba(dt.date(2026, 4, 21)))
    await conclude_diligencia(session=session, cities=cities_of(settings), filing_id=filing_id,
                              decider_telegram_id=CHEFE,
                              now=at_cuiaba(dt.date(2026, 4, 24)))
    view = await _view(session, settings, notice_id, dt.date(2026, 4, 27))
    due = {w.rule.id: w.final_date for w in view.windows}
    assert due.get("cp-40-decisao") == dt.date(2026, 5, 4) and view.art42_from is None
    assert (await _view(session, settings, notice_id, dt.date(2026, 5, 5))).art42_from == dt.date(2026, 5, 5)
