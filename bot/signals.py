"""SIGTERM and SIGINT as an asyncio event, so long-running commands stop cleanly instead of dying."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Iterator


@contextlib.contextmanager
def stop_on_signals(stop: asyncio.Event | None = None) -> Iterator[asyncio.Event]:
    """Set ``stop`` (a new event when omitted) on SIGTERM or SIGINT while the block runs; restore after it.

    Where signal handlers cannot be installed (another thread, another platform) the event is still returned
    and can be set by other means.
    """
    event = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    installed = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # not on this platform / thread
            loop.add_signal_handler(sig, event.set)
            installed.append(sig)
    try:
        yield event
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
