"""Every refusal a mail command gives, by name, with the words the player reads (in the
language of the context it is raised in: the player's, pbem.mail.inbound)."""

from ...i18n import _


class CommandError(Exception):
    """The line could not be done; the message says why, for the player."""


class Declined(CommandError):
    """The part below refused (the door, the rules, a setting's parser, a league service):
    its own words, with cards named as the mail shows them."""


class NotACommand(CommandError):
    def __init__(self, word: str):
        super().__init__(_("%(word)s is not a command here: write help") % {"word": repr(word)})


class Usage(CommandError):
    """The words do not fit the command: how to write it."""

    def __init__(self, usage: str):
        super().__init__(_("write: %(usage)s") % {"usage": usage})


class UndoTakesNoWords(CommandError):
    def __init__(self) -> None:
        super().__init__(_("write just: undo (it takes back your last bid or card)"))


class VacationLength(CommandError):
    def __init__(self) -> None:
        super().__init__(_("a vacation is 1 to 60 days"))


class TooMuchMail(CommandError):
    """The web's hourly limits (pbem.store.mail_limits), for a join by mail."""

    def __init__(self) -> None:
        super().__init__(_("we have sent as much mail as we may for now, for you or to that "
                           "address: try again in an hour. Nothing was sent or changed"))


class NotALeagueNumber(CommandError):
    def __init__(self, word: str):
        super().__init__(_("%(word)s is not a league number (see the league's page)")
                         % {"word": repr(word[:20])})


class NoEntry(CommandError):
    def __init__(self, league_id: int):
        super().__init__(_("you have no entry in league %(league)s to take out")
                         % {"league": league_id})


class NotOrganiserAddress(CommandError):
    """An organiser's command given where no league's organiser address took the mail."""

    def __init__(self) -> None:
        super().__init__(_("organiser commands are taken only at the league's organiser "
                           "address, which the organiser's page shows"))


class OtherLeague(CommandError):
    def __init__(self, ours: int, league_id: int):
        super().__init__(_("this is the organiser address of league %(ours)s, not of league "
                           "%(league)s: write to that league's own address")
                         % {"ours": ours, "league": league_id})


class OrganiserElsewhere(CommandError):
    """An organiser's command at an account or seat address."""

    def __init__(self, name: str):
        super().__init__(_("%(name)s is an organiser's command: it is taken only at the "
                           "league's organiser address (organiser+KEY@...), which the "
                           "organiser's page and the organiser's mails show") % {"name": name})
