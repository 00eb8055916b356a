"""A move's mails are rendered by one code path, inside its write, from the table the write
reads (issue 30): whoever makes the move (the clock, a mail, the web), whatever the caller
read before, and never for a move the write refuses."""

import re
from datetime import timedelta

from sqlmodel import select

import pbem.play
from pbem import clock, compose, notify
from pbem.engine import choose, preset, view
from pbem.play import Seen, start, submit
from pbem.store.games import create_game
from pbem.store.models import Deadline, Game, Move, Outbox, Player, Seat
from pbem.table import Table


def waiting_on_ann(store) -> int:
    """A game whose seat 0 (ann, a human) bids first, the robots after her."""
    gid = create_game(store, preset("standard"), ["ann@example.org", "robot", "robot", "robot"],
                      first_dealer=3, time_control={"move_hours": 6, "remind_hours": []})
    start(store, gid)
    return gid


def watch_renders(monkeypatch) -> list[bool]:
    """For each mail template rendered: was it inside the door's write?"""
    inside, seen = [False], []
    once, render = pbem.play._append_and_react, compose.render

    def in_write(*args, **kw):
        inside[0] = True
        try:
            return once(*args, **kw)
        finally:
            inside[0] = False

    def rendering(*args, **kw):
        seen.append(inside[0])
        return render(*args, **kw)

    monkeypatch.setattr(pbem.play, "_append_and_react", in_write)
    monkeypatch.setattr(compose, "render", rendering)
    return seen


def turn_mail(store, gid, seq=5) -> Outbox:
    """Seat 0's turn mail at `seq` (after its bid and the robots' three)."""
    with store.reader() as s:
        return s.exec(select(Outbox).where(Outbox.dedupe_key == f"turn:{gid}:0:{seq}")).one()


def test_a_due_timeouts_turn_mail_is_rendered_in_the_write(store, monkeypatch):
    gid = waiting_on_ann(store)
    with store.reader() as s:
        row = s.exec(select(Deadline).where(Deadline.game_id == gid,
                                            Deadline.state == "pending")).one()
    renders = watch_renders(monkeypatch)
    assert clock.tick(store, row.due + timedelta(minutes=1)) == 1
    assert renders and all(renders), "a turn mail was rendered outside the write"
    mail = turn_mail(store, gid)
    assert mail.body_text.startswith(f"Game {gid}: ") and \
        "your turn to lead" in mail.body_text.split("\n")[0]  # ann leads, after the robots' bids
    with store.reader() as s:  # her deadline counts from the time her mail says
        due = s.exec(select(Deadline.due).where(Deadline.game_id == gid, Deadline.seq == 5,
                                                Deadline.state == "pending")).one()
    assert due.strftime("%H:%M UTC") in mail.body_text


def test_the_mails_tell_the_table_the_write_reads_not_the_callers(store, monkeypatch):
    gid = waiting_on_ann(store)
    with store.session() as s:
        ann = s.exec(select(Player).where(Player.email == "ann@example.org")).one()
        ann.name = "Ann Smith"
        s.add(ann)
        s.commit()
    with store.reader() as s:  # the caller's read, then a rename it did not see
        game = s.get(Game, gid)
        seats = list(s.exec(select(Seat).where(Seat.game_id == gid).order_by(Seat.seat)))
        st = store.state(s, game)
        ann = s.get(Player, seats[0].player_id)
    ann.name = "Ann Old"
    renders = watch_renders(monkeypatch)
    submit(store, gid, 0, choose(view(st, 0), seed=1, rules=st.rules), expect_seq=st.seq,
           seen=Seen.at_table(st, seats, {ann.id: ann}))
    assert renders and all(renders), "a mail was rendered outside the write"
    mail = turn_mail(store, gid)
    assert "Ann Smith" in mail.body_text and "Ann Old" not in mail.body_text


