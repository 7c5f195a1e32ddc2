"""Every deadline (*prazo*) of the rulebooks, as data: length, kind of day, starting event and article.

The source is ``shared/law/DEADLINES.md`` (section numbers in each rule's ``source``). A rule has one or more
:class:`Reading` s. Where the law is clear there is one; where it is ambiguous there is one per reading, the
first being the literal text, and a setting (:class:`DeadlineChoices`, from the deployment's legal readings) picks
the one the system applies. Notices show every reading (see :func:`models.deadlines.applicable_windows`).

Counting conventions (implemented in :mod:`models.deadlines`): the start day is excluded and the last day
included (Código Civil Art. 132 caput; L9784 Art. 66); a deadline that ends on a day without office
hours moves to the next business day (CC Art. 132 §1; L9784 Art. 66 §1); months and years end on the
day with the same number (CC Art. 132 §3; Lei 810/1949); hours run minute by minute (CC Art. 132 §4).

The ambiguities and the default choice (each a ``BALCAO_*`` setting):

- ``BALCAO_CP_DEFENCE_WINDOW`` (``latest``): CP Art. 24/25 VI (the deadline written on the
  *notificação preliminar*, ``BALCAO_CP_NOTICE_DEFENCE_DAYS`` = 30 days), Art. 37 (8 *dias úteis* from receipt of
  the *auto*) and Art. 278 §2 (30 days from the *notificação*) all give a defence window. Every window that
  applies is shown; by default the one that closes last governs (a defence is accepted while any is open).
  Other values: ``earliest``, ``art24``, ``art37``, ``art278`` (when the named one does not apply to the
  notice, ``latest`` is used).
- ``BALCAO_CP_EDITAL_START`` (``fim_do_edital``): CP Art. 37 counts from "the publication of the *edital*",
  while Art. 36 III gives the *edital* 30 days. By default the count follows CPC Art. 231 IV (applied by analogy):
  the start is the business day after the edital's 30 days end, and that day itself is excluded (CPC Art. 224),
  so the first of the 8 *dias úteis* is the business day after it; ``publicacao`` counts from the publication.
- CP Art. 46 (no appeal forwarded without the prior deposit of half the fine) is not applied: requiring a deposit
  to admit an administrative appeal is unconstitutional (STF Súmula Vinculante 21; CF Art. 5 XXXIV and LV). The
  appeal is always admitted and no deposit deadline is counted (``docs/LEGAL-CHOICES.md``).
- CP Art. 42 (an appeal when the complaint was not decided within the Art. 40 period) sets no period of its own:
  the appeal may be filed from the day after the Art. 40 period ends (or the Art. 40 §2 period after a *vista*)
  until a first-instance decision is given, unless the judgment was converted into a *diligência*.
- ``BALCAO_L1533_NOTICE_90D_START`` (``lavratura``): L1533 Art. 22 §1 counts the 90 days to deliver the
  *Notificação de Penalidade* from the *lavratura do Auto*, §2 from its *juntada* in the case file. Default: the
  *lavratura* (the earlier date, so a notice delivered in time is in time under both readings).
- ``BALCAO_L1533_REPEAT_SUSPENSION`` (``art26``): a repeat of Art. 26 IV suspends the authorisation for 30 days
  (Art. 26 §1, the specific rule) although Art. 24 par. único says every suspension lasts 12 months; ``art24``
  applies the 12 months.
- ``BALCAO_L1533_DEFENCE_DAYS`` / ``BALCAO_L1533_APPEAL_DAYS`` (10 / 10): L1533 Art. 22 guarantees a *defesa
  prévia* and a *recurso* but leaves their length to a *Decreto* (Art. 29); until there is one, the 10 days of
  Lei 9.784/1999 (Art. 44 and Art. 59, applied to municipalities without a law of their own, STJ Súmula 633).
- ``BALCAO_L1533_PAYMENT_DAYS`` (30): L1533 Art. 13 XXIII makes the driver pay fines "no prazo estabelecido"
  without setting one; the notice states it: 30 days from the ciência (or from the final decision after a
  defence), as CTB Art. 282 §4 gives for traffic fines, applied by analogy.
- ``BALCAO_OMBUDSMAN_COMPLEMENT_DAYS`` (20): L13460 Art. 16 lets the Ombudsman ask the author to complete
  a request once without a length; D9492 Art. 18 (federal) gives 20 days, applied by analogy.
- ``BALCAO_MONTH_END_RULE`` (``next_day``): a period of months or years starting on a day the final month lacks
  (31 Jan + 1 month, 29 Feb + 1 year) ends on the next day (CC Art. 132 §3, Lei 810/1949 Art. 3); ``clamp``
  ends it on the last day of the month instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Final, Literal

from core.i18n import N_
from models.rulebooks.catalogue import CP, L1533, LAW_TITLES

if TYPE_CHECKING:
    from core.i18n import Translator
    from core.readings import ReadingFields

OMBUDSMAN: Final = "lei-13460"

LAWS: Final[dict[str, str]] = {**LAW_TITLES, OMBUDSMAN: "Lei nº 13.460/2017"}


class Unit(StrEnum):
    """How a deadline's length is counted."""

    CALENDAR_DAYS = "calendar_days"
    BUSINESS_DAYS = "business_days"
    MONTHS = "months"
    YEARS = "years"
    HOURS = "hours"


