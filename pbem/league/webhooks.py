"""A league's webhooks, as its organiser keeps them (`pbem league webhook`, the organiser's
page): add, list, remove. The news they get is pbem.league.news; the queue and the sender
are pbem.store.webhooks.

A webhook's URL holds the key to its channel, so it is a secret: checked here (https, a
bounded length, a host whose every address is public: pbem.store.webhook_http), stored, and
never shown again: a listing gives its host and last characters (`hint`)."""

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import col, delete, func, select

from ..config import load
from ..i18n import _
from ..store.models import League, Webhook, WebhookPost
from ..store.states import Store
from ..store.webhook_http import Unsafe, addresses, target
from ..store.webhooks import KINDS
from .manage import Asker, LeagueError, get_league, require_organiser
from .rows import id_of

MAX_HOOKS = 5  # a league's webhooks
MAX_URL = 500  # characters of a URL (Discord's, Slack's and hookshot's are under 150)
SHOWN = 4  # last characters of a URL a listing shows


@dataclass(frozen=True)
class Shown:
    """A webhook as a listing shows it: never its URL."""
    id: int
    kind: str
    hint: str
    created: datetime
    failed: int
    last_error: str | None
    last_error_at: datetime | None
    queued: int


def check_url(kind: str, url: str, loopback: bool) -> str:
    """The hint of a URL we may post to, else LeagueError saying why (never the URL)."""
    if kind not in KINDS:
        raise LeagueError(_("a webhook is one of %(kinds)s") % {"kinds": ", ".join(KINDS)})
    url = url.strip()
    if not url or len(url) > MAX_URL:
        raise LeagueError(_("a webhook's address is up to %(most)s characters")
                          % {"most": MAX_URL})
    try:
        t = target(url, loopback)
        addresses(t.host, t.port, loopback)
    except Unsafe as e:
        raise LeagueError(_("that webhook is refused: %(why)s") % {"why": _(str(e))}) from None
    return f"{t.host} ...{url[-SHOWN:]}"


def add(store: Store, league_id: int, by: Asker, kind: str, url: str) -> Shown:
    """A new webhook of the league (at most MAX_HOOKS): news is posted there from now on."""
    kind, url = (kind or "").strip().lower(), (url or "").strip()
    with store.reader() as s:  # who asks, before any look-up of the host
        require_organiser(get_league(s, league_id), by)
    hint = check_url(kind, url, load().webhook_loopback)  # outside the write: DNS may be slow
    try:
        return _add(store, league_id, by, {"kind": kind, "url": url, "hint": hint})
    except SQLAlchemyError as e:  # its text would hold the URL (the INSERT's parameters)
        raise WebhookNotStored(f"the webhook could not be stored ({type(e).__name__})") from None


class WebhookNotStored(RuntimeError):
    """The database failed while a webhook was added; says nothing of its URL."""


def _add(store: Store, league_id: int, by: Asker, new: dict[str, str]) -> Shown:
    with store.session() as s:
        league = s.exec(select(League).where(League.id == league_id).with_for_update()).first()
        if league is None:
            raise LeagueError(_("there is no league %(league)s") % {"league": league_id})
        require_organiser(league, by)
        urls = s.exec(select(Webhook.url).where(Webhook.league_id == league.id)).all()
        if len(urls) >= MAX_HOOKS:
            raise LeagueError(_("%(league)s has %(most)s webhooks, the most it may have: "
                                "remove one first") % {"league": league.name, "most": MAX_HOOKS})
        if new["url"] in urls:
            raise LeagueError(_("%(league)s has that webhook already") % {"league": league.name})
        hook = Webhook(league_id=id_of(league), kind=new["kind"], url=new["url"],
                       hint=new["hint"])
        s.add(hook)
        s.flush()
        shown = _shown(hook, 0)
        s.commit()
        return shown


def listed(store: Store, league_id: int, by: Asker) -> list[Shown]:
    with store.reader() as s:
        require_organiser(get_league(s, league_id), by)
        hooks = s.exec(select(Webhook).where(Webhook.league_id == league_id)
                       .order_by(col(Webhook.id))).all()
        queued = dict(s.exec(select(WebhookPost.webhook_id, func.count()).where(
            col(WebhookPost.webhook_id).in_([h.id for h in hooks]),
            WebhookPost.state == "queued").group_by(col(WebhookPost.webhook_id))).all())
        return [_shown(h, queued.get(id_of(h), 0)) for h in hooks]


def remove(store: Store, league_id: int, by: Asker, hook_id: object) -> Shown:
    """The webhook is gone, and its posts not yet made with it."""
    with store.session() as s:
        league = get_league(s, league_id)
        require_organiser(league, by)
        hook = s.get(Webhook, hook_id) if isinstance(hook_id, int) else None
        if hook is None or hook.league_id != league.id:  # another league's: as if none
            raise LeagueError(_("%(league)s has no webhook %(hook)s")
                              % {"league": league.name, "hook": hook_id})
        shown = _shown(hook, 0)
        s.exec(delete(WebhookPost).where(col(WebhookPost.webhook_id) == hook.id))
        s.delete(hook)
        s.commit()
        return shown


def _shown(hook: Webhook, queued: int) -> Shown:
    return Shown(id_of(hook), hook.kind, hook.hint, hook.created, hook.failed,
                 hook.last_error, hook.last_error_at, queued)
