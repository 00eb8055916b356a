"""Benches that no other test runs, run small with their defaults, so a change elsewhere
(a new bound on an option, a step moved after the commit) cannot leave them broken unseen."""

import re

from bench import league
from bench import store as store_bench
from bench.scratch_db import ScratchDatabase
from pbem import play


def test_league_season_plays_every_round_with_rounds_opened_in_the_background(
        store, monkeypatch, capsys):
    monkeypatch.setattr(play, "ROUNDS_IN_BACKGROUND", True)  # as pbem serve runs
    league.bench_season(store, players=8, n_rounds=2)
    out = capsys.readouterr().out
    assert re.search(r"season: 8 players, 2 Swiss rounds \(over\), \d+ moves", out), out
    assert re.search(r"the move that ends a round: median \d+ ms", out), out


def test_store_throughput_writers_play_games_to_the_default_target():
    with ScratchDatabase() as db:
        row = store_bench.throughput(db, writers=1, seconds=0.3,
                                     target=store_bench.LONG_TARGET)
    assert row["moves"] > 0 and row["refused"] == 0, row
