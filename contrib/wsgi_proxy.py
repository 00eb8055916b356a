"""wsgi.py behind one reverse proxy on this host (Caddy or nginx: docs/deploy.md): the
visitor's address is taken from the proxy's X-Forwarded-For, so the web's mail limits
(pbem.web.limits) count each visitor, not the proxy. Only for a site that no one reaches
but through that proxy (gunicorn bound to 127.0.0.1):

    cd /opt/pbem && gunicorn contrib.wsgi_proxy:app
"""

from werkzeug.middleware.proxy_fix import ProxyFix

from wsgi import app

app.wsgi_app = ProxyFix(app.wsgi_app, x_for=1)
