"""Leagues: correspondence competitions that run for months (docs/leagues.md).

    manage     creating leagues and seasons, entries (join, partners, withdraw), organisers
    rounds     starting seasons, opening each round's tables and games, the league's clock tick
    results    a game's result, written in the move's own transaction when it ends
    reports    standings, ratings, fixtures and flagged tables, for pages, mail and the CLI
    archive    every game's log and the league's record, exported at once
    cli        `pbem league ...`
    pairing    who sits at which table (round robin, Swiss, seats drawn): pure
    standings  the league table and Elo ratings from results: pure
"""
