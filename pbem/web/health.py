"""What a supervisor, a load balancer and Prometheus ask (docs/operating.md):

    GET /healthz   200 "ok" while the process answers; it reads nothing
    GET /readyz    200 when the database answers and is migrated to this code's head,
                   503 (and why) otherwise
    GET /metrics   pbem.metrics' figures, to loopback clients (not forwarded by a proxy) or
                   with `Authorization: Bearer PBEM_METRICS_TOKEN`; 404 to anyone else, 403
                   for a wrong token
"""

import hmac
import ipaddress
import logging
from functools import cache
from pathlib import Path

from alembic.runtime.migration import MigrationContext
from flask import Blueprint, Response, abort, current_app, request

from ..store.db import alembic_config

bp = Blueprint("health", __name__)
log = logging.getLogger(__name__)
# a proxy in front (Caddy, nginx) adds one of these: its client is not loopback, though the
# connection comes from 127.0.0.1
FORWARDED = ("Forwarded", "X-Forwarded-For", "X-Real-IP")


def _plain(text: str, status: int = 200) -> Response:
    response = Response(text + "\n", status, mimetype="text/plain")
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/healthz")
def healthz() -> Response:
    return _plain("ok")


@bp.get("/readyz")
def readyz() -> Response:
    why = not_ready(current_app.config["PBEM_STORE"])
    if why:
        log.warning("not ready: %s", why)
        return _plain(f"not ready: {why}", 503)
    return _plain("ready")


def not_ready(store) -> str:
    """Why the database cannot serve this code ('' when it can): away, missing, or at
    another migration than this code's head (alembic's own reading; its INFO lines a probe
    wait for PBEM_LOG_LEVEL=debug, pbem.logs)."""
    url = store.engine.url
    if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:") \
            and not Path(url.database).is_file():  # a connect would make an empty one
        return "the database file is missing"
    try:
        with store.engine.connect() as c:
            have = set(MigrationContext.configure(c).get_current_heads())
    except Exception as e:  # its text may quote the URL: its type only
        return f"the database does not answer ({type(e).__name__})"
    if have != heads():
        return "the database is not migrated: run `pbem db upgrade`"
    return ""


@cache
def heads() -> set[str]:
    """The migrations' head revisions this code expects (read once a process)."""
    from alembic.script import ScriptDirectory

    return set(ScriptDirectory.from_config(alembic_config("sqlite://")).get_heads())


@bp.get("/metrics")
def metrics_text() -> Response:
    allowed()
    from .. import metrics  # prometheus_client: loaded at the first scrape, not at start
    from ..mail.shunt import Shunt

    cfg = current_app.config["PBEM_SETTINGS"]
    body, kind = metrics.text(metrics.Sources(current_app.config["PBEM_STORE"],
                                              lambda: len(Shunt.of(cfg).ids())))
    response = Response(body, 200, content_type=kind)
    response.headers["Cache-Control"] = "no-store"
    return response


def allowed() -> None:
    """A loopback client not behind a proxy, or the bearer of the token; else 404 (the
    address shows nothing), or 403 for a token that is not the one."""
    token = current_app.config["PBEM_SETTINGS"].metrics_token
    sent = request.headers.get("Authorization", "")
    if sent:
        scheme, _, value = sent.partition(" ")
        if not (token and scheme.lower() == "bearer"
                and hmac.compare_digest(value.strip().encode(), token.encode())):
            abort(403)
        return
    if not _loopback(request.remote_addr) or any(h in request.headers for h in FORWARDED):
        abort(404)


def _loopback(address: str | None) -> bool:
    try:
        ip = ipaddress.ip_address(address or "")
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)  # ::ffff:127.0.0.1
    return ip.is_loopback or bool(mapped and mapped.is_loopback)
