"""Backup and restore (pbem.store.backup) of a site with games played through play.submit.

    .venv/bin/python bench/backup.py [--games N] [--moves M] [--seconds S] [--pg URL | --no-pg]

For each backend (SQLite, and PostgreSQL unless --no-pg) and each kind of dump (native:
SQLite's online backup or pg_dump; rows: --logical): the seconds a backup takes, the
archive's size, and the seconds a restore into a new, empty database takes. Then what a
backup costs the players: the milliseconds of each submit of a writer that plays moves,
for S seconds with no backup running and S seconds with `pbem backup` processes run back
to back (median and p99).
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.scratch_db import ScratchDatabase  # noqa: E402
from pbem.config import Settings  # noqa: E402
from pbem.engine import choose, preset, view  # noqa: E402
from pbem.play import start, submit  # noqa: E402
from pbem.store.backup import backup, restore  # noqa: E402
from pbem.store.games import create_game  # noqa: E402
from pbem.store.models import Game  # noqa: E402
from pbem.store.states import Store  # noqa: E402

PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
PBEM = str(Path(sys.executable).parent / "pbem")  # the venv's command


def a_move(store: Store, gid: int) -> float:
    """One human move of game `gid` through submit: its milliseconds."""
    with store.session() as s:
        st = store.state(s, s.get(Game, gid))
    store.keep(gid, st)
    seat = st.to_act()[0]
    action = choose(view(st, seat), seed=st.seq, rules=st.rules)
    began = time.perf_counter()
    submit(store, gid, seat, action, expect_seq=st.seq, source="web")
    return (time.perf_counter() - began) * 1000


def site(store: Store, games: int, moves: int) -> list[int]:
    rules = preset("standard")
    ids = []
    for g in range(games):
        gid = create_game(store, rules, [f"p{g}-{i}@bench.test" for i in range(4)])
        start(store, gid)
        for _ in range(moves):
            a_move(store, gid)
        ids.append(gid)
    return ids


def timed(fn) -> float:
    began = time.perf_counter()
    fn()
    return time.perf_counter() - began


def kinds(db: ScratchDatabase, var: Path, pg_url: str | None) -> None:
    for logical in (False, True):
        cfg = Settings(var_dir=var, database_url=db.url)
        archive = var / f"site-{logical}.tar.gz"
        took = timed(lambda: backup(cfg, archive, logical=logical))  # noqa: B023
        with tempfile.TemporaryDirectory() as new_var, ScratchDatabase(pg_url) as target:
            new = Settings(var_dir=Path(new_var), database_url=target.url)
            back = timed(lambda: restore(new, archive))  # noqa: B023
        print(f"  {'rows' if logical else 'native':<6}  backup {took:6.2f} s  "
              f"{archive.stat().st_size / 1024:8.0f} KB  restore {back:6.2f} s")


def writer_cost(db: ScratchDatabase, var: Path, ids: list[int], seconds: float) -> None:
    store = Store(db.url)
    for label, during in (("no backup", False), ("backups running", True)):
        stop, times, made = threading.Event(), [], [0]

        def backups() -> None:
            """`pbem backup` as cron runs it: a process of its own."""
            env = dict(os.environ, DATABASE_URL=db.url, PBEM_VAR_DIR=str(var))
            while not stop.is_set():  # noqa: B023
                subprocess.run([PBEM, "backup", str(var / "during.tar.gz")], env=env,
                               check=True, capture_output=True)
                made[0] += 1  # noqa: B023

        other = threading.Thread(target=backups) if during else None
        if other:
            other.start()
        end, n = time.monotonic() + seconds, 0
        while time.monotonic() < end:
            times.append(a_move(store, ids[n % len(ids)]))
            n += 1
        stop.set()
        if other:
            other.join()
        p99 = statistics.quantiles(times, n=100)[98] if len(times) > 1 else times[0]
        print(f"  submit, {label:<15}: {len(times):5d} moves, median "
              f"{statistics.median(times):6.1f} ms, p99 {p99:6.1f} ms"
              + (f" ({made[0]} backups)" if during else ""))


def run(pg_url: str | None, games: int, moves: int, seconds: float) -> None:
    with ScratchDatabase(pg_url) as db, tempfile.TemporaryDirectory() as var:
        os.environ["PBEM_VAR_DIR"] = var  # the turn mails' settings (pbem.notify)
        (Path(var) / "secret_key").write_text("bench-key")
        ids = site(Store(db.url), games, moves)
        print(f"{db.kind}: {games} games of {moves} human moves")
        kinds(db, Path(var), pg_url)
        writer_cost(db, Path(var), ids, seconds)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--moves", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--pg", default=os.environ.get("PBEM_TEST_DATABASE_URL") or PG_URL)
    ap.add_argument("--no-pg", action="store_true")
    args = ap.parse_args()
    for pg in [None] + ([] if args.no_pg else [args.pg]):
        run(pg, args.games, args.moves, args.seconds)


if __name__ == "__main__":
    main()