def unit_phrase(tr: Translator, unit: Unit, n: int) -> str:
    """A length in the reader's language, e.g. ``10 dias úteis``."""
    match unit:
        case Unit.CALENDAR_DAYS:
            text = tr.ngettext("{n} calendar day", "{n} calendar days", n)
        case Unit.BUSINESS_DAYS:
            text = tr.ngettext("{n} business day", "{n} business days", n)
        case Unit.MONTHS:
            text = tr.ngettext("{n} month", "{n} months", n)
        case Unit.YEARS:
            text = tr.ngettext("{n} year", "{n} years", n)
        case Unit.HOURS:
            text = tr.ngettext("{n} hour", "{n} hours", n)
    return text.format(n=n)


class StartEvent(StrEnum):
    """The event a deadline is counted from."""

    CIENCIA_NOTIFICACAO = "ciencia_notificacao"
    RECEBIMENTO_AUTO = "recebimento_auto"
    PUBLICACAO_EDITAL = "publicacao_edital"
    CIENCIA_DECISAO = "ciencia_decisao"
    NOTIFICACAO_DECISAO_DEFINITIVA = "notificacao_decisao_definitiva"
    PROTOCOLO_RECLAMACAO = "protocolo_reclamacao"
    CONCESSAO_VISTA = "concessao_vista"
    FIM_VISTA = "fim_vista"
    INTERPOSICAO_RECURSO = "interposicao_recurso"
    APREENSAO = "apreensao"
    HASTA_PUBLICA = "hasta_publica"
    NOTIFICACAO_PROPRIETARIO = "notificacao_proprietario"
    LAVRATURA_AUTO = "lavratura_auto"
    JUNTADA_NOTIFICACAO = "juntada_notificacao"
    NOTIFICACAO_PODER_PUBLICO = "notificacao_poder_publico"
    APROVACAO_PEDIDO = "aprovacao_pedido"
    REPROVACAO_VISTORIA = "reprovacao_vistoria"
    ALTERACAO_CADASTRO = "alteracao_cadastro"
    RECOLHIMENTO_TAXAS = "recolhimento_taxas"
    APLICACAO_PENALIDADE = "aplicacao_penalidade"
    RECEBIMENTO_MANIFESTACAO = "recebimento_manifestacao"
    FIM_PRAZO_RESPOSTA = "fim_prazo_resposta"
    PEDIDO_INFORMACOES = "pedido_informacoes"
    PEDIDO_COMPLEMENTACAO = "pedido_complementacao"


