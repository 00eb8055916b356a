"""CPU a cached score pad costs the app, beside the do-nothing app: a steadier figure than
bench/web.py's requests a second when other work loads the machine.

    .venv/bin/python bench/pad_cpu.py [--requests N] [--rounds R] [--pg URL]

Prepares bench/web.py's long game (four robots to 500) in a SQLite file under /tmp (or a
fresh schema of the PostgreSQL database --pg names; its server's CPU is not counted), then
calls the app (wsgi.py's create_app) and bench/ceiling_app.py directly as WSGI callables,
N requests each, R rounds interleaved: CPU microseconds a request (process time, so other
processes' load moves it less than wall time), the median round. No HTTP server: what the
app itself costs a request beyond the server's share, which is the same for both.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from werkzeug.test import EnvironBuilder  # noqa: E402


def call(app, environ: dict) -> tuple[str, bytes]:
    status = []
    body = b"".join(app(dict(environ), lambda s, h, exc=None: status.append(s)))
    return status[0], body


def cpu_per_request(app, environ: dict, n: int) -> float:
    c = time.process_time()
    for _ in range(n):
        call(app, environ)
    return (time.process_time() - c) / n * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--pg", metavar="URL", help="PostgreSQL (a fresh schema) instead of SQLite")
    args = ap.parse_args()
    var = tempfile.mkdtemp(prefix="pbem-bench-pad-")
    import ceiling_app
    import web
    from scratch_db import ScratchDatabase

    db = ScratchDatabase(args.pg)  # migrated: web.prepare only fills it
    os.environ.update(PBEM_VAR_DIR=var, DATABASE_URL=db.url)

    from pbem.web.app import create_app

    game = web.prepare(os.environ["DATABASE_URL"], 0)["long_id"]
    app = create_app()
    environ = EnvironBuilder(path=f"/g/{game}", method="GET").get_environ()
    status, body = call(app, environ)
    if not status.startswith("200"):
        raise SystemExit(f"the pad answered {status}")
    pad, ceiling = [], []
    for _ in range(args.rounds):
        pad.append(cpu_per_request(app, environ, args.requests))
        ceiling.append(cpu_per_request(ceiling_app.app, environ, args.requests))
    p, c = statistics.median(pad), statistics.median(ceiling)
    print(f"cached score pad GET /g/{game} ({len(body)} bytes, {db.kind}): {p:.0f} us CPU a "
          f"request; do-nothing app: {c:.0f} us; median of {args.rounds} rounds of "
          f"{args.requests}")
    db.close()


if __name__ == "__main__":
    main()
