"""For any WSGI server: gunicorn -w 4 -b 127.0.0.1:5000 wsgi:app

Like every pbem command, it serves a site that is there (pbem.config.require_site): a
missing database or key stops the worker with a message saying where it looked."""

from pbem import gc_tuning, logs
from pbem.config import load, require_site
from pbem.web.app import create_app

cfg = require_site(load())
logs.setup(cfg)  # the operator's log (docs/operating.md), under gunicorn's workers too
app = create_app(cfg)
gc_tuning.for_long_running()
