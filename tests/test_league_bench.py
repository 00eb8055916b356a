"""bench/league.py's season, small: it plays every round through the door, with the next
round opening in the background as it does in a server, and says what the move that ends a
round cost."""

import re

from bench import league
from pbem import play


def test_season_bench_plays_every_round_with_rounds_opened_in_the_background(
        store, monkeypatch, capsys):
    monkeypatch.setattr(play, "ROUNDS_IN_BACKGROUND", True)  # as pbem serve runs
    league.bench_season(store, players=8, n_rounds=2)
    out = capsys.readouterr().out
    assert re.search(r"season: 8 players, 2 Swiss rounds \(over\), \d+ moves", out), out
    assert re.search(r"the move that ends a round: median \d+ ms", out), out
