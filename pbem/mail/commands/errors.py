"""Every refusal a mail command gives, by name, with the words the player reads."""


class CommandError(Exception):
    """The line could not be done; the message says why, for the player."""


class Declined(CommandError):
    """The part below refused (the door, the rules, a setting's parser, a league service):
    its own words, with cards named as the mail shows them."""


class NotACommand(CommandError):
    def __init__(self, word: str):
        super().__init__(f"{word!r} is not a command here: write help")


class Usage(CommandError):
    """The words do not fit the command: how to write it."""

    def __init__(self, usage: str):
        super().__init__(f"write: {usage}")


class UndoTakesNoWords(CommandError):
    def __init__(self) -> None:
        super().__init__("write just: undo (it takes back your last bid or card)")


class VacationLength(CommandError):
    def __init__(self) -> None:
        super().__init__("a vacation is 1 to 60 days")


class TooMuchMail(CommandError):
    """The web's hourly limits (pbem.store.mail_limits), for a join by mail."""

    def __init__(self) -> None:
        super().__init__("we have sent as much mail as we may for now, for you or to that "
                         "address: try again in an hour. Nothing was sent or changed")


class NotALeagueNumber(CommandError):
    def __init__(self, word: str):
        super().__init__(f"{word[:20]!r} is not a league number (see the league's page)")


class NoEntry(CommandError):
    def __init__(self, league_id: int):
        super().__init__(f"you have no entry in league {league_id} to take out")


class NotOrganiserAddress(CommandError):
    """An organiser's command given where no league's organiser address took the mail."""

    def __init__(self) -> None:
        super().__init__("organiser commands are taken only at the league's organiser "
                         "address, which the organiser's page shows")


class OtherLeague(CommandError):
    def __init__(self, ours: int, league_id: int):
        super().__init__(f"this is the organiser address of league {ours}, not of "
                         f"league {league_id}: write to that league's own address")


class OrganiserElsewhere(CommandError):
    """An organiser's command at an account or seat address."""

    def __init__(self, name: str):
        super().__init__(f"{name} is an organiser's command: it is taken only at "
                         "the league's organiser address (organiser+KEY@...), which the "
                         "organiser's page and the organiser's mails show")
