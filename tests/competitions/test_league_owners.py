"""A league is changed only by its organiser or an operator; an account makes few leagues."""

from __future__ import annotations

import grpc
from kafana.competitions.quota import LEAGUES_PER_DAY
from kafana.v1 import leagues_pb2 as pb
from kit import info_metadata, reason_of, refusal

from .league_helpers import create_league, site


async def test_only_its_organiser_or_an_operator_starts_a_new_season(redis_url: str) -> None:
    async with site(redis_url) as s:
        node = s.nodes[0]
        org, rival = await s.account("org", "organiser"), await s.account("rival", "organiser")
        root = await s.account("root", "operator")
        await create_league(node, org, "spring")
        season = pb.NewSeasonRequest(league="spring")
        # Before: any organiser could start a new season of another organiser's league.
        denied = await refusal(node.leagues.NewSeason(season, metadata=rival))
        assert denied.code() == grpc.StatusCode.PERMISSION_DENIED
        assert "'org'" in (denied.details() or "")
        info = await node.leagues.GetLeague(pb.GetLeagueRequest(league="spring"), metadata=org)
        assert info.season == 1  # nothing changed
        assert (await node.leagues.NewSeason(season, metadata=org)).season == 2
        assert (await node.leagues.NewSeason(season, metadata=root)).season == 3


async def test_an_account_creates_a_bounded_number_of_leagues_a_day(redis_url: str) -> None:
    async with site(redis_url) as s:
        node = s.nodes[0]
        org = await s.account("org", "organiser")
        for i in range(LEAGUES_PER_DAY):
            await create_league(node, org, f"l{i}")
        refused = await refusal(create_league(node, org, "one-more"))
        assert refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert reason_of(refused) == "QUOTA_EXCEEDED"
        assert info_metadata(refused)["quota"] == "leagues_created"
        missing = await refusal(
            node.leagues.GetLeague(pb.GetLeagueRequest(league="one-more"), metadata=org)
        )
        assert missing.code() == grpc.StatusCode.NOT_FOUND  # nothing was made
        taken = await refusal(create_league(node, org, "l0"))  # a name in use costs nothing
        assert taken.code() == grpc.StatusCode.ALREADY_EXISTS
        await create_league(node, await s.account("other", "organiser"), "theirs")
