"""Fail any test that tries to reach beyond this machine.

Connections are allowed only to loopback addresses and Unix sockets (the emulator, the throwaway
PostgreSQL cluster, the Chromium driver). Everything else raises ``InternetAccessBlocked``.
"""

from __future__ import annotations

import ipaddress
import socket
from typing import Any

_LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}


class InternetAccessBlocked(RuntimeError):
    """A test tried to reach the internet."""


def _is_local(host: object) -> bool:
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode()
    if not isinstance(host, str):
        return False
    if host in _LOCAL_NAMES or host == "":
        return True
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def _check_address(family: int, address: Any) -> None:
    if family == getattr(socket, "AF_UNIX", None):
        return
    host = address[0] if isinstance(address, tuple) else address
    if not _is_local(host):
        raise InternetAccessBlocked(f"test tried to connect to {address!r}")


_original_connect = socket.socket.connect
_original_connect_ex = socket.socket.connect_ex
_original_getaddrinfo = socket.getaddrinfo


def _guarded_connect(self: socket.socket, address: Any) -> None:
    _check_address(self.family, address)
    return _original_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: Any) -> int:
    _check_address(self.family, address)
    return _original_connect_ex(self, address)


def _guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
    if not _is_local(host):
        raise InternetAccessBlocked(f"test tried to resolve {host!r}")
    return _original_getaddrinfo(host, *args, **kwargs)


def install() -> None:
    """Patch the socket module for the rest of the process."""
    socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
    socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign]
    socket.getaddrinfo = _guarded_getaddrinfo
