"""An in-process Kafana server for `kafana play` when no --server is given."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from kafana.service.server import create_server
from kafana.store.memory import MemoryStore


@asynccontextmanager
async def embedded_server(host: str = "127.0.0.1", port: int = 0) -> AsyncIterator[str]:
    """Serve on host:port (0: a free port) with the memory store; yields the target."""
    kafana = create_server(MemoryStore(), host=host, port=port)
    await kafana.start()
    try:
        yield f"{host}:{kafana.port}"
    finally:
        await asyncio.sleep(0.1)  # let closed client channels go before the server says goodbye
        await kafana.stop(0.5)
