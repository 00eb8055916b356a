"""The link a mail to plain pbem@ earns its sender's address (pbem.mail.plain): its GET shows
the mail's commands and a button (mail scanners fetch links and must change nothing); its
POST does them as the account address would have, once (the link's id is a unique ref in
`confirmation`: a second press, or a replay, does nothing), and answers 303 back to the
link's address, which shows what was done once (pbem.web.flow.told)."""

from flask import Blueprint, current_app, render_template
from sqlalchemy.exc import IntegrityError
from sqlmodel import select

from ..i18n import _
from ..mail.commands.base import Context
from ..mail.commands.registry import ACCOUNT_HERE
from ..mail.commands.runner import run, summary
from ..mail.plain import read_link
from ..store.models import Confirmation, Player
from . import data, flow
from .words import link_refusal

bp = Blueprint("account_link", __name__)


def _ref(d) -> str:
    return f"commands:{d.get('n', '')}"[:40]


def _read(token):
    """(the link's data, its player), or the page that says why the link does not work."""
    try:
        d = read_link(token, current_app.config["PBEM_SETTINGS"])
    except ValueError as e:
        return None, _page(link_refusal(e) + " " + _("Write to your account address instead."),
                           400)
    with data.store().reader() as s:
        player = s.get(Player, d.get("p"))
        used = s.exec(select(Confirmation.id).where(Confirmation.ref == _ref(d))).first()
    if player is None or player.email != d.get("e") or not isinstance(d.get("l"), list):
        return None, _page(_("This link is not valid."), 400)
    if used:
        return None, _page(_("This link was used already: its commands were done once."), 409)
    return (d, player), None


def _page(text, status=200, title=None):
    return render_template("web/account_done.html", title=title or _("This link does not work"),
                           text=text), status


@bp.get("/a/<link:token>")
def show(token):
    found, refusal = _read(token)
    if refusal:
        return refusal
    d, player = found
    rows = [(_("Address"), player.email)] + [(_("Command"), line) for line in d["l"]]
    return render_template("web/confirm_new.html", title=_("Do what your mail asked"),
                           button=_("Do it"), rows=rows)


@bp.post("/a/<link:token>")
def do(token):
    found, refusal = _read(token)
    if refusal:
        return refusal
    d, player = found
    try:  # the link's id, kept first: the same link does nothing again, even half done
        with data.store().session() as s:
            s.add(Confirmation(ref=_ref(d)))
            s.commit()
    except IntegrityError:
        return _page(_("This link was used already: its commands were done once."), 409)
    ctx = Context(data.store(), player, None, f"link:{d.get('n', '')}", sender=player.email)
    lines = [str(x) for x in d["l"]]
    error = run(ctx, lines, ACCOUNT_HERE) if lines else None
    return flow.told(_("Done") if not error else _("Partly done"),
                     summary(ctx, lines, error, ACCOUNT_HERE))
