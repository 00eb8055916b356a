"""Running a league: creating it and its seasons, entries (joining, partners, withdrawing),
and the organiser's actions. Every refusal is a LeagueError that says why and changes
nothing. An organiser action names who asks (`by`: a player id, or OPERATOR for the server's
own command line) and is refused unless that is the league's organiser."""

import secrets
from dataclasses import dataclass, replace
from datetime import date

from sqlmodel import Session, col, select

from .. import asks
from ..config import load
from ..deadlines import check as check_clock
from ..engine import Rules
from ..i18n import _, current, language, told
from ..signing import Signer, secret_keys
from ..store import prefs
from ..store.addresses import AddressError, check_address
from ..store.games import new_token, player_for
from ..store.models import Confirmation, Entry, Fixture, League, Outbox, Player, Season
from ..store.states import Store
from .duplicate import DuplicateError, check_rules
from .results import changed
from .rows import id_of

OPERATOR = "operator"  # the command line: may do what the organiser may
Asker = int | str  # who asks: a player's id, or OPERATOR
ENTRY_KINDS = ("single", "pair")  # players with partners drawn per game; fixed partnerships
PAIRINGS = ("round-robin", "swiss", "duplicate")
JOIN, PARTNER = "pbem.join", "pbem.partner"  # the purposes of the signed links we mail


class LeagueError(ValueError):
    """Refused: the message says why, for whoever asked. Nothing was changed."""


@dataclass(frozen=True)
class LeagueSpec:
    """A new league as its organiser asks for it (the web's form, `pbem league new`): the
    organiser's address, the name, the rules, the first season's days, the format and the
    clock. `check_league` gives it back as it is stored."""
    organiser: str
    name: str
    rules: Rules
    starts: date
    ends: date
    entry: str = "single"
    pairing: str = "round-robin"
    time_control: dict | None = None
    rounds: int | None = None
    max_entries: int | None = None
    stale_hours: int = 168
    timeout_forfeit: int | None = None


def create_league(store: Store, spec: LeagueSpec, ref: str | None = None) -> League:
    """A league with its first season (taking entries until `spec.starts`). The organiser is
    mailed the organiser's page and the join link to pass on. `ref`, the id of the mailed
    link the organiser confirmed with (the web), makes it once: a second time raises
    IntegrityError and writes nothing."""
    spec = check_league(spec)
    with store.session() as s:
        boss = player_for(s, spec.organiser)
        league = League(name=spec.name, rules=spec.rules.to_dict(),
                        time_control=spec.time_control or {}, entry=spec.entry,
                        pairing=spec.pairing, rounds=spec.rounds,
                        max_entries=spec.max_entries, stale_hours=spec.stale_hours,
                        timeout_forfeit=spec.timeout_forfeit, organiser_id=id_of(boss),
                        admin_token=new_token(), join_token=new_token(),
                        seed=secrets.token_hex(8))
        s.add(league)
        s.flush()
        if ref:
            s.add(Confirmation(ref=ref, league_id=league.id))
        s.add(Season(league_id=id_of(league), number=1, starts=spec.starts, ends=spec.ends))
        s.add(_organiser_mail(league, boss))
        s.commit()
        return league


def check_league(spec: LeagueSpec) -> LeagueSpec:
    """`spec` as create_league stores it (the name's spaces tidied, the organiser's address
    checked, the time control with its defaults), or LeagueError: the web checks a league's
    form before it asks the organiser to confirm it."""
    name, organiser = " ".join(spec.name.split()), address(spec.organiser)
    tc = _time_control(spec.time_control)
    _check_format(spec)
    check_forfeit(spec.timeout_forfeit)
    if not 0 < len(name) <= 100:
        raise LeagueError(_("a league needs a name (up to 100 characters)"))
    _check_dates(spec.starts, spec.ends)
    return replace(spec, organiser=organiser, name=name, time_control=tc)


MOST_TIMEOUTS = 1000  # a forfeit after more timeouts than this in one game is no rule


def check_forfeit(timeout_forfeit: int | None) -> None:
    if timeout_forfeit is not None and not 1 <= timeout_forfeit <= MOST_TIMEOUTS:
        raise LeagueError(_("a side forfeits after 1 to %(most)s timeouts in a game")
                          % {"most": MOST_TIMEOUTS})


def table_size(rules: Rules, entry: str) -> int:
    """Entries at one table: a partnership a side, or one player a seat."""
    return len(rules.sides) if entry == "pair" else rules.players


