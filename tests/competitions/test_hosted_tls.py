"""A server with (mutual) TLS hosts a whole event: built-in bots and remote bots over TLS.

The director plays on the server's own tables in its process, so it needs no plaintext port
(once it played through the SDK over a loopback channel, and a TLS server refused events).
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
from kafana.competitions.envelope import FairRecord
from kafana.competitions.verify import verify
from kafana.v1 import competitions_pb2 as pb
from kafana_client import AsyncClient, RpcError, Tls
from kafana_client.tournaments import Tournaments
from reliability.reliability_support import make_certs

from .hosted_helpers import bot_player, entry_task, games, served

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl")


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A test CA with a server certificate for localhost and a client certificate."""
    return make_certs(tmp_path_factory.mktemp("certs"))


async def test_a_tls_server_hosts_an_event_with_remote_bots(redis_url: str, certs: Path) -> None:
    options = ["--tls-cert", str(certs / "server.pem"), "--tls-key", str(certs / "server.key")]
    options += ["--tls-client-ca", str(certs / "ca.pem")]  # mutual: every client shows a cert
    tls = Tls(
        root_certificates=certs / "ca.pem",
        client_certificate=certs / "client.pem",
        client_key=certs / "client.key",
        server_name="localhost",
    )
    with served(redis_url, *options) as hosted:
        async with AsyncClient.connect(hosted.target) as plain:  # no TLS: refused
            with pytest.raises(RpcError):
                await Tournaments(plain).list()
        async with AsyncClient.connect(hosted.target, tls=tls) as client:
            events = Tournaments(client)
            made = await events.create("secure", "round_robin", target=21, seed=8, chosen_seed=True)
            for name, bot in (("greedy", "greedy"), ("heuristic", "heuristic")):
                await events.enter(made.event_id, name, bot=bot)
            remotes = [await events.enter(made.event_id, name) for name in ("far", "away")]
            await events.start(made.event_id, made.organiser_token)
            tasks = [
                await entry_task(client, made.event_id, r.token, bot_player(client, bot))
                for r, bot in zip(remotes, ("greedy", "random"), strict=True)
            ]
            finals = await asyncio.wait_for(asyncio.gather(*tasks), 120)
            info = await events.get(made.event_id, records=True)
    assert all(f.event_over for f in finals)
    assert info.phase == pb.EVENT_PHASE_FINISHED and len(info.rounds) == 3
    played = games(info)
    assert len(played) == 6 and {e for g in played for e in g.seats} == {
        "greedy", "heuristic", "far", "away"
    }  # fmt: skip
    for g in played:
        assert (
            g.status == pb.GAME_STATUS_DONE
            and g.ending == pb.GAME_ENDING_SCORE
            and max(g.scores) >= 21
        )
        checked = verify(FairRecord.from_text(g.record))
        assert checked.finished and list(checked.scores) == list(g.scores)
    assert sum(s.points for s in info.standings) == 6
