"""The store's client on a real 3-master Redis Cluster: slots, redirects, a node lost."""

from __future__ import annotations

from pathlib import Path

from kafana.store.client import RedisClient, key_slot
from kafana.store.keys import table_keys
from kafana.store.resp import pack
from kit import redis_cli, redis_cluster


async def test_slots_redirects_and_every_node(tmp_path: Path) -> None:
    with redis_cluster(tmp_path) as ports:
        client = RedisClient.from_url(f"redis+cluster://127.0.0.1:{ports[0]}")
        try:
            keys = [table_keys(f"slot{i}").state for i in range(30)]
            for key in keys:  # the same slot as Redis computes
                assert key_slot(key) == int(redis_cli(ports[0], "cluster", "keyslot", key))
            for i, key in enumerate(keys):
                assert await client.call(key, "SET", key, i) == b"OK"
            nodes = {await client.node_of(key) for key in keys}
            assert {node.port for node in nodes} == set(ports)  # spread over every primary
            # A stale slot map (every slot on one node): MOVED is followed, the map read again.
            first = await client.node_of("")
            client._slots = [first] * len(client._slots)
            replies = await client.calls([(key, pack("GET", key)) for key in keys])
            assert replies == [b"%d" % i for i in range(len(keys))]
            assert len(set(client._slots)) == len(ports)
        finally:
            await client.close()
