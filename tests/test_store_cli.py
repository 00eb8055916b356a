"""The store's command line (`pbem db|game|move|verify`) on a real database, each backend."""

import json

import pytest
from click.testing import CliRunner
from sqlmodel import select

from pbem.cli import main
from pbem.engine import choose, view
from pbem.gamelog import read_log, replay_log, write_log
from pbem.store.models import Move, Player
from pbem.store.states import store_for


@pytest.fixture
def pbem(db_url):
    """Run `pbem ARGS...` against the test database; returns the click Result."""
    runner = CliRunner()

    def run(*args, input=None):
        return runner.invoke(main, [str(a) for a in args], input=input,
                             env={"DATABASE_URL": db_url})
    return run


def ok(result) -> str:
    assert result.exit_code == 0, result.output + str(result.exception)
    return result.output


def fails(result, message: str):
    assert result.exit_code == 1, result.output
    assert message in result.stderr, result.stderr


def new_game(pbem, *seats, rules="standard") -> int:
    out = ok(pbem("game", "new", "--rules", rules, "--first-dealer", 3,
                  *[a for s in seats for a in ("--seat", s)]))
    return int(out.split()[1].rstrip(":"))


def exported(pbem, gid) -> str:
    return ok(pbem("game", "export", gid))


def action_text(a: dict) -> str:
    """An engine action as a player would type it."""
    if a["type"] == "bid":
        return ("blind " if a.get("blind") else "") + str(a["bid"])
    if a["type"] == "play":
        return "play " + a["card"]
    if a["type"] == "pass":
        return "pass " + " ".join(a["cards"])
    return a["type"].replace("_", " ")


def play_human(pbem, gid, seat, until):
    """Make `seat`'s moves through `pbem move` (robots answer) until until(state)."""
    st = replay_log(exported(pbem, gid))
    n = 0
    while not until(st):
        assert st.to_act() == [seat]
        text = action_text(choose(view(st, seat), seed=n))
        ok(pbem("move", gid, seat, *text.split(), "--seq", st.seq))
        st = replay_log(exported(pbem, gid))
        n += 1
    return st


def test_new_list_show_move_export_import_verify(pbem):
    gid = new_game(pbem, "Ann@Example.org", "robot", "robot", "robot")
    listing = ok(pbem("game", "list"))
    assert f"{gid}  standard" in listing and "ann@example.org, robot, robot, robot" in listing
    shown = json.loads(ok(pbem("game", "show", gid, "--json")))
    assert shown["phase"] == "bid" and shown["to_act"] == [0] and shown["seq"] == 1
    assert shown["seats"] == ["ann@example.org", "robot", "robot", "robot"]
    assert "to act: seat 0" in ok(pbem("game", "show", gid))

    before = exported(pbem, gid)
    fails(pbem("move", gid, 0, "play", "ZZ"), "not a card")  # malformed
    fails(pbem("move", gid, 1, "bid", "3"), "not your turn")  # a robot's seat, out of turn
    fails(pbem("move", gid, 0, "bid", "3", "--seq", 0), "moved on")  # wrong seq
    fails(pbem("move", gid, 0, "bid", "99"), "error:")  # illegal bid
    assert exported(pbem, gid) == before

    out = ok(pbem("move", gid, 0, "bid", "3", "--seq", 1, "--ref", "r1"))
    assert "applied seq 2: seat 0 bids 3" in out and "then seq 3: seat 1 bids" in out
    after = exported(pbem, gid)
    assert "applied before" in ok(pbem("move", gid, 0, "bid", "3", "--ref", "r1"))
    assert exported(pbem, gid) == after  # the same ref applies once

    st = play_human(pbem, gid, 0, until=lambda st: st.hand_no >= 1)
    text = exported(pbem, gid)
    copy = int(ok(pbem("game", "import", "-", input=text)).strip())
    assert copy != gid
    a = json.loads(ok(pbem("game", "show", gid, "--json")))
    b = json.loads(ok(pbem("game", "show", copy, "--json")))
    assert a == b | {"game": gid}
    assert a["hands"] == st.history and a["seq"] == st.seq

    report = ok(pbem("verify", "-", input=text)).splitlines()
    assert report[0] == "seq 1: verified"
    assert report[-2].endswith(": not yet revealed")  # the second hand is being played


