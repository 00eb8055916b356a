"""Leagues: correspondence competitions that run for months (docs/leagues.md). Layer 3: none
of it calls the door; what deals, seats or rules through the door is pbem.organise.

    manage     creating leagues and seasons, entries (join, partners, withdraw), organisers
    rounds     drawing and opening each round's tables and games
    pause      pausing and resuming a league's clocks
    results    a game's result, written in the move's own transaction when it ends
    ledger     each season's table kept current result by result
    reports    standings, ratings, fixtures and flagged tables, for pages, mail and the CLI
    archive    every game's log and the league's record, exported at once
    duplicate  duplicate seasons: the same boards at every table, matchpoints, IMPs: pure
    boards     a duplicate season's table, rounds and boards, shown once a round is over
    pairing    who sits at which table (round robin, Swiss, seats drawn): pure
    standings  the league table and Elo ratings from results: pure
    glicko     Glicko-2 ratings from results: pure
    verdicts   what an organiser's ruling counts as: pure
    rows       a saved row's id, typed
"""
