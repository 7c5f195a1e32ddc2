"""Messages about citizens' cases: what the author and staff read, in their language, never naming the author."""

import datetime as dt

import time_machine

from core.i18n import translator
from notifications.case_messages import render_case_update, render_staff_notice

BASE = {"case_id": 7, "protocol": "OUV-2026-000045", "kind": "ombudsman", "status": "in_progress",
        "due_on": "2026-04-01", "complement_due_on": None, "note": None}


@time_machine.travel(dt.datetime(2026, 3, 2, 14, tzinfo=dt.UTC), tick=False)
def test_a_request_for_complementacao_has_the_question_the_date_the_days_and_an_answer_button() -> None:
    payload = {**BASE, "event": "complement_requested", "status": "awaiting_complement",
               "note": "Qual é o endereço <do> posto?", "complement_due_on": "2026-03-23"}
    rendered = render_case_update(payload, translator("pt_BR"))
    assert "Qual é o endereço &lt;do&gt; posto?" in rendered.text
    assert "segunda-feira, 23 de março de 2026" in rendered.text and "faltam 21 dias" in rendered.text
    assert "Lei nº 9.784/1999, Art. 39 e 40" in rendered.text and "Decreto" not in rendered.text  # issue 20 §3
    assert rendered.buttons[0] == [("Responder agora", "acomp:compl:7")]


def test_the_answer_comes_with_the_satisfaction_question() -> None:
    """L13460 Art. 23: the user's satisfaction with the answer."""
    payload = {**BASE, "event": "answered", "status": "answered", "note": "O médico começa segunda."}
    rendered = render_case_update(payload, translator("en"))
    assert "The Ouvidoria answered your case <b>OUV-2026-000045</b>" in rendered.text
    assert "O médico começa segunda." in rendered.text
    assert [data for _label, data in rendered.buttons[0]] == [
        "acomp:sat:7:satisfied", "acomp:sat:7:partly", "acomp:sat:7:unsatisfied"
    ]


def test_a_decision_tells_the_reason_and_that_the_name_is_never_shown() -> None:
    payload = {**BASE, "kind": "representation", "protocol": "REP-2026-000001", "event": "decided",
               "status": "archived", "note": "Não havia entulho no local."}
    text = render_case_update(payload, translator("pt_BR")).text
    assert "arquivada" in text and "Não havia entulho no local." in text
    assert "Código de Posturas, Art. 32" in text
    assert "nunca" in text  # "Seu nome nunca é mostrado…"


def test_an_extension_gives_the_new_date_and_the_reason() -> None:
    payload = {**BASE, "event": "extended", "due_on": "2026-05-04", "note": "Aguardando a Secretaria."}
    text = render_case_update(payload, translator("es")).text
    assert "4 de mayo de 2026" in text and "Aguardando a Secretaria." in text and "Art. 16" in text


@time_machine.travel(dt.datetime(2026, 3, 30, 14, tzinfo=dt.UTC), tick=False)
def test_staff_are_warned_with_the_days_left_and_a_button_to_the_case() -> None:
    payload = {"case_id": 7, "protocol": "OUV-2026-000045", "kind": "ombudsman", "what": "deadline",
               "due_on": "2026-04-01"}
    rendered = render_staff_notice(payload, translator("pt_BR"))
    assert "OUV-2026-000045" in rendered.text and "faltam 2 dias" in rendered.text
    assert rendered.buttons == [[("Abrir o caso", "pend:case:7")]]
