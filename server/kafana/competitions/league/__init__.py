"""Leagues hosted by the service: the `kafana.v1.LeaguesService` service (`servicer`), the referee
every server process runs (`referee`), tickets for the player's eyes only (`tickets`), and the
league store in Redis (`redis_store`, keys under ``{lg:<league>}``: `keys`).
`host.LeaguesHost` plugs it all into a server (docs/competitions.md, "Leagues
hosted by the service").
"""
