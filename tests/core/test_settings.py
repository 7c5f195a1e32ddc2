"""Settings from BALCAO_* variables and .env, validated at start with messages that name the variable."""

import logging
from pathlib import Path

import pytest

from bot.cli import main
from core.settings import SettingsError, get_settings, load_settings, unknown_variables

pytestmark = pytest.mark.usefixtures("clean_environment")


def test_defaults_follow_the_design_contract() -> None:
    settings = load_settings()
    assert settings.telegram_token is None
    assert settings.telegram_api_url == "https://api.telegram.org"
    assert settings.database_url == "sqlite+aiosqlite:///./balcao.db"
    assert settings.timezone == "America/Cuiaba"
    assert (settings.http_host, settings.http_port) == ("127.0.0.1", 8080)
    assert settings.webhook_url is None and settings.staff_api_token is None


def test_environment_and_dotenv_are_read(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("BALCAO_HTTP_PORT=9090\nBALCAO_MUNICIPALITY_NAME=Nova Xavantina\n")
    monkeypatch.setenv("BALCAO_TELEGRAM_TOKEN", "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw")
    monkeypatch.setenv("BALCAO_MUNICIPAL_HOLIDAYS", "2026-03-12, 2026-07-01")
    monkeypatch.setenv("BALCAO_UNIT_VALUES", '{"URS": {"2026": "5.50"}}')
    settings = load_settings()
    assert settings.http_port == 9090
    assert settings.municipality_name == "Nova Xavantina"
    assert settings.telegram_token is not None
    assert [d.isoformat() for d in settings.municipal_holidays] == ["2026-03-12", "2026-07-01"]
    assert str(settings.unit_values["URS"][2026]) == "5.50"


def test_a_plain_postgres_url_gets_the_async_driver() -> None:
    assert load_settings(database_url="postgresql://u:p@db/balcao").database_url == (
        "postgresql+asyncpg://u:p@db/balcao"
    )


@pytest.mark.parametrize(
    ("variable", "value", "expected"),
    [
        ("BALCAO_TIMEZONE", "Mars/Olympus", "BALCAO_TIMEZONE"),
        ("BALCAO_DATABASE_URL", "mysql://x", "BALCAO_DATABASE_URL"),
        ("BALCAO_TELEGRAM_TOKEN", "not-a-token", "BALCAO_TELEGRAM_TOKEN"),
        ("BALCAO_HTTP_PORT", "99999", "BALCAO_HTTP_PORT"),
        ("BALCAO_TELEGRAM_API_URL", "ftp://example", "BALCAO_TELEGRAM_API_URL"),
    ],
)
def test_invalid_values_are_named_in_the_error(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, expected: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(SettingsError) as error:
        load_settings()
    assert expected in str(error.value)


def test_a_webhook_without_a_secret_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BALCAO_WEBHOOK_URL", "https://balcao.example.gov.br")
    with pytest.raises(SettingsError, match="BALCAO_WEBHOOK_SECRET"):
        load_settings()


def test_the_cli_locale_defaults_to_pt_br_and_refuses_an_unsupported_one(monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_settings().cli_locale == "pt_BR"
    monkeypatch.setenv("BALCAO_CLI_LOCALE", "fr")
    with pytest.raises(SettingsError, match="BALCAO_CLI_LOCALE"):
        load_settings()


def test_a_misspelt_setting_is_named_with_the_closest_one() -> None:
    """A BALCAO_* name no setting reads would be silently ignored: it is named, with the setting meant."""
    environ = {"BALCAO_CASES_PER_DAYS": "3", "BALCAO_ZZZ": "1", "BALCAO_CASES_PER_DAY": "4", "HOME": "/root"}
    assert unknown_variables(environ) == [("BALCAO_CASES_PER_DAYS", "BALCAO_CASES_PER_DAY"), ("BALCAO_ZZZ", None)]


def test_the_cli_warns_of_a_misspelt_setting(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BALCAO_TELEGRAM_TOKNE", "x")
    get_settings.cache_clear()
    with caplog.at_level(logging.WARNING, logger="balcao.cli"):
        assert main(["prazo", "cp-37-reclamacao", "--inicio", "2027-01-04"]) == 0
    assert ("BALCAO_TELEGRAM_TOKNE is not a Balcão setting and is ignored (did you mean BALCAO_TELEGRAM_TOKEN?)"
            in caplog.messages)
