"""gunicorn's access log without keys (issue 12), for sites that log access under gunicorn:

    gunicorn --logger-class pbem.web.gunicorn_log.MaskedLogger --access-logfile - wsgi:app

Only gunicorn imports this module (gunicorn is not a dependency of pbem itself)."""

from gunicorn.glogging import Logger

from .guard import mask


class MaskedLogger(Logger):
    """Every value an access-log format may name, with the keys in paths, query strings and
    Referers written as "..."."""

    def atoms(self, resp, req, environ, request_time):
        atoms = super().atoms(resp, req, environ, request_time)
        for key, value in atoms.items():
            if isinstance(value, str):
                atoms[key] = mask("?" + value)[1:] if key == "q" else mask(value)
        return atoms
