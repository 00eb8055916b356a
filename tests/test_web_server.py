"""`pbem serve`'s web server (pbem.web.server) over a real socket: waitress's own 413 for a
body past the limit, announced or chunked, before the app sees it; a body within it reaches
the app; stop() ends the server."""

import http.client
import socket
import threading
import time

import pytest

from pbem.web.guard import MAX_BODY
from pbem.web.server import make_server
from tests.test_serve import free_port


@pytest.fixture
def served():
    """A server on a free port in front of an app that records each request's body."""
    seen: list[bytes] = []

    def app(environ, start_response):
        seen.append(environ["wsgi.input"].read())
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"read"]

    port = free_port()
    site = make_server("127.0.0.1", port, app)
    threading.Thread(target=site.run, daemon=True).start()
    yield port, seen
    site.stop()


def exchange(port: int, request: bytes) -> bytes:
    """Send `request`, and read the answer until the server closes the connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as c:
        c.sendall(request)
        reply = b""
        while part := c.recv(65536):
            reply += part
    return reply


def post(length: int, body: bytes) -> bytes:
    return (b"POST /new HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: "
            + str(length).encode() + b"\r\n\r\n" + body)


def chunked(body: bytes) -> bytes:
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(body[i:i + 8192]), body[i:i + 8192])
                      for i in range(0, len(body), 8192))
    return (b"POST /new HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n" + chunks + b"0\r\n\r\n")


# The requests past the limit send no more than the server reads before it answers: a
# socket closed with bytes unread is reset, and a reset may lose the answer on its way.


def test_a_body_announced_too_large_is_413_before_it_is_read(served):
    port, seen = served
    t0 = time.monotonic()
    reply = exchange(port, post(20 * 1024 * 1024, b""))  # the body never comes
    assert reply.startswith(b"HTTP/1.1 413") and time.monotonic() - t0 < 5
    assert exchange(port, post(MAX_BODY + 1, b"")).startswith(b"HTTP/1.1 413")
    assert seen == []


def test_a_chunked_body_too_large_is_413_and_never_reaches_the_app(served):
    port, seen = served
    with socket.create_connection(("127.0.0.1", port), timeout=10) as c:
        c.sendall(b"POST /new HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                  b"ffffff\r\n" + b"A" * (MAX_BODY - 100))  # one chunk of 16 MB announced
        time.sleep(0.5)  # all read, within the limit: no answer yet
        c.sendall(b"A" * 200)  # now past it
        reply = b""
        while part := c.recv(65536):
            reply += part
    assert reply.startswith(b"HTTP/1.1 413") and seen == []


def test_a_body_within_the_limit_reaches_the_app(served):
    port, seen = served
    assert exchange(port, post(MAX_BODY, b"B" * MAX_BODY)).startswith(b"HTTP/1.1 200")
    assert exchange(port, chunked(b"C" * 10_000)).startswith(b"HTTP/1.1 200")
    assert seen == [b"B" * MAX_BODY, b"C" * 10_000]


def test_stop_ends_the_server():
    port = free_port()
    site = make_server("127.0.0.1", port, lambda environ, start_response: [])
    runner = threading.Thread(target=site.run, daemon=True)
    runner.start()
    site.stop()
    runner.join(10)
    assert not runner.is_alive()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()


def test_stop_lets_a_request_in_the_app_finish_and_refuses_the_next():
    """stop() waits for the request the app is making (a move's write ends whole), and a
    request on a connection kept open after it never reaches the app (503)."""
    entered, release, calls = threading.Event(), threading.Event(), []

    def app(environ, start_response):
        calls.append(environ["PATH_INFO"])
        if environ["PATH_INFO"] == "/slow":
            entered.set()
            release.wait(10)
        start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "2")])
        return [b"ok"]

    port = free_port()
    site = make_server("127.0.0.1", port, app)
    threading.Thread(target=site.run, daemon=True).start()
    kept = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    kept.request("GET", "/first")
    assert kept.getresponse().read() == b"ok"  # the connection stays open (HTTP/1.1)
    slow: list[bytes] = []
    threading.Thread(target=lambda: slow.append(exchange(
        port, b"GET /slow HTTP/1.0\r\nHost: x\r\n\r\n")), daemon=True).start()
    assert entered.wait(10)
    stopper = threading.Thread(target=site.stop)
    stopper.start()
    time.sleep(0.3)
    assert stopper.is_alive()  # waiting for /slow
    release.set()
    stopper.join(10)
    deadline = time.monotonic() + 5
    while not slow and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not stopper.is_alive() and slow and slow[0].endswith(b"ok")
    kept.request("GET", "/after")
    answer = kept.getresponse()
    assert answer.status == 503 and calls == ["/first", "/slow"]
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
