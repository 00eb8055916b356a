"""Demo seats get no mail (issue 12): the demo is a page to play on; its address is never
delivered, so nothing is queued for it however the game goes (turns, the end, the clock)."""

import time_machine
from sqlmodel import select

from pbem import clock
from pbem.store.models import Outbox, Player
from tests.test_clock import T0
from tests.web_helpers import csrf, make_app, move_forms


def test_a_demo_game_queues_no_mail(store, tmp_path, monkeypatch):
    client = make_app(store, tmp_path, monkeypatch).test_client()
    with time_machine.travel(T0, tick=False) as t:
        r = client.post("/demo", data={"csrf": csrf(client)})
        table = r.headers["Location"]
        for _ in range(3):  # a few moves by the page's own buttons
            [form, *_] = move_forms(client.get(table).text)
            assert client.post(form["action"], data=form["data"]).status_code == 303
        t.shift(30 * 24 * 3600)
        clock.tick(store)  # the demo player's deadline passes: the robot moves, untold
    with store.session() as s:
        [me] = s.exec(select(Player).where(Player.email.startswith("demo-"))).all()
        assert me.email.endswith("@demo.test")
        assert s.exec(select(Outbox)).all() == []