def _check_format(spec: LeagueSpec) -> None:
    entry, rules, size = spec.entry, spec.rules, table_size(spec.rules, spec.entry)
    if entry not in ENTRY_KINDS:
        raise LeagueError(_("entries are single or pair, not %(entry)s") % {"entry": repr(entry)})
    if spec.pairing not in PAIRINGS:
        raise LeagueError(_("pairing is round-robin, swiss or duplicate, not %(pairing)s")
                          % {"pairing": repr(spec.pairing)})
    if spec.pairing == "duplicate":
        try:
            check_rules(rules, entry)
        except DuplicateError as e:
            raise LeagueError(str(e)) from None
    if entry == "pair" and any(len(side) != 2 for side in rules.sides):
        raise LeagueError(_("%(preset)s has no partnerships of two: entries must be single")
                          % {"preset": rules.preset})
    if spec.rounds is not None and not 1 <= spec.rounds <= 100:
        raise LeagueError(_("a season has 1 to 100 rounds"))
    if spec.max_entries is not None and spec.max_entries < size:
        raise LeagueError(_("a table needs %(size)s entries: allow at least that many")
                          % {"size": size})
    if not 1 <= spec.stale_hours <= 24 * 90:
        raise LeagueError(_("a table is flagged after 1 hour to 90 days without a move"))


def _time_control(tc: dict | None) -> dict:
    """Checked, with the defaults: automatic vacation stays off unless the organiser
    turns it on (a league's games should not wait on one player's vacation bank)."""
    tc = {"auto_vacation": False} | (tc or {})
    try:
        check_clock(tc)
        return tc
    except ValueError as e:
        raise LeagueError(_("a bad time control: %(why)s") % {"why": told(e)}) from None


def _check_dates(starts: date, ends: date) -> None:
    if ends < starts:
        raise LeagueError(_("the season ends (%(ends)s) before it starts (%(starts)s)")
                          % {"ends": ends, "starts": starts})


def _organiser_mail(league: League, boss: Player) -> Outbox:
    cfg = load()
    values = {"league": league.name, "page": f"{cfg.base_url}/o/{league.admin_token}",
              "join": f"{cfg.base_url}/j/{league.join_token}",
              "address": f"pbem@{cfg.mail_domain}", "number": league.id}
    with language(prefs.language(boss)):
        text = _("Your league \"%(league)s\" is ready.\n\nYour organiser's page (keep it to "
                 "yourself): %(page)s\nThe join link to pass on: %(join)s\nPlayers can also "
                 "mail %(address)s: join %(number)s") % values + "\n"
        subject, lang = _("Your league: %(league)s") % values, current()
    return Outbox(to_addr=boss.email, subject=subject, body_text=text,
                  headers={"Auto-Submitted": "auto-generated", "Content-Language": lang},
                  dedupe_key=f"league:{league.id}:organiser")


def get_league(s: Session, league_id: object) -> League:
    league = s.get(League, league_id) if isinstance(league_id, int) else None
    if league is None:
        raise LeagueError(_("there is no league %(league)s") % {"league": league_id})
    return league


def require_organiser(league: League, by: Asker) -> None:
    if by != OPERATOR and by != league.organiser_id:
        raise LeagueError(_("only the organiser of %(league)s may do that")
                          % {"league": league.name})


def set_hints(store: Store, league_id: int, by: Asker, on: bool) -> None:
    """The organiser allows hints in the league's games, or turns them off (issue 33)."""
    with store.session() as s:
        league = get_league(s, league_id)
        require_organiser(league, by)
        league.hints = on
        s.add(league)
        s.commit()


def league_fixture(s: Session, league_id: object, by: Asker, game_id: object
                   ) -> tuple[League, Fixture]:
    """(the league, the game's fixture) for an organiser's action on one of its games:
    LeagueError unless `by` is the organiser and the game is the league's."""
    league = get_league(s, league_id)
    require_organiser(league, by)
    fixture = s.exec(select(Fixture).where(Fixture.game_id == game_id)).first() \
        if isinstance(game_id, int) else None
    season = s.get(Season, fixture.season_id) if fixture else None
    if fixture is None or season is None or season.league_id != league.id:
        raise LeagueError(_("game %(game)s is not a game of %(league)s")
                          % {"game": game_id, "league": league.name})
    return league, fixture


def latest_season(s: Session, league_id: int) -> Season:
    season = s.exec(select(Season).where(Season.league_id == league_id)
                    .order_by(col(Season.number).desc())).first()
    if season is None:  # a league is made with its first season
        raise LeagueError(_("there is no league %(league)s") % {"league": league_id})
    return season


