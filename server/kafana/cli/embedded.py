"""An in-process Kafana server for `kafana play` when no --server is given, on a private
redis-server of its own (`kafana.service.embedded`: without one, a line saying how to install
it, exit status 1).

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


@asynccontextmanager
async def embedded_server(host: str = "127.0.0.1", port: int = 0) -> AsyncIterator[str]:
    """Serve on host:port (0: a free port) on a private redis-server; yields the target."""
    # imported here, when a server is started: `kafana play --server ...` and a usage error
    # start 0.5 s sooner without the service's imports
    from kafana.service.embedded import private_server
    from kafana.service.server import create_server
    from kafana.service.settings import Settings
    from kafana.store.redis_store import RedisStore

    service_log = logging.getLogger("kafana")
    quiet = not debugging(sys.argv[1:])
    if quiet:
        service_log.addHandler(logging.NullHandler())
        service_log.propagate = False
    redis = private_server()
    store = RedisStore.from_url(redis.url)
    try:
        kafana = create_server(store, Settings(host=host, port=port))
        await kafana.start()
        try:
            yield f"{host}:{kafana.port}"
        finally:
            await asyncio.sleep(0.1)  # let closed client channels go before the server goes
            await kafana.stop(0.5)
    finally:
        await store.close()
        redis.stop()
