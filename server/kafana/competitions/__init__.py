"""Competitions: fair deals, ratings, tournaments, leagues, fault policy and exports.

Pure logic (pairings, standings, ratings, commitments) imports nothing from grpc or redis;
the runners and the league modules are the only ones that talk to a server or a Redis.
"""