def add_season(store: Store, league_id: int, by: Asker, starts: date, ends: date) -> Season:
    """The next season, taking entries until `starts`; the entries still in the last
    season are entered again (anyone may then leave)."""
    _check_dates(starts, ends)
    with store.session() as s:
        league = get_league(s, league_id)
        require_organiser(league, by)
        last = latest_season(s, id_of(league))
        if last.status == "open":
            raise LeagueError(_("season %(season)s has not started yet") % {"season": last.number})
        season = Season(league_id=id_of(league), number=last.number + 1, starts=starts,
                        ends=ends)
        s.add(season)
        s.flush()
        for e in s.exec(select(Entry).where(Entry.season_id == last.id,
                                            Entry.status == "active")).all():
            s.add(Entry(season_id=id_of(season), player_id=e.player_id, partner_id=e.partner_id,
                        name=e.name))
        s.commit()
        return season


# -- entries ---------------------------------------------------------------------------------


def request_join(store: Store, league_id: int, email: str, name: str = "",
                 partner: str | None = None) -> str:
    """Check that the entry could be made, then mail `email` a link to confirm it: whoever
    asked (a web form, a mail with any From), the address's owner says yes. Returns the
    address written to."""
    email, partner = address(email), address(partner) if partner else None
    with store.session() as s:
        league = get_league(s, league_id)
        _check_entry(s, league, _open_season(s, league), email, partner)
    def text(link: str) -> str:
        values = {"league": league.name, "partner": partner, "link": link}
        return "\n\n".join([
            _("Someone (we hope you) asked to enter you in the league \"%(league)s\" with "
              "%(partner)s as your partner.") % values if partner else
            _("Someone (we hope you) asked to enter you in the league \"%(league)s\".") % values,
            _("To confirm, open this link and press the button: %(link)s") % values,
            _("If it was not you, ignore this mail: nothing happens without the button.")]) + "\n"

    data = {"l": league.id, "e": email, "m": name.strip()[:100], "p": partner}
    with language(asks.reader_language(store, email)):  # one a day for the same request:
        asks.ask(store, email, JOIN, data, "/j/confirm/",  # the form cannot flood a mailbox
                 _("Confirm your entry: %(league)s") % {"league": league.name}, text)
    return email


def join(store: Store, league_id: int, email: str, name: str = "",
         partner: str | None = None) -> Entry:
    """Enter `email` (with `partner`, in a league of fixed partnerships) in the league's
    season that is taking entries. A partner is asked to say yes; until then the entry is
    pending, but holds its place."""
    email, partner = address(email), address(partner) if partner else None
    with store.session() as s:
        league = get_league(s, league_id)
        season = _open_season(s, league, lock=True)
        _check_entry(s, league, season, email, partner)
        player = player_for(s, email)
        if name.strip():  # the address's owner confirmed this name
            player.name = " ".join(name.split())[:100]
            s.add(player)
        mate = player_for(s, partner) if partner else None
        entry = Entry(season_id=id_of(season), player_id=id_of(player),
                      partner_id=mate.id if mate else None,
                      name=_entry_name(name, player, mate),
                      status="pending" if mate else "active")
        s.add(entry)
        s.flush()
        s.add(_welcome(league, season, entry, player, mate))
        if mate:
            s.add(_partner_mail(league, entry, player, mate))
        s.commit()
        return entry


def accept_partner(store: Store, entry_id: int, email: str) -> Entry:
    """The partner named in a pending entry says yes: the entry is in."""
    with store.session() as s:
        entry = s.get(Entry, entry_id)
        mate = s.get(Player, entry.partner_id) if entry and entry.partner_id else None
        if entry is None or mate is None or mate.email != address(email):
            raise LeagueError(_("this entry does not name you as a partner"))
        season = s.get(Season, entry.season_id)
        if entry.status != "pending" or season is None or season.status != "open":
            raise LeagueError(_("this entry is no longer waiting for you")
                              if entry.status != "pending" else _("the season has started"))
        entry.status = "active"
        s.add(entry)
        s.commit()
        return entry


WITHDRAWN_GAMES = ("stand", "struck")


def withdraw(store: Store, league_id: int, by: Asker, entry_id: int, games: str = "stand"
             ) -> Entry:
    """Take an entry out (the organiser, or one of its players): before the season starts
    it is gone; once it runs, its games in progress play on, Swiss rounds no longer draw it,
    and a robot plays its later tables in a round robin's fixed schedule. `games`: whether
    its games stand in the league table or are struck (for everyone), the organiser's
    choice only."""
    if games not in WITHDRAWN_GAMES:
        raise LeagueError(_("a withdrawn entry's games stand or are struck, not %(games)s")
                          % {"games": repr(games)[:60]})
    with store.session() as s:
        league = get_league(s, league_id)
        entry = s.get(Entry, entry_id)
        season = s.get(Season, entry.season_id) if entry else None
        if entry is None or season is None or season.league_id != league.id:
            raise LeagueError(_("there is no entry %(entry)s in %(league)s")
                              % {"entry": entry_id, "league": league.name})
        if by not in (entry.player_id, entry.partner_id) or games != "stand":
            require_organiser(league, by)
        if entry.status == "withdrawn" or season.status == "over":
            raise LeagueError(_("%(name)s is not playing in season %(season)s")
                              % {"name": entry.name, "season": season.number})
        if season.status == "open":
            s.delete(entry)
        else:
            entry.status, entry.games = "withdrawn", games
            s.add(entry)
            changed(s, id_of(season))
        s.commit()
        return entry


