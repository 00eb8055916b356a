"""bench/mail.py counts truthfully: every mail it sends is a move in the log (the client
plays the cards the server plays by itself without a mail), across a new deal."""

import dataclasses
from collections import Counter
from pathlib import Path

import pytest
from sqlmodel import select

from bench import mail as bench
from pbem.config import Settings
from pbem.store.models import Game, Move


def test_every_mail_of_the_bench_is_one_move_by_mail(store, db_url, tmp_path):
    cfg = Settings(var_dir=Path(tmp_path), database_url=db_url, mail_domain=bench.DOMAIN)
    run = bench.bench(store, cfg, mails=60)  # a hand is at most 56 mails: a new deal comes
    assert len(run.ours) == len(run.ceiling) == len(run.cpu) == 60
    with store.reader() as s:
        moves = s.exec(select(Move)).all()
    assert sum(m.type == "deal" for m in moves) >= 2  # (3 when a settled hand's rest
    # played itself: its hand took fewer mails)
    assert sum(m.source == "mail" for m in moves) == bench.WARM_UP + 60
    assert any(m.payload.get("auto") == "forced" for m in moves)


def test_the_bench_fails_when_a_mail_did_not_move(store, db_url, tmp_path, monkeypatch):
    """The check can fail: a client that forgets the forced cards mails a seat out of turn."""
    cfg = Settings(var_dir=Path(tmp_path), database_url=db_url, mail_domain=bench.DOMAIN)
    monkeypatch.setattr(bench.Players, "play_forced", lambda self: None)
    with pytest.raises(SystemExit, match="did not all apply"):
        bench.bench(store, cfg, mails=60)


def test_the_bench_goes_on_to_another_game_when_one_is_over(store, db_url, tmp_path,
                                                            monkeypatch):
    """A long run ends its game (a side reaches the target): nobody is to move there, so
    the client starts another game rather than fail. Here the target is the lowest, so a
    game ends within a few hands."""
    cfg = Settings(var_dir=Path(tmp_path), database_url=db_url, mail_domain=bench.DOMAIN)
    monkeypatch.setattr(bench, "RULES", dataclasses.replace(bench.RULES, target=50))
    run = bench.bench(store, cfg, mails=400)
    assert len(run.ours) == 400
    with store.reader() as s:
        assert len(s.exec(select(Game).where(Game.status == "over")).all()) >= 1


def test_several_connections_each_play_their_own_game(store, db_url, tmp_path):
    cfg = Settings(var_dir=Path(tmp_path), database_url=db_url, mail_domain=bench.DOMAIN)
    run = bench.bench(store, cfg, mails=60, connections=3)
    assert len(run.ours) == len(run.ceiling) == 60 and all(run.wall)
    with store.reader() as s:
        by_game = Counter(m.game_id for m in s.exec(select(Move)).all() if m.source == "mail")
    assert len(by_game) == 3 and sum(by_game.values()) == 3 * bench.WARM_UP + 60
