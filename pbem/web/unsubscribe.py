"""`/u/TOKEN`: the List-Unsubscribe link of every mail. A mail provider's one-click POST
(RFC 8058: the body `List-Unsubscribe=One-Click`, no cookie, no form) does it at once; a
person's GET sees what it stops and a button (a link scanner's GET changes nothing)."""

from flask import Blueprint, current_app, render_template, request

from ..i18n import _
from ..store import unsubscribe
from . import data, flow
from .words import link_refusal

bp = Blueprint("unsubscribe", __name__)


def _read(token):
    try:
        return unsubscribe.read(current_app.config["PBEM_SETTINGS"], token), None
    except ValueError as e:
        return None, (render_template("web/message.html", title=_("This link does not work"),
                                      text=link_refusal(e)), 400)


@bp.get("/u/<token>")
def confirm(token):
    d, refusal = _read(token)
    if refusal:
        return refusal
    what = _(unsubscribe.stops(d["k"])[2])
    return render_template("web/unsubscribe.html", email=d["e"], what=what)


@bp.post("/u/<token>")
def stop(token):
    d, refusal = _read(token)
    if refusal:
        return refusal
    what = _(unsubscribe.apply(data.store(), d["e"], d["k"]))
    text = _("%(email)s gets no more %(what)s. To undo it, write mail on (or notify every "
             "turn, or turns each) to your account address (pbem+..., at the foot of our mails "
             "and on your home page).") % {"email": d["e"], "what": what}
    if request.form.get("List-Unsubscribe") == "One-Click":  # a provider: done, no page to see
        return render_template("web/message.html", title=_("Done"), text=text)
    return flow.told(_("Done"), text)  # a person's button: reloading shows it, sends nothing
