"""The engine's two kinds of refusal."""


class RulesError(ValueError):
    """A ruleset that names an unknown option or an impossible combination."""


class IllegalAction(ValueError):
    """An action or event the rules do not allow here; says why."""
