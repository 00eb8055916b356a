"""Store.quick_rows: a hot page's one SELECT on a connection its thread keeps, in autocommit
(no transaction left open, so it holds no snapshot or lock between requests), and a new one
when the kept connection has died."""

import threading

from sqlalchemy import bindparam, select

from pbem.engine import preset
from pbem.store.games import create_game
from pbem.store.models import Game

BY_ID = select(Game.id, Game.public).where(Game.id == bindparam("g"))


def idle(raw) -> bool:
    info = getattr(raw, "info", None)  # psycopg's; sqlite3 says in_transaction
    if info is not None and hasattr(info, "transaction_status"):
        return info.transaction_status.name == "IDLE"
    return not raw.in_transaction


def test_one_kept_connection_a_thread_with_no_transaction_open(store):
    gid = create_game(store, preset("standard"), ["robot"] * 4)
    assert [tuple(r) for r in store.quick_rows(BY_ID, g=gid)] in ([(gid, True)], [(gid, 1)])
    kept = store._quick.conn
    assert idle(kept)
    assert store.quick_rows(BY_ID, g=gid + 1) == [] and store._quick.conn is kept
    other = []
    worker = threading.Thread(target=lambda: other.append(
        (store.quick_rows(BY_ID, g=gid), store._quick.conn)))
    worker.start()
    worker.join()
    assert len(other[0][0]) == 1 and other[0][1] is not kept


def test_a_dead_connection_is_replaced_and_the_select_answered(store):
    gid = create_game(store, preset("standard"), ["robot"] * 4)
    store.quick_rows(BY_ID, g=gid)
    dead = store._quick.conn
    dead.close()  # as a database restart leaves it
    assert len(store.quick_rows(BY_ID, g=gid)) == 1
    assert store._quick.conn is not dead and idle(store._quick.conn)
    with store.session() as s:  # a write meanwhile is seen by the next SELECT
        s.get(Game, gid).public = False
        s.commit()
    assert not store.quick_rows(BY_ID, g=gid)[0][1]