START_EVENT_LABELS: Final[dict[StartEvent, str]] = {
    StartEvent.CIENCIA_NOTIFICACAO: N_("receipt (ciência) of the notice"),
    StartEvent.RECEBIMENTO_AUTO: N_("receipt of the infraction report (auto de infração)"),
    StartEvent.PUBLICACAO_EDITAL: N_("publication of the public notice (edital)"),
    StartEvent.CIENCIA_DECISAO: N_("receipt (ciência) of the first-instance decision"),
    StartEvent.NOTIFICACAO_DECISAO_DEFINITIVA: N_("notice of the final decision"),
    StartEvent.PROTOCOLO_RECLAMACAO: N_("filing of the complaint (reclamação)"),
    StartEvent.CONCESSAO_VISTA: N_("order opening the file for final arguments (vista)"),
    StartEvent.FIM_VISTA: N_("end of the last period for final arguments"),
    StartEvent.INTERPOSICAO_RECURSO: N_("filing of the appeal (recurso)"),
    StartEvent.APREENSAO: N_("seizure"),
    StartEvent.HASTA_PUBLICA: N_("public auction"),
    StartEvent.NOTIFICACAO_PROPRIETARIO: N_("notice to the owner"),
    StartEvent.LAVRATURA_AUTO: N_("drawing up of the infraction report (lavratura do auto)"),
    StartEvent.JUNTADA_NOTIFICACAO: N_("filing of the notice in the case file (juntada)"),
    StartEvent.NOTIFICACAO_PODER_PUBLICO: N_("the city hall's request"),
    StartEvent.APROVACAO_PEDIDO: N_("approval of the authorisation request"),
    StartEvent.REPROVACAO_VISTORIA: N_("failed vehicle inspection"),
    StartEvent.ALTERACAO_CADASTRO: N_("change of the registered data"),
    StartEvent.RECOLHIMENTO_TAXAS: N_("payment of the fees (taxas)"),
    StartEvent.APLICACAO_PENALIDADE: N_("application of the penalty"),
    StartEvent.RECEBIMENTO_MANIFESTACAO: N_("receipt of the ombudsman request"),
    StartEvent.FIM_PRAZO_RESPOSTA: N_("end of the first 30 days to answer"),
    StartEvent.PEDIDO_INFORMACOES: N_("the ombudsman's request for information"),
    StartEvent.PEDIDO_COMPLEMENTACAO: N_("the request to complete the information"),
}


class Obliged(StrEnum):
    """Who must act before the deadline (or whose measure lasts that long)."""

    PARTY = "party"  # the person notified: driver, citizen, company
    ADMINISTRATION = "administration"
    PLATFORM = "platform"


@dataclass(frozen=True, slots=True)
class Reading:
    """One way of reading a deadline.

    Attributes:
        key: the setting value that selects it (``"default"`` when the rule has a single reading).
        unit: how the length is counted.
        start_event: the event counted from.
        length: the length, or ``None`` when a setting gives it (``length_setting``).
        length_setting: the legal reading (``core.readings``) holding the length, when the law leaves it open.
        after: id of a rule whose end fixes this reading's start: the business day after that period ends
            (the 30 days of an *edital*, CPC Art. 231 IV), itself excluded from the count (CPC Art. 224).
        basis: English msgid explaining the reading (shown when there are several).
    """

    key: str
    unit: Unit
    start_event: StartEvent
    length: int | None = None
    length_setting: str | None = None
    after: str | None = None
    basis: str = ""


@dataclass(frozen=True, slots=True)
class DeadlineRule:
    """A deadline of a rulebook.

    Attributes:
        id: stable id, e.g. ``cp-43-recurso``.
        rulebook: ``sapezal-1533``, ``nx-posturas`` or ``lei-13460`` (the federal ombudsman law).
        article: the article, as the law writes it (``Art. 43, par. único``).
        description: English msgid describing the deadline for the UI.
        obliged: who must act (or who the measure binds).
        readings: one per reading of the law; the first is the literal text.
        setting: the legal reading (``core.readings``) choosing among several readings, or ``None``.
        extends_to_business_day: whether an end on a non-business day moves to the next business day
            (true for acts someone must do; false for durations such as a suspension or a validity).
        source: the row of ``DEADLINES.md`` (or the law) this comes from.
    """

    id: str
    rulebook: str
    article: str
    description: str
    obliged: Obliged
    readings: tuple[Reading, ...]
    setting: str | None = None
    extends_to_business_day: bool = True
    source: str = ""

    @property
    def law_title(self) -> str:
        """The law, e.g. ``Lei nº 1.533/2020 (Sapezal)``."""
        return LAWS[self.rulebook]

    @property
    def citation(self) -> str:
        """Legal reference for the smaller second line, e.g. ``L13460 Art. 16``."""
        return f"{self.law_title}, {self.article}"

    @property
    def ambiguous(self) -> bool:
        """Whether the law allows more than one reading."""
        return len(self.readings) > 1

    def reading(self, key: str) -> Reading:
        """The reading selected by a setting value.

        Raises:
            KeyError: no reading with that key.
        """
        for reading in self.readings:
            if reading.key == key:
                return reading
        raise KeyError(f"{self.id} has no reading {key!r}; use one of {', '.join(r.key for r in self.readings)}")


