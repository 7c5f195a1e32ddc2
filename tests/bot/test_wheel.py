"""The installed package speaks Portuguese (issue 9 item 1).

Build the wheel from a copy of the source without any compiled catalog, install it (``--no-deps``) in a fresh
virtual environment that borrows this one's dependencies through a ``.pth`` line (so nothing is downloaded and
the source tree is not on the path), and run ``python -m bot`` from an empty folder: the CLI prints pt_BR (its
--help and usage errors too), the demo greets a ``pt-br`` person in Portuguese with a Portuguese command menu, and a
missing catalog stops the start, naming the file.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.sandbox.state import DEFAULT_PERSONAS

REPO = Path(__file__).resolve().parents[2]
NOT_SOURCES = shutil.ignore_patterns(
    ".venv", ".git", "*.mo", "__pycache__", "build", "dist", "*.egg-info", "*.db", "tests", "bench", ".*_cache"
)


@dataclass(frozen=True)
class Installed:
    python: Path
    site_packages: Path
    folder: Path  # an empty working folder, far from the source tree

    def env(self) -> dict[str, str]:
        env = {key: value for key, value in os.environ.items() if not key.startswith(("BALCAO_", "PYTHON"))}
        return env | {"BALCAO_HTTP_PORT": "0"}

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.python), "-m", "bot", *args], cwd=self.folder, env=self.env(), capture_output=True,
            text=True, timeout=60, check=False,
        )


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    base = tmp_path_factory.mktemp("wheel")
    source = base / "source"
    shutil.copytree(REPO, source, ignore=NOT_SOURCES)
    assert not list(source.rglob("*.mo")), "the wheel must compile its catalogs itself"
    subprocess.run(
        [sys.executable, "-c", f"from setuptools import build_meta; build_meta.build_wheel({str(base / 'dist')!r})"],
        cwd=source, check=True, capture_output=True, timeout=120,
    )
    wheel = next((base / "dist").glob("balcao-*.whl"))
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=60)
    python = venv / "bin" / "python"
    site_packages = Path(subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip())
    # This venv's dependencies, as a plain path: its .pth files (the editable install of the source) are not run.
    (site_packages / "borrowed-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps", "--no-index",
         str(wheel)],
        check=True, capture_output=True, timeout=120,
    )
    folder = base / "elsewhere"
    folder.mkdir()
    yield Installed(python=python, site_packages=site_packages, folder=folder)


def test_the_installed_package_is_the_one_running_not_the_source(installed: Installed) -> None:
    where = subprocess.run(
        [str(installed.python), "-c", "import core.i18n as i; print(i.__file__); print(i.LOCALES_DIR)"],
        cwd=installed.folder, env=installed.env(), capture_output=True, text=True, check=True,
    ).stdout.split()
    assert all(Path(path).is_relative_to(installed.site_packages) for path in where), where


def test_the_installed_cli_prints_portuguese_by_default(installed: Installed) -> None:
    done = installed.run("run")  # no token: the explanation, in BALCAO_CLI_LOCALE (pt_BR by default)
    assert done.returncode == 2
    assert "Para conseguir um token" in done.stderr, done.stderr


def test_the_installed_cli_helps_and_refuses_a_command_line_in_portuguese(installed: Installed) -> None:
    helped = installed.run("--help")  # the wheel's cli.mo, argparse's own texts included
    assert helped.returncode == 0 and helped.stdout.startswith("uso: python -m bot"), helped.stdout
    assert "mostrar esta ajuda e sair" in helped.stdout and "rodar o bot" in helped.stdout
    refused = installed.run("staff", "add", "12")
    assert refused.returncode == 2
    assert refused.stderr.endswith("erro: faltou informar: --role\n"), refused.stderr


async def _chat(http: aiohttp.ClientSession, root: str, user_id: int, needle: str) -> dict[str, Any]:
    version = -1
    while True:  # each call long-polls until the chat changes
        async with http.get(f"{root}/sandbox/chat", params={"user_id": user_id, "since": version}) as response:
            chat: dict[str, Any] = await response.json()
        if any(m["from"] == "bot" and needle in m["text"] for m in chat["messages"]):
            return chat
        version = chat["version"]


async def test_the_installed_demo_greets_a_pt_br_person_in_portuguese(installed: Installed) -> None:
    demo = await asyncio.create_subprocess_exec(
        str(installed.python), "-m", "bot", "demo", "--port", "0", cwd=installed.folder, env=installed.env(),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,  # the log goes to stderr
    )
    assert demo.stdout is not None
    try:
        banner = (await asyncio.wait_for(demo.stdout.readline(), timeout=30)).decode()
        assert banner.startswith("Ambiente de teste do Balcão"), banner
        found = re.search(r"http://[\d.:]+", banner)
        assert found is not None
        root = found.group(0)
        maria = DEFAULT_PERSONAS[1]
        assert maria.language_code == "pt-br"
        async with aiohttp.ClientSession() as http:
            async with http.post(f"{root}/sandbox/send", json={"user_id": maria.user_id, "text": "/start"}) as sent:
                assert sent.status == 200
            chat = await asyncio.wait_for(_chat(http, root, maria.user_id, "O que você quer fazer?"), timeout=30)
        texts = [m["text"] for m in chat["messages"] if m["from"] == "bot"]
        assert any(text.startswith("Olá, Maria!") for text in texts), texts
        labels = [b["text"] for row in chat["messages"][-1]["inline_keyboard"] for b in row]
        assert "Idioma" in labels and "Ajuda" in labels, labels
        menu = {c["command"]: c["description"] for c in chat["commands"]}
        assert menu["idioma"] == "Trocar o idioma", menu
    finally:
        demo.terminate()
        await asyncio.wait_for(demo.wait(), timeout=30)


def test_the_installed_package_refuses_to_start_without_a_catalog(installed: Installed) -> None:
    catalog = installed.site_packages / "core" / "locales" / "es" / "LC_MESSAGES" / "core.mo"
    hidden = catalog.with_suffix(".hidden")
    catalog.rename(hidden)
    try:
        for command in (("demo",), ("dispatch",)):  # one check in main(), before any command
            refused = installed.run(*command)
            assert refused.returncode == 2, (command, refused.stdout, refused.stderr)
            assert "es/LC_MESSAGES/core.mo is missing" in refused.stderr
            assert "Traceback" not in refused.stderr
    finally:
        hidden.rename(catalog)
