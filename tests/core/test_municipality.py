"""The municipality as a typed value (issue 19 §3): built once from the settings, frozen, without the deployment's
secrets; its readings are the settings' own declarations."""

import dataclasses
from pathlib import Path

import pytest
from pydantic import ValidationError

from core.municipality import Cities, LegalReadings, Timestamping, cities_of
from core.readings import ReadingFields
from core.settings import Settings, load_settings
from tests.auxil.municipalities import write_municipalities

pytestmark = pytest.mark.usefixtures("clean_environment")


def _settings(tmp_path: Path, **overrides: object) -> Settings:
    return load_settings(municipalities_file=write_municipalities(tmp_path), **overrides)


def test_every_served_municipality_is_built_once_in_the_file_order(tmp_path: Path) -> None:
    cities = cities_of(_settings(tmp_path))
    assert list(cities) == ["sapezal", "nova-xavantina"] and cities.several
    assert cities.default is cities["sapezal"] is cities.of(None) is cities.of("")
    assert cities.of("nova-xavantina").name == "Nova Xavantina"
    with pytest.raises(KeyError):
        cities.of("cuiaba")


def test_a_rulebook_belongs_to_the_municipality_that_enacted_it(tmp_path: Path) -> None:
    """CF Art. 30 I: Lei 1.533/2020 is Sapezal's, the Código de Posturas Nova Xavantina's."""
    cities = cities_of(_settings(tmp_path))
    assert cities.with_rulebook("sapezal-1533") is cities["sapezal"]
    assert cities.with_rulebook("nx-posturas") is cities["nova-xavantina"]
    assert cities.with_rulebook("other") is None


def test_it_says_what_the_scoped_settings_said(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    for slug, city in cities_of(settings).items():
        scoped = settings.for_municipality(slug)
        assert (city.slug, city.name, city.state, city.ibge_code) == (
            scoped.municipality_slug, scoped.municipality_name, scoped.municipality_state,
            scoped.municipality_ibge_code)
        assert list(city.rulebooks) == scoped.rulebooks and list(city.holidays) == scoped.municipal_holidays
        assert city.unit_values == scoped.unit_values and list(city.short_days) == scoped.short_days
        assert city.driver_office == scoped.driver_office and city.prefeitura == scoped.municipality.prefeitura
        assert city.unit_value_setting("URS", 2027) == scoped.unit_value_setting("URS", 2027)
        assert city.tz == scoped.tz and city.fines_illustrative == scoped.fines_illustrative
    assert cities_of(settings)["nova-xavantina"].driver_office.startswith("Fiscalização de Posturas")


def test_the_single_municipality_variables_name_where_unit_values_go(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BALCAO_MUNICIPALITY_NAME", "Nova Xavantina")
    city = cities_of(load_settings()).default
    assert city.slug == "nova-xavantina" and city.unit_value_setting("UPF-NX", 2027).startswith("BALCAO_UNIT_VALUES")


def test_the_readings_are_the_settings_declarations_read_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("BALCAO_TACIT_CIENCIA_RULEBOOKS", "nx-posturas, sapezal-1533")
    monkeypatch.setenv("BALCAO_NOTICE_REMINDER_DAYS", "5,2")
    monkeypatch.setenv("BALCAO_CP_RECIDIVISM_NATURE", "capitulo")
    settings = _settings(tmp_path)
    readings = cities_of(settings).default.readings
    assert readings.tacit_ciencia_rulebooks == ["nx-posturas", "sapezal-1533"]
    assert readings.notice_reminder_days == [5, 2] and readings.cp_recidivism_nature == "capitulo"
    assert set(ReadingFields.model_fields) <= set(Settings.model_fields)
    assert readings == LegalReadings.of(settings)
    monkeypatch.setenv("BALCAO_CP_RECIDIVISM_NATURE", "bairro")
    with pytest.raises(Exception, match="BALCAO_CP_RECIDIVISM_NATURE"):
        _settings(tmp_path)


def test_it_is_frozen_and_holds_no_deployment_secret(tmp_path: Path) -> None:
    settings = _settings(tmp_path, telegram_token="123456:" + "A" * 35, webhook_url="https://x.example",
                         webhook_secret="s3cret", staff_api_token="staff-token")
    city = cities_of(settings).default
    names = {item.name for item in dataclasses.fields(city)} | set(LegalReadings.model_fields)
    assert not names & {"telegram_token", "database_url", "webhook_url", "webhook_secret", "staff_api_token"}
    for secret in ("123456:", "s3cret", "staff-token", settings.database_url):
        assert secret not in repr(city)
    with pytest.raises(dataclasses.FrozenInstanceError):
        city.demo = True  # type: ignore[misc]
    with pytest.raises(ValidationError):
        city.readings.tacit_ciencia_days = 1  # type: ignore[misc]


def test_the_signing_password_is_read_once_when_built_and_never_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    signing = '[municipality.signing]\npkcs12_file = "nx.p12"\npassword_env = "NX_CERT_PASSWORD"\n'
    monkeypatch.setenv("NX_CERT_PASSWORD", "pa55word")
    settings = load_settings(municipalities_file=write_municipalities(tmp_path, nx_extra=signing))
    cities = cities_of(settings)
    monkeypatch.delenv("NX_CERT_PASSWORD")
    assert cities["nova-xavantina"].signing_password == b"pa55word"
    assert "pa55word" not in repr(cities["nova-xavantina"]) and cities["sapezal"].signing_password is None


def test_the_demo_and_the_time_zone_come_from_the_deployment(tmp_path: Path) -> None:
    settings = _settings(tmp_path, timezone="America/Sao_Paulo").as_demo()
    city = cities_of(settings).default
    assert city.demo and str(city.tz) == "America/Sao_Paulo"


def test_timestamping_is_the_deployments_not_a_citys(tmp_path: Path) -> None:
    settings = _settings(tmp_path, tsa_url="https://tsa.example/", log_witness_url="https://witness.example")
    assert Timestamping.of(settings) == Timestamping(tsa_url="https://tsa.example", witness_url="https://witness.example")


def test_a_deployment_serves_at_least_one() -> None:
    with pytest.raises(ValueError, match="at least one"):
        Cities(())