DefenceWindow = Literal["latest", "earliest", "art24", "art37", "art278"]
EditalStart = Literal["fim_do_edital", "publicacao"]
NoticeStart = Literal["lavratura", "juntada"]
RepeatSuspension = Literal["art26", "art24"]
MonthEndRule = Literal["next_day", "clamp"]


@dataclass(frozen=True, slots=True)
class DeadlineChoices:
    """The configurable legal choices (one field per ``BALCAO_*`` setting; defaults as documented above)."""

    cp_defence_window: DefenceWindow = "latest"
    cp_notice_defence_days: int = 30
    cp_edital_start: EditalStart = "fim_do_edital"
    l1533_notice_90d_start: NoticeStart = "lavratura"
    l1533_repeat_suspension: RepeatSuspension = "art26"
    l1533_defence_days: int = 10
    l1533_appeal_days: int = 10
    l1533_payment_days: int = 30
    ombudsman_complement_days: int = 20
    month_end_rule: MonthEndRule = "next_day"

    @classmethod
    def of(cls, readings: ReadingFields) -> DeadlineChoices:
        """The choices a deployment configured (its legal readings)."""
        return cls(
            cp_defence_window=readings.cp_defence_window,
            cp_notice_defence_days=readings.cp_notice_defence_days,
            cp_edital_start=readings.cp_edital_start,
            l1533_notice_90d_start=readings.l1533_notice_90d_start,
            l1533_repeat_suspension=readings.l1533_repeat_suspension,
            l1533_defence_days=readings.l1533_defence_days,
            l1533_appeal_days=readings.l1533_appeal_days,
            l1533_payment_days=readings.l1533_payment_days,
            ombudsman_complement_days=readings.ombudsman_complement_days,
            month_end_rule=readings.month_end_rule,
        )

    def selected(self, rule: DeadlineRule) -> Reading:
        """The reading of ``rule`` these choices apply (the only one when the law is clear)."""
        if rule.setting is None:
            return rule.readings[0]
        return rule.reading(str(getattr(self, rule.setting)))

    def length(self, reading: Reading) -> int:
        """The length of a reading, looking up the setting when the law leaves it open."""
        if reading.length is not None:
            return reading.length
        if reading.length_setting is None:
            raise ValueError("a reading needs a length or a length_setting")
        return int(getattr(self, reading.length_setting))


def _one(unit: Unit, length: int | None, start: StartEvent, **kwargs: str) -> tuple[Reading, ...]:
    return (Reading(key="default", unit=unit, length=length, start_event=start, **kwargs),)


D, BD, M, H = Unit.CALENDAR_DAYS, Unit.BUSINESS_DAYS, Unit.MONTHS, Unit.HOURS
S = StartEvent


