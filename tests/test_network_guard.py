"""The guard that keeps tests off the internet."""

import asyncio
import socket

import pytest

from tests.auxil.network_guard import InternetAccessBlocked


def test_a_public_address_is_refused() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock, pytest.raises(InternetAccessBlocked):
        sock.connect(("1.1.1.1", 443))


def test_a_public_name_is_not_even_resolved() -> None:
    with pytest.raises(InternetAccessBlocked):
        socket.getaddrinfo("api.telegram.org", 443)


async def test_asyncio_connections_are_guarded_too() -> None:
    with pytest.raises(InternetAccessBlocked):
        await asyncio.open_connection("8.8.8.8", 53)


async def test_loopback_is_allowed() -> None:
    server = await asyncio.start_server(lambda r, w: w.close(), "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    _reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.close()
    server.close()
    await server.wait_closed()
