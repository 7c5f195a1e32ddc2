"""BALCAO_MUNICIPALITIES_FILE: one validated TOML file, one line per problem; the single-municipality variables still
work (issue 11 item 2). A rulebook is in force only in the municipality that enacted it (CF Art. 30 I)."""

import datetime as dt
from pathlib import Path

import pytest

from bot.sandbox.demo import DEMO_MUNICIPALITIES_FILE
from core.settings import SettingsError, load_settings

pytestmark = pytest.mark.usefixtures("clean_environment")


def test_the_demo_file_serves_sapezal_and_nova_xavantina_each_with_its_law() -> None:
    settings = load_settings(municipalities_file=DEMO_MUNICIPALITIES_FILE)
    assert list(settings.municipalities) == ["sapezal", "nova-xavantina"]
    nx = settings.for_municipality("nova-xavantina")
    assert (nx.municipality_name, nx.rulebooks, nx.municipality.ibge_code) == ("Nova Xavantina", ["nx-posturas"],
                                                                              "5106257")
    assert nx.municipality.prefeitura == "Prefeitura Municipal de Nova Xavantina"
    assert set(nx.unit_values) == {"UPF-NX"} and nx.fines_illustrative
    sapezal = settings.for_municipality("sapezal")
    assert sapezal.rulebooks == ["sapezal-1533"] and set(sapezal.unit_values) == {"URS"}
    assert sapezal.municipal_holidays != nx.municipal_holidays
    assert settings.municipality_slug == "sapezal"  # the first is the default


def test_every_problem_of_the_file_is_one_line_naming_its_place(tmp_path: Path) -> None:
    path = tmp_path / "m.toml"
    path.write_text('''
[[municipality]]
slug = "Nova Xavantina"
name = "Nova Xavantina"
state = "XX"
ibge_code = "123"

[[municipality]]
slug = "sapezal"
name = "Sapezal"
ibge_code = "5206257"
unit_values.URS = { 2026 = "-1" }

[[municipality.short_days]]
date = 2026-12-24
''', encoding="utf-8")
    with pytest.raises(SettingsError) as caught:
        load_settings(municipalities_file=path)
    lines = str(caught.value).splitlines()
    assert lines[0].startswith("Invalid BALCAO_MUNICIPALITIES_FILE")
    text = "\n".join(lines)
    for expected in ("municipality.0.slug", "municipality.0.state", "municipality.0.ibge_code",
                     "municipality.1.unit_values.URS.2026", "municipality.1.short_days.0"):
        assert expected in text, expected
    assert len(lines) >= 6


def test_a_rulebook_is_in_force_only_in_its_own_municipality(tmp_path: Path) -> None:
    """Lei 1.533/2020 is Sapezal's: Nova Xavantina cannot enforce it (CF Art. 30 I)."""
    path = tmp_path / "m.toml"
    path.write_text('[[municipality]]\nslug = "nova-xavantina"\nname = "Nova Xavantina"\nibge_code = "5106257"\n'
                    'rulebooks = ["sapezal-1533"]\n', encoding="utf-8")
    with pytest.raises(SettingsError, match=r"sapezal-1533 is a law of Sapezal .*CF Art. 30 I"):
        load_settings(municipalities_file=path)
    with pytest.raises(SettingsError, match="BALCAO_RULEBOOKS: rulebook nx-posturas is a law of Nova Xavantina"):
        load_settings(municipality_name="Sapezal", rulebooks=["sapezal-1533", "nx-posturas"])


def test_unreadable_or_conflicting_configuration_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(SettingsError, match="cannot read"):
        load_settings(municipalities_file=tmp_path / "missing.toml")
    (tmp_path / "bad.toml").write_text("[[municipality]\n", encoding="utf-8")
    with pytest.raises(SettingsError, match="is not valid TOML"):
        load_settings(municipalities_file=tmp_path / "bad.toml")
    monkeypatch.setenv("BALCAO_MUNICIPALITY_NAME", "Sapezal")
    with pytest.raises(SettingsError, match="BALCAO_MUNICIPALITY_NAME would be ignored"):
        load_settings(municipalities_file=DEMO_MUNICIPALITIES_FILE)


def test_the_single_municipality_variables_still_describe_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BALCAO_MUNICIPALITY_NAME", "Nova Xavantina")
    monkeypatch.setenv("BALCAO_OUVIDORIA_PHONE", "(66) 3438-1234")
    monkeypatch.setenv("BALCAO_UNIT_VALUES", '{"UPF-NX": {"2026": "42.00"}}')
    monkeypatch.setenv("BALCAO_MUNICIPAL_HOLIDAYS", "2026-05-13")
    settings = load_settings()
    assert list(settings.municipalities) == ["nova-xavantina"] and not settings.municipalities.several
    assert settings.rulebooks == ["nx-posturas"]  # its own law, by default
    assert settings.municipality.ouvidoria.phone == "(66) 3438-1234"
    assert [d.isoformat() for d in settings.municipal_holidays] == ["2026-05-13"]
    assert settings.unit_value_setting("UPF-NX", 2027).startswith("BALCAO_UNIT_VALUES")


def test_a_single_municipality_lists_its_short_office_days_in_a_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    """L9784 Art. 66 §1: a short day moves a deadline; without the file it comes from BALCAO_SHORT_DAYS."""
    monkeypatch.setenv("BALCAO_MUNICIPALITY_NAME", "Nova Xavantina")
    monkeypatch.setenv("BALCAO_SHORT_DAYS", '[{"date": "2026-12-24", "closes": "12:00", "act": "Decreto nº 45/2026"}]')
    scoped = load_settings().for_municipality(None)
    assert [(day.date.isoformat(), day.closes, day.act) for day in scoped.short_days] == [
        ("2026-12-24", dt.time(12, 0), "Decreto nº 45/2026")]
    monkeypatch.setenv("BALCAO_SHORT_DAYS", '[{"date": "2026-12-24"}]')  # neither closes nor opens
    with pytest.raises(SettingsError, match="2026-12-24"):
        load_settings()


def test_with_nothing_configured_both_shipped_municipalities_are_served_without_unit_values() -> None:
    settings = load_settings()
    assert list(settings.municipalities) == ["sapezal", "nova-xavantina"]
    assert all(not item.unit_values for item in settings.municipalities.values())


def test_a_municipality_may_have_its_own_bot(tmp_path: Path) -> None:
    """Each municipality may have its own bot or share the deployment's (DESIGN: Municipalities)."""
    path = tmp_path / "m.toml"
    path.write_text('[[municipality]]\nslug = "sapezal"\nname = "Sapezal"\nibge_code = "5107875"\n'
                    '[[municipality]]\nslug = "nova-xavantina"\nname = "Nova Xavantina"\nibge_code = "5106257"\n'
                    'bot_token = "7654321:NX-own-bot-token-000"\nbot_name = "BalcaoNX_bot"\n', encoding="utf-8")
    settings = load_settings(municipalities_file=path)
    [(slug, token)] = settings.own_bots()
    assert slug == "nova-xavantina" and token.get_secret_value() == "7654321:NX-own-bot-token-000"
    assert "NX-own-bot" not in repr(settings.municipalities["nova-xavantina"])  # a secret, never printed
    path.write_text('[[municipality]]\nslug = "sapezal"\nname = "Sapezal"\nbot_token = "oops"\n', encoding="utf-8")
    with pytest.raises(SettingsError, match=r"municipality\.0\.bot_token: does not look like a bot token"):
        load_settings(municipalities_file=path)