def test_a_robot_table_plays_to_the_end_and_every_deal_verifies(pbem):
    gid = new_game(pbem, "robot", "robot", "robot", "robot", rules="cutthroat-4")
    assert "over" in ok(pbem("game", "list")).splitlines()[-1]
    text = exported(pbem, gid)
    st = replay_log(text)
    assert st.phase == "over" and st.winner is not None
    report = ok(pbem("verify", "-", input=text)).splitlines()
    deals = [line for line in report if line.startswith("seq ")]
    assert deals and all(line.endswith(": verified") for line in deals)


def test_an_imported_robot_log_goes_on_to_the_end(pbem):
    gid = new_game(pbem, "robot", "robot", "robot", "robot")
    header, _rules, events = read_log(exported(pbem, gid))
    header["seats"] = ["r0", "r1", "r2", "r3"]  # names without "@": robots play them
    copy = int(ok(pbem("game", "import", "-", input=write_log(header, events[:10]))))
    assert json.loads(ok(pbem("game", "show", copy, "--json")))["phase"] == "over"
    assert read_log(exported(pbem, copy))[2][:10] == events[:10]


def test_a_changed_deal_fails_verify_naming_the_seq(pbem):
    gid = new_game(pbem, "robot", "robot", "robot", "robot")
    header, _rules, events = read_log(exported(pbem, gid))
    deal = events[0]
    deal["hands"][0][:2] = deal["hands"][0][1::-1]  # two of seat 0's cards swap places
    reveal = next(ev for ev in events if ev["type"] == "reveal")
    result = pbem("verify", "-", input=write_log(header, events))
    fails(result, f"seq {reveal['seq']}: the salt does not match the commitment of the deal "
                  f"at seq {deal['seq']}")


def test_an_illegal_log_is_refused_whole(pbem, db_url):
    gid = new_game(pbem, "ann@example.org", "robot", "robot", "robot")
    play_human(pbem, gid, 0, until=lambda st: st.phase == "play" and st.trick)
    header, _rules, events = read_log(exported(pbem, gid))
    header["seats"][1] = "newcomer@example.org"
    bad = next(ev for ev in events if ev["type"] == "play")
    bad["card"] = events[0]["hands"][(bad["seat"] + 1) % 4][0]  # another seat's card
    listing = ok(pbem("game", "list"))
    fails(pbem("game", "import", "-", input=write_log(header, events)), f"seq {bad['seq']}: ")
    assert ok(pbem("game", "list")) == listing
    with store_for(db_url).session() as s:
        assert s.exec(select(Player).where(Player.email == "newcomer@example.org")).first() \
            is None


def test_unknown_game_or_seat(pbem):
    gid = new_game(pbem, "ann@example.org", "robot", "robot", "robot")
    fails(pbem("move", gid + 1, 0, "bid", "3"), f"there is no game {gid + 1}")
    fails(pbem("move", gid, 4, "bid", "3"), f"there is no seat 4 in game {gid}")
    fails(pbem("game", "show", gid + 1), f"there is no game {gid + 1}")
    fails(pbem("game", "export", gid + 1), f"there is no game {gid + 1}")