def _open_season(s: Session, league: League, lock: bool = False) -> Season:
    """The season taking entries (its row locked, so that two joins at once cannot both
    take the last place)."""
    q = select(Season).where(Season.league_id == league.id, Season.status == "open")
    season = s.exec(q.with_for_update() if lock else q).first()
    if season is None:
        raise LeagueError(_("%(league)s is not taking entries now: its season has started")
                          % {"league": league.name})
    return season


def _check_entry(s: Session, league: League, season: Season, email: str,
                 partner: str | None) -> None:
    if league.entry == "pair" and not partner:
        raise LeagueError(_("%(league)s is for fixed partnerships: name your partner")
                          % {"league": league.name})
    if league.entry == "single" and partner:
        raise LeagueError(_("%(league)s is for single players: partners are drawn per game")
                          % {"league": league.name})
    if partner == email:
        raise LeagueError(_("your partner must be someone else"))
    entries = s.exec(select(Entry).where(Entry.season_id == season.id)).all()
    ids = {x for e in entries for x in (e.player_id, e.partner_id) if x}
    for who in (email, partner):
        player = s.exec(select(Player).where(Player.email == who)).first() if who else None
        if player and player.id in ids:
            raise LeagueError(_("%(address)s is entered in %(league)s already")
                              % {"address": who, "league": league.name})
    if league.max_entries is not None and len(entries) >= league.max_entries:
        raise LeagueError(_("%(league)s is full: %(most)s entries")
                          % {"league": league.name, "most": league.max_entries})


def address(email: str) -> str:
    try:
        return check_address(email or "")  # the one address check (pbem.store.addresses)
    except AddressError as e:
        raise LeagueError(str(e)) from None


def _entry_name(name: str, player: Player, mate: Player | None) -> str:
    name = " ".join(name.split())[:100]
    if mate:
        return f"{player.name} & {mate.name}" if not name or name == player.name else name
    return player.name


def _welcome(league: League, season: Season, entry: Entry, player: Player,
             mate: Player | None) -> Outbox:
    cfg = load()
    values = {"league": league.name, "season": season.number, "mate": mate.email if mate else "",
              "starts": season.starts.isoformat(), "link": f"{cfg.base_url}/l/{league.id}"}
    with language(prefs.language(player)):
        if mate:
            text = _("You are entered in \"%(league)s\", season %(season)s once %(mate)s says "
                     "yes. It starts on %(starts)s; your first table comes by mail then.\nThe "
                     "league: %(link)s") % values + "\n"
        else:
            text = _("You are entered in \"%(league)s\", season %(season)s. It starts on "
                     "%(starts)s; your first table comes by mail then.\nThe league: %(link)s"
                     ) % values + "\n"
        subject, lang = _("You are in: %(league)s") % values, current()
    return Outbox(to_addr=player.email, subject=subject, body_text=text,
                  headers={"Auto-Submitted": "auto-generated", "Content-Language": lang},
                  dedupe_key=f"entry:{entry.id}:welcome")


def _partner_mail(league: League, entry: Entry, player: Player, mate: Player) -> Outbox:
    cfg = load()
    link = Signer(secret_keys(cfg), PARTNER).dumps({"x": entry.id, "e": mate.email})
    values = {"address": player.email, "league": league.name,
              "link": f"{cfg.base_url}/j/partner/{link}"}
    with language(prefs.language(mate)):
        text = _("%(address)s entered \"%(league)s\" with you as partner.\n\nTo say yes, open "
                 "this link and press the button: %(link)s\n\nIf you do not want to play, "
                 "ignore this mail: the entry stays out.") % values + "\n"
        subject, lang = _("Partner in %(league)s?") % values, current()
    return Outbox(to_addr=mate.email, subject=subject, body_text=text,
                  headers={"Auto-Submitted": "auto-generated", "Content-Language": lang},
                  dedupe_key=f"entry:{entry.id}:partner")


def read_link(token: str, purpose: str) -> dict:
    """The data of a join or partner link we mailed, or LeagueError saying why not."""
    try:
        return asks.read(token, purpose)
    except ValueError as e:
        raise LeagueError(str(e)) from None