def test_the_turn_mail_is_what_notify_makes_of_the_table_the_write_left(store):
    gid = waiting_on_ann(store)
    with store.reader() as s:
        game = s.get(Game, gid)
        seats = list(s.exec(select(Seat).where(Seat.game_id == gid).order_by(Seat.seat)))
        players = {p.id: p for p in s.exec(select(Player))}
        st = store.state(s, game)
    result = submit(store, gid, 0, choose(view(st, 0), seed=1, rules=st.rules),
                    expect_seq=st.seq, seen=Seen.at_table(st, seats, players))
    mail = turn_mail(store, gid)
    before = (st.hand_no, len(st.tricks))
    with store.reader() as s:
        now = s.exec(select(Deadline.due).where(Deadline.game_id == gid,
                                                Deadline.state == "pending")).one()
    [again] = notify.mails(Table(game, seats, players, result.state, result.events, before,
                                 now=now - timedelta(hours=6)))
    assert (mail.subject, unsigned(mail.body_text)) == \
        (again["subject"], unsigned(again["body_text"]))


def unsigned(text: str) -> str:
    """The mail without its move links (each signed with an id of its own)."""
    return re.sub(r"/m/\S+", "/m/LINK", text)


def test_a_move_by_mail_has_its_mails_and_answer_rendered_in_the_write(store, monkeypatch,
                                                                       tmp_path):
    from tests.mail_helpers import ANN, running

    with running(store, monkeypatch, tmp_path) as env:
        gid = waiting_on_ann(store)
        renders = watch_renders(monkeypatch)
        assert env.send(env.mail(env.address(gid), "bid 3", frm=ANN))[0] == 250
    assert renders and all(renders), "a mail was rendered outside the write"
    with store.reader() as s:  # her lead, after the robots: the answer is her turn mail
        answer = s.exec(select(Outbox).where(Outbox.dedupe_key.startswith("reply:"))).one()
        assert s.exec(select(Outbox).where(Outbox.dedupe_key == f"turn:{gid}:0:5")).first() \
            is None
    assert "move 5" in answer.body_text and "Your move is due by" in answer.body_text
    assert answer.headers["Message-ID"].startswith(f"<turn.{gid}.0.5.")


def test_a_move_from_the_table_page_of_a_table_of_players_renders_its_mails_in_the_write(
        store, monkeypatch):
    from pbem.config import load
    from pbem.web.app import create_app
    from tests.web_helpers import csrf, game_state, humans_game, tokens

    gid = humans_game(store, preset("standard"))  # no robot: nothing else to foresee
    st = game_state(store, gid)
    seat = st.to_act()[0]
    client = create_app(load(), store, testing=True).test_client()
    renders = watch_renders(monkeypatch)
    r = client.post(f"/t/{tokens(store, gid)[seat]}/move", data={
        "csrf": csrf(client), "type": "bid", "bid": "3", "seq": str(st.seq)})
    assert r.status_code == 303 and game_state(store, gid).bids[seat] == 3
    assert renders and all(renders), "a mail was rendered outside the write"
    with store.reader() as s:  # the next seat's turn mail, as the write would have made it
        nxt = s.exec(select(Outbox).where(
            Outbox.dedupe_key == f"turn:{gid}:{(seat + 1) % 4}:{st.seq + 1}")).one()
    assert "your turn" in nxt.body_text


# seat 0 leads the AC (seat 3 deals), seat 1 holds one club: its JC plays itself
ONE_CLUB = [["AC", "KC", "QC"] + [r + "H" for r in "AKQJT98765"],
            ["JC"] + [r + "S" for r in "AKQJT9876543"],
            [r + "C" for r in "T98765432"] + ["4H", "3H", "2H", "2S"],
            [r + "D" for r in "AKQJT98765432"]]


