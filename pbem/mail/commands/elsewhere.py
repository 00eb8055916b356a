"""An organiser's command where it is not taken (an account or seat address): the answer
says where it is."""

from .base import Command, Context
from .errors import OrganiserElsewhere


class Elsewhere(Command):
    def __init__(self, name: str):
        self.name = name

    def process(self, ctx: Context, args: str) -> str:
        raise OrganiserElsewhere(self.name)
