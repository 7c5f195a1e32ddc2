"""The place is in the municipality (issue 20 §3): a location 700 km away is refused for a Nova Xavantina
representação at its step in the chat, naming the municipality (Open311: tests/handlers/web/open311)."""

from pathlib import Path
from typing import Any

import pytest

from core.settings import Settings, load_settings
from tests.auxil.case_chat import Talk
from tests.auxil.municipalities import write_municipalities

NX_AREA = "area = { latitude = -14.6731, longitude = -52.3547, radius_km = 80 }"
SAPEZAL_TOWN = (-13.5427, -58.8145)  # about 700 km west of Nova Xavantina


@pytest.fixture
def settings(settings: Settings, tmp_path: Path) -> Settings:
    """The test deployment, Nova Xavantina with its territory as a circle of 80 km."""
    return load_settings(database_url=settings.database_url,
                         municipalities_file=write_municipalities(tmp_path, nx_extra=NX_AREA))


async def test_a_location_700_km_away_is_refused_at_its_step_naming_the_municipality(
    emulator: Any, bot_app: Any
) -> None:
    joao = Talk(emulator, emulator.add_user(873001, "João", language_code="pt-br"))
    kind = await joao.send("/representacao", "O que você quer denunciar?")
    await joao.press(kind, "rep:kind:cp", "nome completo")
    await joao.send("João Batista Pereira", "profissão")
    await joao.send("Pedreiro", "endereço")
    await joao.send("Rua das Flores, 123, Centro", "CPF")
    await joao.send("529.982.247-25", "uma ou duas palavras")
    results = await joao.send("lixo na rua", "É uma destas")
    await joao.press(results, "rep:inf:CP-I-9", "Conte rapidamente")
    accused = await joao.send("Um caminhão despeja entulho na calçada toda sexta.", "Quem é o responsável?")
    await joao.press(accused, "rep:skip:accused", "Onde aconteceu?")
    refused = await joao.location(*SAPEZAL_TOWN, "Nova Xavantina")
    assert "cerca de 7" in refused.text and "só pode agir no próprio município" in refused.text
    await joao.location(-14.6722, -52.3545, "Quando aconteceu?")  # in town: taken, nothing before it lost