def test_a_move_a_card_plays_itself_after_has_its_mails_rendered_in_the_write(store,
                                                                           monkeypatch):
    from pbem.gamelog import export as write_log
    from pbem.play import import_log

    log = write_log(preset("standard"), [{"seq": 1, "type": "deal", "dealer": 3,
                                          "hands": ONE_CLUB}],
                    ["a@x.test", "b@x.test", "c@x.test", "d@x.test"], first_dealer=3)
    gid = import_log(store, log)
    # once the JC is gone the hand is settled (pbem.engine.settled): d's `auto off` keeps
    # the table asked for its cards, so seat 2 gets its turn mail
    from tests.test_autoplay import player_prefs

    player_prefs(store, "d@x.test", auto="off")
    for seat in range(4):
        submit(store, gid, seat, {"type": "bid", "bid": 3}, source="web")
    renders = watch_renders(monkeypatch)
    result = submit(store, gid, 0, {"type": "play", "card": "AC"}, expect_seq=5,
                    source="web")
    assert [(ev["seat"], ev["card"], ev.get("auto")) for ev in result.events] == \
        [(0, "AC", None), (1, "JC", "forced")]
    assert renders and all(renders), "a mail was rendered outside the write"
    with store.reader() as s:  # seat 2's turn, after the card that played itself
        mail = s.exec(select(Outbox).where(Outbox.dedupe_key == f"turn:{gid}:2:7")).one()
    assert "your turn" in mail.body_text


def test_a_stale_move_renders_no_mails(store, monkeypatch):
    import pytest

    from pbem.play import Stale
    from tests.web_helpers import game_state, humans_game

    gid = humans_game(store, preset("standard"))
    st = game_state(store, gid)
    first, second = st.to_act()[0], (st.to_act()[0] + 1) % 4
    submit(store, gid, first, {"type": "bid", "bid": 3}, expect_seq=st.seq, source="web")
    renders = watch_renders(monkeypatch)
    with pytest.raises(Stale):  # its turn now, but its player saw the table before
        submit(store, gid, second, {"type": "bid", "bid": 3}, expect_seq=st.seq,
               source="web")
    assert renders == [], "mails were rendered for a move the write refused"


def test_a_move_followed_by_a_card_that_plays_itself_has_its_mails_rendered_in_the_write(
        store, monkeypatch, tmp_path):
    """Bob holds one heart: when ann leads hearts it plays itself, in her move's write. The
    read before the write foresees it (and the robots after it), so they go in her move's
    write, and her answer tells the table they leave."""
    from tests.mail_helpers import ANN, crafted, headline, running

    bob = "bob@example.org"
    spec = {0: ["AH", "KH"], 1: ["2H", *[f"{r}C" for r in "AKQJT98765432"][:12]]}
    gid, _ = crafted(store, spec, seats=[ANN, bob, "robot", "robot"])
    with running(store, monkeypatch, tmp_path) as env:
        assert env.send(env.mail(env.address(gid), "bid 3", frm=ANN))[0] == 250
        assert env.send(env.mail(env.address(gid, 1), "bid 3", frm=bob))[0] == 250
        renders = watch_renders(monkeypatch)
        assert env.send(env.mail(env.address(gid), "play AH", frm=ANN))[0] == 250
        with store.reader() as s:
            forced = s.exec(select(Move).where(Move.game_id == gid, Move.actor == 1,
                                               Move.type == "play")).one()
        assert forced.payload == {"seq": forced.seq, "type": "play", "seat": 1, "card": "2H",
                                  "auto": "forced"}
        assert renders and all(renders), "a mail was rendered outside the write"
        heads = [headline(m) for m in env.replies()]
        assert f"Game {gid}: you played A♥; your turn to lead" in heads, heads


def test_a_move_made_before_a_move_and_its_undo_renders_its_mails_in_the_write(store,
                                                                               monkeypatch):
    """The door's own rule (pbem.play.stale): a move and its undo since the table the
    player saw leave the move fresh, so it is made and its mails rendered."""
    from tests.web_helpers import game_state, humans_game

    gid = humans_game(store, preset("standard"))
    st = game_state(store, gid)
    first = st.to_act()[0]
    submit(store, gid, first, {"type": "bid", "bid": 3}, expect_seq=st.seq, source="web")
    submit(store, gid, first, {"type": "undo"}, source="web")
    assert game_state(store, gid).to_act() == [first]
    renders = watch_renders(monkeypatch)
    submit(store, gid, first, {"type": "bid", "bid": 4}, expect_seq=st.seq, source="web")
    assert game_state(store, gid).bids[first] == 4
    assert renders and all(renders), "a mail was rendered outside the write"
