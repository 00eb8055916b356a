"""For any WSGI server: gunicorn -w 4 -b 127.0.0.1:5000 wsgi:app"""

from pbem import gc_tuning
from pbem.web.app import create_app

app = create_app()
gc_tuning.for_long_running()
