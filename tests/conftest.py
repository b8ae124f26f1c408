"""Settings for the whole test run, read before any test module imports gRPC; the test kit's
fixtures (`tests/kit.py`: private redis-servers) for every folder."""

from __future__ import annotations

import os
import sys

# Terminal tests fork a pseudo-terminal child from this process while in-process gRPC servers
# and clients run threads; with gRPC's fork handlers on, the child sometimes crashed
# (SIGSEGV) before it could exec `kafana play`. Without them, fork + exec is plain POSIX.
os.environ["GRPC_ENABLE_FORK_SUPPORT"] = "false"
assert "grpc" not in sys.modules, "gRPC was imported before tests/conftest.py could configure it"

from kit import (  # noqa: E402, F401 (fixtures for every folder)
    private_redis,
    redis_store,
    redis_url,
    service,
)