def test_a_corrupt_stored_event_is_named_and_nothing_changes(pbem, db_url):
    gid = new_game(pbem, "ann@example.org", "robot", "robot", "robot")
    store = store_for(db_url)
    with store.session() as s:
        row = s.exec(select(Move).where(Move.game_id == gid, Move.seq == 1)).one()
        row.payload = row.payload | {"dealer": 1}  # seat 3 deals first
        s.add(row)
        s.commit()
    store.forget(gid)  # a fresh process would not have this game cached
    before = exported(pbem, gid)
    fails(pbem("move", gid, 0, "bid", "3"), f"game {gid} has a corrupt event at seq 1")
    fails(pbem("game", "show", gid), "corrupt event at seq 1")
    assert exported(pbem, gid) == before


def test_bad_game_new_arguments(pbem):
    result = pbem("game", "new", "--seat", "robot", "--seat", "robot")
    assert result.exit_code == 2 and "has 4 seats, not 2" in result.stderr
    result = pbem("game", "new", *["--seat", "robot"] * 4, "--first-dealer", 4)
    assert result.exit_code == 2 and "not a seat" in result.stderr


def test_sqlite_is_created_by_db_upgrade_not_on_first_use(tmp_path):
    url = f"sqlite:///{tmp_path / 'fresh' / 'pbem.db'}"
    runner = CliRunner()
    result = runner.invoke(main, ["game", "list"], env={"DATABASE_URL": url})
    assert result.exit_code == 1 and f"no database at {tmp_path / 'fresh' / 'pbem.db'}" in (
        result.stderr)
    assert not (tmp_path / "fresh").exists()
    result = runner.invoke(main, ["db", "upgrade"], env={"DATABASE_URL": url})
    assert result.exit_code == 0 and "up to date" in result.output
    assert (tmp_path / "fresh" / "pbem.db").exists()


def test_game_new_sets_the_time_control(pbem, db_url):
    from datetime import timedelta

    from sqlmodel import select

    from pbem.store.models import Deadline, Game
    from pbem.store.states import Store

    out = ok(pbem("game", "new", "--first-dealer", 3, "--seat", "ann@example.org",
                  "--seat", "robot", "--seat", "robot", "--seat", "robot", "--move-hours", 24,
                  "--remind", "6", "--weekend-pause", "--on-timeout", "forfeit"))
    gid = int(out.split()[1].rstrip(":"))
    with Store(db_url).session() as s:
        game = s.get(Game, gid)
        rows = s.exec(select(Deadline).where(Deadline.game_id == gid)).all()
    assert game.time_control == {"move_hours": 24, "remind_hours": [6],
                                 "weekend_pause": True, "on_timeout": "forfeit",
                                 "auto_vacation": True}
    timeout = next(r for r in rows if r.kind == "timeout")
    [reminder] = [r for r in rows if r.kind == "reminder"]
    assert timeout.due - reminder.due == timedelta(hours=6)
    assert pbem("game", "new", "--seat", "robot", "--remind", "soon").exit_code == 2


def test_addresses_that_are_not_addresses_are_refused_and_nothing_is_stored(pbem, db_url):
    """Issue 12: the one address check holds for the command line too (new games, imports)."""
    from sqlmodel import select

    from pbem.store.models import Game
    from pbem.store.states import Store

    good = ["--seat", "robot", "--seat", "robot", "--seat", "robot"]
    for bad, why in [("ann@example.org\r\nBcc: x@example.org", "control character"),
                     ("a" * 300 + "@example.org", "over 254 characters"),
                     ("ann example@example.org", "a space"), ("ann", "it has no @")]:
        result = pbem("game", "new", "--seat", bad, *good)
        assert result.exit_code == 2 and "is not a mail address" in result.stderr, result.output
        assert why in result.stderr
    log = json.dumps({"format": "pbem/1", "rules": {"preset": "standard"},
                      "seats": ["ann@example.org", "bob @example.org", "cy", "di"],
                      "first_dealer": 0}) + "\n"
    fails(pbem("game", "import", "-", input=log), "seat 1: 'bob @example.org' is not a mail")
    with Store(db_url).session() as s:
        assert s.exec(select(Game)).all() == [] and s.exec(select(Player)).all() == []
