"""A batch sent with a stale slot map: the commands routed by a moved key's slot follow it to its
node, so a WAIT after a write runs on the connection that made the write."""

from __future__ import annotations

from pathlib import Path

from kafana.store.client import RedisClient
from kafana.store.keys import table_keys
from kafana.store.resp import pack
from kit import redis_cli, redis_cluster


async def test_commands_after_a_moved_write_go_where_it_went(tmp_path: Path) -> None:
    with redis_cluster(tmp_path) as ports:
        client = RedisClient.from_url(f"redis+cluster://127.0.0.1:{ports[0]}")
        try:
            ids = {port: redis_cli(port, "cluster", "myid").strip() for port in ports}
            keys = [table_keys(f"moved{i}").state for i in range(12)]
            owners = {key: (await client.node_of(key)).port for key in keys}
            stale = await client.node_of("")
            client._slots = [stale] * len(client._slots)  # every slot on the seed
            moved = next(key for key in keys if owners[key] != stale.port)
            # SET is keyed on the server (MOVED from the seed); CLUSTER MYID is not: it would
            # answer on whatever connection it is sent, as WAIT would.
            replies = await client.calls(
                [(moved, pack("SET", moved, "1")), (moved, pack("CLUSTER", "MYID"))]
            )
            assert replies[0] == b"OK"
            assert replies[1] == ids[owners[moved]].encode()  # the node that took the SET
        finally:
            await client.close()
