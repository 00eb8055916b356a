"""Signing in by a mailed link, no password (issue 14, "A player's home"). The form mails a
one-use link to a player's address; the page says the same whether or not the address is a
player's (no one learns who plays here), and the hourly limits count every request alike.
The link's GET shows a button (mail scanners fetch links); its POST signs the browser in: a
signed session cookie (HttpOnly, SameSite=Lax, Secure on https) naming the player."""

from datetime import timedelta

from flask import Blueprint, current_app, redirect, render_template, request, session, url_for
from sqlalchemy.exc import IntegrityError
from sqlmodel import select

from ..asks import mail_once, reader_language
from ..i18n import _, language
from ..signing import SIGN_IN
from ..store import prefs
from ..store.addresses import AddressError, check_address
from ..store.models import Confirmation, Player
from . import data, flow, limits
from .words import link_refusal

bp = Blueprint("signin", __name__)

LINK_MINUTES = 30  # how long a sign-in link works
SESSION_DAYS = 30  # how long a browser stays signed in
EPOCH = "session_epoch"  # a player's prefs key: bumped, it signs out every browser


def signed_in() -> Player | None:
    """The player this browser is signed in as, or None (never signed in, signed out, or
    signed out everywhere since)."""
    pid = session.get("player")
    if not isinstance(pid, int):
        return None
    with data.store().reader() as s:
        player = s.get(Player, pid)
    if player is None or session.get("epoch") != (player.prefs or {}).get(EPOCH, 0):
        return None
    return player


@bp.route("/signin", methods=["GET", "POST"])
def signin():
    if request.method == "GET":
        told = flow.carried()
        if told.get("sent"):
            return render_template("web/signin_sent.html", email=told["sent"])
        return _form_page((told.get("form") or {}).get("email", ""),
                          errors=told.get("errors"))
    typed = request.form.get("email", "")[:300]
    try:
        email = check_address(typed)
    except AddressError as e:
        return flow.to(url_for("signin.signin"), form={"email": typed}, errors={
            "email": str(e)})
    limits.check([email])  # a known and an unknown address count alike: the same 429
    _mail_link(email)
    limits.record([email])
    return flow.to(url_for("signin.signin"), sent=email)


def _mail_link(email: str) -> None:
    with data.store().reader() as s:
        player = s.exec(select(Player).where(Player.email == email)).first()
    if player is None or email.endswith("@demo.test"):
        return  # nothing to sign in to; the page says the same either way
    cfg = current_app.config["PBEM_SETTINGS"]
    token = data.signer(SIGN_IN).dumps({"p": player.id, "e": email})
    link = f"{cfg.base_url}{url_for('signin.link', token=token)}"
    with language(reader_language(data.store(), email)):  # theirs if chosen, else the page's
        text = "\n\n".join([
            _("Someone (we hope you) asked to sign in to Spades by email as %(email)s.")
            % {"email": email},
            _("Sign in here, within %(minutes)s minutes, once: %(link)s")
            % {"minutes": LINK_MINUTES, "link": link},
            _("If it was not you, ignore this mail: nothing happens without the link.")]) + "\n"
        mail_once(data.store(), email, _("Your sign-in link"), text, f"signin:{token[-40:]}")


def _read(token):
    """(the link's data, its player), or the page that says why the link does not work."""
    try:
        d = data.signer(SIGN_IN).loads(token, max_age=LINK_MINUTES * 60)
    except ValueError as e:
        return None, _refused(link_refusal(e) + " " + _("Ask for a new one."))
    with data.store().reader() as s:
        player = s.get(Player, d.get("p"))
        used = s.exec(select(Confirmation.id).where(Confirmation.ref == _ref(d))).first()
    if player is None or player.email != d.get("e"):
        return None, _refused(_("This link is not valid: ask for a new one."))
    if used:
        return None, _refused(_("This link was used already: each link signs in once. Ask "
                                "for a new one."), 409)
    return (d, player), None


def _ref(d) -> str:
    return f"signin:{d.get('n', '')}"[:40]


def _refused(text, status=400):
    return _form_page("", error=text, title=_("This link does not work"), status=status)


def _form_page(email, error=None, title=None, status=200, errors=None):
    return render_template("web/signin.html", email=email, error=error, title=title,
                           errors=errors or {}, minutes=LINK_MINUTES), status


@bp.get("/signin/<link:token>")
def link(token):
    found, refusal = _read(token)
    if refusal:
        return refusal
    return render_template("web/confirm_new.html", title=_("Sign in"), button=_("Sign in"),
                           rows=[(_("Address"), found[1].email)])


@bp.post("/signin/<link:token>")
def use_link(token):
    found, refusal = _read(token)
    if refusal:
        return refusal
    d, player = found
    try:  # the link's id, kept: the same link (or a replay) signs in no one again
        with data.store().session() as s:
            s.add(Confirmation(ref=_ref(d)))
            s.commit()
    except IntegrityError:
        return _refused(_("This link was used already: each link signs in once."), 409)
    session.clear()  # a new session: nothing of the one before (its CSRF key) carries over
    session.permanent = True
    session.update(player=player.id, epoch=(player.prefs or {}).get(EPOCH, 0))
    return redirect(url_for("home.home"), 303)


@bp.post("/signout")
def signout():
    """Sign this browser out; with `everywhere`, every browser signed in as the player."""
    player = signed_in()
    if player is not None and request.form.get("everywhere"):
        prefs.update(data.store(), player.id, **{EPOCH: (player.prefs or {}).get(EPOCH, 0) + 1})
    session.clear()
    return flow.to(url_for("pages.index"),
                   notice=_("You are signed out. Your games go on by mail."))


def configure(app) -> None:
    app.config["PERMANENT_SESSION_LIFETIME"] = timedelta(days=SESSION_DAYS)
