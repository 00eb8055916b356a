"""The web bench's ceiling: a WSGI app that does nothing (bench/web.py runs it under the same
gunicorn settings as wsgi.py). It reads a request body if one is sent, so a POST costs the
server what reading the form costs and no more."""

BODY = b"ok\n"


def app(environ, start_response):
    length = int(environ.get("CONTENT_LENGTH") or 0)
    if length:
        environ["wsgi.input"].read(length)
    start_response("200 OK", [("Content-Type", "text/plain"),
                              ("Content-Length", str(len(BODY)))])
    return [BODY]