RULES: Final[tuple[DeadlineRule, ...]] = (
    # ---- Código de Posturas (Nova Xavantina, Lei 1.101/2004), DEADLINES.md B1 ----
    DeadlineRule(
        id="cp-24-defesa-notificacao",
        rulebook=CP,
        article="Art. 24; Art. 25, VI",
        description=N_("Defence, explanations or payment, by the deadline written on this notice"),
        obliged=Obliged.PARTY,
        readings=_one(D, None, S.CIENCIA_NOTIFICACAO, length_setting="cp_notice_defence_days"),
        source="B1.1",
    ),
    DeadlineRule(
        id="cp-36-edital",
        rulebook=CP,
        article="Art. 36, III",
        description=N_("Period of the public notice (edital) when the address is unknown"),
        obliged=Obliged.ADMINISTRATION,
        readings=_one(D, 30, S.PUBLICACAO_EDITAL),
        extends_to_business_day=False,
        source="B1.5",
    ),
    DeadlineRule(
        id="cp-37-reclamacao",
        rulebook=CP,
        article="Art. 37",
        description=N_("Complaint (reclamação) against the inspectors' action"),
        obliged=Obliged.PARTY,
        readings=_one(BD, 8, S.RECEBIMENTO_AUTO),
        source="B1.6",
    ),
    DeadlineRule(
        id="cp-37-reclamacao-edital",
        rulebook=CP,
        article="Art. 37; Art. 36, III",
        description=N_("Complaint (reclamação) when the report was served by public notice (edital)"),
        obliged=Obliged.PARTY,
        readings=(
            Reading(
                key="publicacao",
                unit=BD,
                length=8,
                start_event=S.PUBLICACAO_EDITAL,
                basis=N_("counted from the publication of the edital (Art. 37, literal)"),
            ),
            Reading(
                key="fim_do_edital",
                unit=BD,
                length=8,
                start_event=S.PUBLICACAO_EDITAL,
                after="cp-36-edital",
                basis=N_("the start is the business day after the 30 days of the edital, not counted "
                         "(Art. 36, III; CPC Art. 231, IV and Art. 224, by analogy)"),
            ),
        ),
        setting="cp_edital_start",
        source="B1.6; Notes 7",
    ),
    DeadlineRule(
        id="cp-40-decisao",
        rulebook=CP,
        article="Art. 40",
        description=N_("First-instance decision on the complaint"),
        obliged=Obliged.ADMINISTRATION,
        readings=_one(D, 10, S.PROTOCOLO_RECLAMACAO),
        source="B1.8",
    ),
    DeadlineRule(
        id="cp-40-1-vista",
        rulebook=CP,
        article="Art. 40, §1º",
        description=N_("Final arguments (vista), for each side in turn"),
        obliged=Obliged.PARTY,
        readings=_one(D, 3, S.CONCESSAO_VISTA),
        source="B1.9",
    ),
    DeadlineRule(
        id="cp-40-2-decisao-apos-vista",
        rulebook=CP,
        article="Art. 40, §2º",
        description=N_("First-instance decision after the final arguments"),
        obliged=Obliged.ADMINISTRATION,
        readings=_one(D, 5, S.FIM_VISTA),
        source="B1.10",
    ),
    DeadlineRule(
        id="cp-43-recurso",
        rulebook=CP,
        article="Art. 43, par. único",
        description=N_("Appeal (recurso voluntário) to the Mayor"),
        obliged=Obliged.PARTY,
        readings=_one(BD, 10, S.CIENCIA_DECISAO),
        source="B1.12",
    ),
    DeadlineRule(
        id="cp-45-decisao-recurso",
        rulebook=CP,
        article="Art. 45",
        description=N_("Second-instance decision on the appeal"),
        obliged=Obliged.ADMINISTRATION,
        readings=_one(D, 10, S.INTERPOSICAO_RECURSO),
        source="B1.13",
    ),
    DeadlineRule(
        id="cp-47-1-pagamento",
        rulebook=CP,
        article="Art. 47, I",
        description=N_("Payment of the fine after the final decision"),
        obliged=Obliged.PARTY,
        readings=_one(BD, 10, S.NOTIFICACAO_DECISAO_DEFINITIVA),
        source="B1.15",
    ),
    DeadlineRule(
        id="cp-47-3-diferenca",
        rulebook=CP,
        article="Art. 47, III",
        description=N_("Pay or receive the difference between the fine and the deposit"),
        obliged=Obliged.PARTY,
        readings=_one(BD, 10, S.NOTIFICACAO_DECISAO_DEFINITIVA),
        source="B1.17",
    ),
    DeadlineRule(
        id="cp-47-4-saldo-leilao",
        rulebook=CP,
        article="Art. 47, IV",
        description=N_("Collect what is left from the auction of seized goods"),
        obliged=Obliged.PARTY,
        readings=_one(BD, 10, S.NOTIFICACAO_PROPRIETARIO),
        source="B1.18; Notes 6",
    ),
    DeadlineRule(
        id="cp-278-defesa",
        rulebook=CP,
        article="Art. 278, §2º",
        description=N_("Written defence filed at the city hall, addressed to the Mayor's office"),
        obliged=Obliged.PARTY,
        readings=_one(D, 30, S.CIENCIA_NOTIFICACAO),
        source="B1.19; Notes 5",
    ),
    # ---- Código de Posturas, seized goods and animals, DEADLINES.md B2 ----
    DeadlineRule(
        id="cp-16-hasta-publica",
        rulebook=CP,
        article="Art. 16",
        description=N_("Seized goods not claimed are sold at public auction"),
        obliged=Obliged.PARTY,
        readings=_one(D, 60, S.APREENSAO),
        source="B2.1",
    ),
    DeadlineRule(
        id="cp-16-1-notificar-saldo",
        rulebook=CP,
        article="Art. 16, §1º",
        description=N_("Notice to the owner to collect what is left from the auction"),
        obliged=Obliged.ADMINISTRATION,
        readings=_one(D, 5, S.HASTA_PUBLICA),
        source="B2.2",
    ),
    DeadlineRule(
        id="cp-16-2-prescricao-saldo",
        rulebook=CP,
        article="Art. 16, §2º",
        description=N_("The right to collect what is left from the auction lapses"),
        obliged=Obliged.PARTY,
        readings=_one(M, 1, S.HASTA_PUBLICA),
        source="B2.3",
    ),
    DeadlineRule(
        id="cp-16-3-pereciveis",
        rulebook=CP,
        article="Art. 16, §3º",
        description=N_("Perishable seized goods: claim or removal"),
        obliged=Obliged.PARTY,
        readings=_one(H, 24, S.APREENSAO),
        extends_to_business_day=False,
        source="B2.4",
    ),
    DeadlineRule(
        id="cp-183-animal",
        rulebook=CP,
        article="Art. 183",
        description=N_("Collect an impounded animal"),
        obliged=Obliged.PARTY,
        readings=_one(D, 5, S.APREENSAO),
        source="B2.5",
    ),
    DeadlineRule(
        id="cp-184-cao",
        rulebook=CP,
        article="Art. 184, §1º",
        description=N_("Collect an impounded dog"),
        obliged=Obliged.PARTY,
        readings=_one(D, 10, S.APREENSAO),
        source="B2.6",
    ),
    DeadlineRule(
        id="cp-184-2-cao-registrado",
        rulebook=CP,
        article="Art. 184, §2º",
        description=N_("Collect an impounded registered dog after the owner is notified"),
        obliged=Obliged.PARTY,
        readings=_one(D, 10, S.NOTIFICACAO_PROPRIETARIO),
        source="B2.7",
    ),
    # ---- Lei 1.533/2020 (Sapezal), DEADLINES.md A1, A2.1, A3 ----
    DeadlineRule(
        id="l1533-4-dados",
        rulebook=L1533,
        article="Art. 4º, §2º",
        description=N_("The platform shares the trip data requested by the city hall"),
        obliged=Obliged.PLATFORM,
        readings=_one(H, 24, S.NOTIFICACAO_PODER_PUBLICO),
        extends_to_business_day=False,
        source="A1.1",
    ),
    DeadlineRule(
        id="l1533-9-vistoria",
        rulebook=L1533,
        article="Art. 9º",
        description=N_("Present the authorised vehicle for inspection"),
        obliged=Obliged.PARTY,
        readings=_one(D, 5, S.APROVACAO_PEDIDO),
        source="A1.2",
    ),
    DeadlineRule(
        id="l1533-13xx-alteracao",
        rulebook=L1533,
        article="Art. 13, XX",
        description=N_("Report a change of your registered data"),
        obliged=Obliged.PARTY,
        readings=_one(D, 7, S.ALTERACAO_CADASTRO),
        source="A1.3",
    ),
    DeadlineRule(
        id="l1533-16-regularizar",
        rulebook=L1533,
        article="Art. 16, §2º",
        description=N_("Fix what failed the vehicle inspection"),
        obliged=Obliged.PARTY,
        readings=_one(D, 5, S.REPROVACAO_VISTORIA),
        source="A1.5",
    ),
    DeadlineRule(
        id="l1533-22-entrega",
        rulebook=L1533,
        article="Art. 22, §§1º–2º",
        description=N_("Delivery of the penalty notice to the offender"),
        obliged=Obliged.ADMINISTRATION,
        readings=(
            Reading(
                key="lavratura",
                unit=D,
                length=90,
                start_event=S.LAVRATURA_AUTO,
                basis=N_("90 days from the drawing up of the report (Art. 22, §1º)"),
            ),
            Reading(
                key="juntada",
                unit=D,
                length=90,
                start_event=S.JUNTADA_NOTIFICACAO,
                basis=N_("90 days from the filing of the notice in the case file (Art. 22, §2º)"),
            ),
        ),
        setting="l1533_notice_90d_start",
        source="A1.7–A1.8; Notes 1",
    ),
    DeadlineRule(
        id="l1533-22-defesa",
        rulebook=L1533,
        article="Art. 22",
        description=N_("Prior defence (defesa prévia) against the penalty notice"),
        obliged=Obliged.PARTY,
        readings=_one(
            D,
            None,
            S.CIENCIA_NOTIFICACAO,
            length_setting="l1533_defence_days",
            basis=N_("the Law sets no length (Art. 22, Art. 29); the city hall's setting applies"),
        ),
        source="A1.9; Notes 3",
    ),
    DeadlineRule(
        id="l1533-13xxiii-pagamento",
        rulebook=L1533,
        article="Art. 13, XXIII",
        description=N_("Payment of the fine, by the deadline this auto de infração sets"),
        obliged=Obliged.PARTY,
        readings=_one(
            D,
            None,
            S.CIENCIA_NOTIFICACAO,
            length_setting="l1533_payment_days",
            basis=N_("the notice sets it (Art. 13, XXIII); 30 days as CTB Art. 282 §4, by analogy"),
        ),
        source="A1.4",
    ),
    DeadlineRule(
        id="l1533-13xxiii-pagamento-final",
        rulebook=L1533,
        article="Art. 13, XXIII",
        description=N_("Payment of the fine after the final decision, by the deadline the auto de infração sets"),
        obliged=Obliged.PARTY,
        readings=_one(
            D,
            None,
            S.NOTIFICACAO_DECISAO_DEFINITIVA,
            length_setting="l1533_payment_days",
            basis=N_("the notice sets it (Art. 13, XXIII); 30 days as CTB Art. 282 §4, by analogy"),
        ),
        source="A1.4",
    ),
    DeadlineRule(
        id="l1533-22-recurso",
        rulebook=L1533,
        article="Art. 22",
        description=N_("Administrative appeal (recurso) against the decision"),
        obliged=Obliged.PARTY,
        readings=_one(
            D,
            None,
            S.CIENCIA_DECISAO,
            length_setting="l1533_appeal_days",
            basis=N_("the Law sets no length (Art. 22, Art. 29); the city hall's setting applies"),
        ),
        source="A1.9; Notes 3",
    ),
    DeadlineRule(
        id="l1533-3-validade",
        rulebook=L1533,
        article="Art. 3º, par. único",
        description=N_("Validity of the authorisation"),
        obliged=Obliged.PARTY,
        readings=_one(M, 12, S.RECOLHIMENTO_TAXAS),
        extends_to_business_day=False,
        source="A2.1",
    ),
    DeadlineRule(
        id="l1533-24-suspensao",
        rulebook=L1533,
        article="Art. 24, par. único",
        description=N_("Suspension of the authorisation (driver and vehicle out of service)"),
        obliged=Obliged.PARTY,
        readings=_one(M, 12, S.APLICACAO_PENALIDADE),
        extends_to_business_day=False,
        source="A3.1",
    ),
    DeadlineRule(
        id="l1533-26vi-suspensao",
        rulebook=L1533,
        article="Art. 26, VI",
        description=N_("Suspension for using a taxi rank"),
        obliged=Obliged.PARTY,
        readings=_one(M, 12, S.APLICACAO_PENALIDADE),
        extends_to_business_day=False,
        source="A3.2",
    ),
    DeadlineRule(
        id="l1533-26-1-suspensao",
        rulebook=L1533,
        article="Art. 26, §1º",
        description=N_("Suspension for a repeated street pick-up without the app"),
        obliged=Obliged.PARTY,
        readings=(
            Reading(
                key="art26",
                unit=D,
                length=30,
                start_event=S.APLICACAO_PENALIDADE,
                basis=N_("30 days, the specific rule for this repeat (Art. 26, §1º)"),
            ),
            Reading(
                key="art24",
                unit=M,
                length=12,
                start_event=S.APLICACAO_PENALIDADE,
                basis=N_("12 months, as for every suspension (Art. 24, par. único)"),
            ),
        ),
        setting="l1533_repeat_suspension",
        extends_to_business_day=False,
        source="A3.3; Notes 2",
    ),
    # ---- Lei 13.460/2017 (users of public services; the ombudsman) ----
    DeadlineRule(
        id="ouvidoria-13460-resposta",
        rulebook=OMBUDSMAN,
        article="Art. 16",
        description=N_("Final answer of the ombudsman's office"),
        obliged=Obliged.ADMINISTRATION,
        readings=_one(D, 30, S.RECEBIMENTO_MANIFESTACAO),
        source="Lei 13.460/2017 Art. 16 caput",
    ),
    DeadlineRule(
        id="ouvidoria-13460-prorrogacao",
        rulebook=OMBUDSMAN,
        article="Art. 16",
        description=N_("Final answer after the single justified extension"),
        obliged=Obliged.ADMINISTRATION,
        readings=_one(D, 30, S.FIM_PRAZO_RESPOSTA),
        source="Lei 13.460/2017 Art. 16 caput (prorrogável uma única vez, por igual período)",
    ),
    DeadlineRule(
        id="ouvidoria-13460-informacoes",
        rulebook=OMBUDSMAN,
        article="Art. 16, par. único",
        description=N_("Staff answer the ombudsman's request for information"),
        obliged=Obliged.ADMINISTRATION,
        readings=_one(D, 20, S.PEDIDO_INFORMACOES),
        source="Lei 13.460/2017 Art. 16 par. único",
    ),
    DeadlineRule(
        id="ouvidoria-complementacao",
        rulebook=OMBUDSMAN,
        article="Art. 16; Decreto nº 9.492/2018, Art. 18",
        description=N_("Complete the information the ombudsman asked for"),
        obliged=Obliged.PARTY,
        readings=_one(D, None, S.PEDIDO_COMPLEMENTACAO, length_setting="ombudsman_complement_days",
                      basis=N_("Decreto 9.492/2018 Art. 18 (federal), applied by analogy: 20 days by default")),
        source="Decreto federal 9.492/2018 Art. 18, by analogy",
    ),
)

RULES_BY_ID: Final[dict[str, DeadlineRule]] = {rule.id: rule for rule in RULES}


class UnknownRule(KeyError):
    """No deadline rule has this id."""

    def __init__(self, rule_id: str) -> None:
        super().__init__(rule_id)
        self.rule_id = rule_id

    def __str__(self) -> str:
        return f"unknown deadline rule {self.rule_id!r}; known: {', '.join(RULES_BY_ID)}"


def get_rule(rule_id: str) -> DeadlineRule:
    """The deadline rule with this id.

    Raises:
        UnknownRule: no such id.
    """
    try:
        return RULES_BY_ID[rule_id]
    except KeyError:
        raise UnknownRule(rule_id) from None


def rules_of(rulebook: str) -> tuple[DeadlineRule, ...]:
    """The deadline rules of one rulebook, in order."""
    return tuple(rule for rule in RULES if rule.rulebook == rulebook)
