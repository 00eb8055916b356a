"""The engine's two kinds of refusal, and the words they are told in.

A refusal a player reads carries its words as a template and its values (`Words`), so the
mail or page that shows it can tell it in the player's language (pbem.i18n.told): the engine
is pure and knows no language. `N_` marks a template for the catalogue (pbem/locale/mail.pot);
`str()` of a refusal is its English words, as before."""

from typing import Any


def N_(message: str) -> str:
    """A refusal's words, marked for the catalogue: translated where they are shown."""
    return message


class Words:
    """A sentence with named values (a value may be Words itself: a refusal's reason)."""

    __slots__ = ("template", "values")

    def __init__(self, template: str, **values: Any):
        self.template, self.values = template, values

    def __eq__(self, other: object) -> bool:  # states that replay alike compare equal
        return isinstance(other, Words) and (self.template, self.values) == (other.template,
                                                                             other.values)

    def __hash__(self) -> int:
        return hash(self.template)

    def __repr__(self) -> str:
        return f"Words({self.template!r}, **{self.values!r})"

    def __str__(self) -> str:
        if not self.values:
            return self.template
        return self.template % {k: str(v) for k, v in self.values.items()}


class Refusal(ValueError):
    """What a player wrote or did that cannot be: its `words` say why."""

    def __init__(self, template: str, **values: Any):
        self.words = Words(template, **values)
        super().__init__(str(self.words))


class RulesError(ValueError):
    """A ruleset that names an unknown option or an impossible combination."""


class IllegalAction(Refusal):
    """An action or event the rules do not allow here; says why."""
