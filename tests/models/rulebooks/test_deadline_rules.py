"""The deadlines as data: every row of DEADLINES.md that a notice or case needs, consistent and configurable."""

import typing

import pytest

from core.i18n import translator
from core.settings import Settings
from models.deadlines import _NOTICE_WINDOWS
from models.rulebooks import RULES, START_EVENT_LABELS, DeadlineChoices, StartEvent, Unit, UnknownRule, get_rule

# Rows of shared/law/DEADLINES.md with a length that the rulebook must carry (B1 and the L1533 A1/A3 ones).
REQUIRED_SOURCES = {
    "B1.1", "B1.5", "B1.6", "B1.8", "B1.9", "B1.10", "B1.12", "B1.13", "B1.15", "B1.17", "B1.18",
    "B1.19", "A1.1", "A1.2", "A1.3", "A1.5", "A1.7", "A1.8", "A1.9", "A2.1", "A3.1", "A3.2", "A3.3",
}  # fmt: skip


def _sources() -> set[str]:
    found = set()
    for rule in RULES:
        for part in rule.source.replace(";", " ").split():
            if "–" in part:  # a range such as A1.7–A1.8
                first, last = part.split("–")
                prefix, start = first.rsplit(".", 1)
                found.update(f"{prefix}.{n}" for n in range(int(start), int(last.rsplit(".", 1)[1]) + 1))
            else:
                found.add(part)
    return found


def test_every_required_row_of_deadlines_md_has_a_rule() -> None:
    assert REQUIRED_SOURCES - _sources() == set()


def test_rule_ids_are_unique_and_references_resolve() -> None:
    ids = [rule.id for rule in RULES]
    assert len(ids) == len(set(ids))
    for rule in RULES:
        for reading in rule.readings:
            if reading.after is not None:
                assert get_rule(reading.after).rulebook == rule.rulebook
    for rule_ids in _NOTICE_WINDOWS.values():
        for rule_id, _group in rule_ids:
            get_rule(rule_id)
    with pytest.raises(UnknownRule, match="cp-43-recurso"):
        get_rule("cp-99-nada")


@pytest.mark.parametrize(
    ("rule_id", "article", "unit", "length", "start_event"),
    [
        ("cp-37-reclamacao", "Art. 37", Unit.BUSINESS_DAYS, 8, StartEvent.RECEBIMENTO_AUTO),
        ("cp-43-recurso", "Art. 43, par. único", Unit.BUSINESS_DAYS, 10, StartEvent.CIENCIA_DECISAO),
        ("cp-184-cao", "Art. 184, §1º", Unit.CALENDAR_DAYS, 10, StartEvent.APREENSAO),
        ("cp-184-2-cao-registrado", "Art. 184, §2º", Unit.CALENDAR_DAYS, 10, StartEvent.NOTIFICACAO_PROPRIETARIO),
        ("cp-278-defesa", "Art. 278, §2º", Unit.CALENDAR_DAYS, 30, StartEvent.CIENCIA_NOTIFICACAO),
        ("cp-36-edital", "Art. 36, III", Unit.CALENDAR_DAYS, 30, StartEvent.PUBLICACAO_EDITAL),
        ("cp-40-decisao", "Art. 40", Unit.CALENDAR_DAYS, 10, StartEvent.PROTOCOLO_RECLAMACAO),
        ("cp-45-decisao-recurso", "Art. 45", Unit.CALENDAR_DAYS, 10, StartEvent.INTERPOSICAO_RECURSO),
        ("cp-47-1-pagamento", "Art. 47, I", Unit.BUSINESS_DAYS, 10, StartEvent.NOTIFICACAO_DECISAO_DEFINITIVA),
        ("l1533-4-dados", "Art. 4º, §2º", Unit.HOURS, 24, StartEvent.NOTIFICACAO_PODER_PUBLICO),
        ("l1533-9-vistoria", "Art. 9º", Unit.CALENDAR_DAYS, 5, StartEvent.APROVACAO_PEDIDO),
        ("l1533-13xx-alteracao", "Art. 13, XX", Unit.CALENDAR_DAYS, 7, StartEvent.ALTERACAO_CADASTRO),
        ("l1533-16-regularizar", "Art. 16, §2º", Unit.CALENDAR_DAYS, 5, StartEvent.REPROVACAO_VISTORIA),
        ("l1533-22-entrega", "Art. 22, §§1º–2º", Unit.CALENDAR_DAYS, 90, StartEvent.LAVRATURA_AUTO),
        ("l1533-24-suspensao", "Art. 24, par. único", Unit.MONTHS, 12, StartEvent.APLICACAO_PENALIDADE),
        ("l1533-26-1-suspensao", "Art. 26, §1º", Unit.CALENDAR_DAYS, 30, StartEvent.APLICACAO_PENALIDADE),
        ("ouvidoria-13460-resposta", "Art. 16", Unit.CALENDAR_DAYS, 30, StartEvent.RECEBIMENTO_MANIFESTACAO),
        ("ouvidoria-13460-informacoes", "Art. 16, par. único", Unit.CALENDAR_DAYS, 20, StartEvent.PEDIDO_INFORMACOES),
        ("ouvidoria-complementacao", "Art. 16; Decreto nº 9.492/2018, Art. 18", Unit.CALENDAR_DAYS, None,
         StartEvent.PEDIDO_COMPLEMENTACAO),  # BALCAO_OMBUDSMAN_COMPLEMENT_DAYS: 20 (D9492 Art. 18)
    ],
)  # fmt: skip
def test_the_literal_reading_of_each_rule_is_the_text_of_its_article(
    rule_id: str, article: str, unit: Unit, length: int | None, start_event: StartEvent
) -> None:
    rule = get_rule(rule_id)
    literal = rule.readings[0]
    assert (rule.article, literal.unit, literal.length, literal.start_event) == (article, unit, length, start_event)


