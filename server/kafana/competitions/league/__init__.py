"""Leagues in Redis: a matchmaking queue, seasons, ratings and leaderboards (sorted sets).

Every key of one league shares the hash tag ``{lg:<league>}`` (`keys`), so a league's
scripts run on one node of a Redis Cluster; leagues spread over the nodes.
"""
