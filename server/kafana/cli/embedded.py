"""An in-process Kafana server for `kafana play` when no --server is given.

Its log is not the person's screen: the service's messages (a stream cut as the match ends)
are kept off the terminal unless `--debug` or KAFANA_DEBUG=1 asks for them.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from kafana.cli.boundary import debugging
from kafana.service.server import create_server
from kafana.service.settings import Settings
from kafana.store.memory import MemoryStore


@asynccontextmanager
async def embedded_server(host: str = "127.0.0.1", port: int = 0) -> AsyncIterator[str]:
    """Serve on host:port (0: a free port) with the memory store; yields the target."""
    service_log = logging.getLogger("kafana")
    quiet = not debugging(sys.argv[1:])
    if quiet:
        service_log.addHandler(logging.NullHandler())
        service_log.propagate = False
    kafana = create_server(MemoryStore(), Settings(host=host, port=port))
    await kafana.start()
    try:
        yield f"{host}:{kafana.port}"
    finally:
        await asyncio.sleep(0.1)  # let closed client channels go before the server says goodbye
        await kafana.stop(0.5)