def test_ambiguous_rules_name_a_setting_whose_values_are_exactly_their_readings() -> None:
    ambiguous = [rule for rule in RULES if rule.ambiguous]
    assert {rule.id for rule in ambiguous} == {
        "cp-37-reclamacao-edital",
        "l1533-22-entrega",
        "l1533-26-1-suspensao",
    }
    for rule in ambiguous:
        assert rule.setting is not None
        allowed = set(typing.get_args(Settings.model_fields[rule.setting].annotation))
        assert allowed == {reading.key for reading in rule.readings}
        assert getattr(DeadlineChoices(), rule.setting) == Settings.model_fields[rule.setting].default
        assert all(reading.basis for reading in rule.readings)


def test_lengths_left_open_by_the_law_come_from_settings_with_matching_defaults() -> None:
    open_lengths = {
        reading.length_setting for rule in RULES for reading in rule.readings if reading.length_setting is not None
    }
    assert open_lengths == {"cp_notice_defence_days", "l1533_defence_days", "l1533_appeal_days",
                            "l1533_payment_days", "ombudsman_complement_days"}
    for name in open_lengths:
        assert getattr(DeadlineChoices(), name) == Settings.model_fields[name].default


def test_choices_follow_the_settings() -> None:
    settings = Settings(cp_edital_start="publicacao", l1533_notice_90d_start="juntada", l1533_defence_days=20)
    choices = DeadlineChoices.of(settings)
    assert choices.selected(get_rule("cp-37-reclamacao-edital")).key == "publicacao"
    assert choices.selected(get_rule("l1533-22-entrega")).start_event is StartEvent.JUNTADA_NOTIFICACAO
    assert choices.length(get_rule("l1533-22-defesa").readings[0]) == 20


def test_every_start_event_has_a_label() -> None:
    assert set(START_EVENT_LABELS) == set(StartEvent)


def test_every_rule_description_and_reading_is_translated_in_portuguese() -> None:
    tr = translator("pt_BR")
    texts = [rule.description for rule in RULES]
    texts += [reading.basis for rule in RULES for reading in rule.readings if reading.basis]
    texts += list(START_EVENT_LABELS.values())
    untranslated = [text for text in texts if tr._(text) == text]
    assert untranslated == []


def test_no_rule_counts_a_deposit_to_appeal() -> None:
    """STF Súmula Vinculante 21 (CF Art. 5 XXXIV, LV): CP Art. 46's deposit is never a deadline, nor a setting."""
    assert not [rule.id for rule in RULES if "deposito" in rule.id]
    assert "cp_deposit_days_kind" not in Settings.model_fields


def test_every_reading_setting_is_written_down_in_legal_choices() -> None:
    """docs/LEGAL-CHOICES.md names every setting that picks a reading or a length the law leaves open."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[3] / "docs" / "LEGAL-CHOICES.md").read_text(encoding="utf-8")
    names = {rule.setting for rule in RULES if rule.setting} | {
        reading.length_setting for rule in RULES for reading in rule.readings if reading.length_setting}
    names |= {"cp_defence_window", "month_end_rule", "calendar_optional_days_off", "tacit_ciencia_days",
              "cp_vista_order", "cp_recidivism_nature", "driver_vehicle_age_reading", "driver_inspection_start",
              "driver_failed_inspection", "driver_csv_validity", "ombudsman_complement_restarts"}
    missing = sorted(name for name in names if f"BALCAO_{name.upper()}" not in text)
    assert missing == []
    assert "Súmula Vinculante 21" in text
