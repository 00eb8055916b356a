"""Several processes receiving mail on one port, as Postfix runs several smtpd: one process
handles mail with one core (the GIL), and a relay delivers over many connections at once.

The parent binds the listening socket and hands it to N workers, each a fresh Python
(`python -m pbem.mail.workers`, never a fork of a process with engines and threads) with its
own store, that accept from it and run the inbound handler (pbem.mail.inbound). One socket
rather than one a worker (SO_REUSEPORT): a connection waits in its queue until some worker
takes it, so a worker that dies loses only the connections it had, and the port stays ours
while one restarts; a second server started on the port by mistake fails ("address in
use") rather than silently taking a share of the mail; and the workers choose who takes a
connection, where SO_REUSEPORT spreads them by a hash (8 connections fell 3, 3 and 2 on
three sockets in 61 of 200 tries, and 5 or more on one in 51). A worker takes a connection
after a pause as long as the connections it has (`_accept`): 8 opened at once fell 3, 3
and 2 in 20 tries of 20.

The parent restarts a worker that dies (after a pause that doubles while workers keep dying
young, up to a minute) and stops them all in `stop`. A worker stops on SIGTERM or SIGINT,
and when the parent is gone (its stdin, a pipe from the parent, ends). The clock and the
outbox stay in the parent's process (`pbem serve`) or elsewhere: workers only receive.
"""

import asyncio
import dataclasses
import json
import logging
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from .. import gc_tuning, logs
from ..config import Settings
from ..play import rounds_opened
from ..store.states import store_for
from .inbound import Handler, Processor, protocol

log = logging.getLogger(__name__)
BACKLOG = 128  # connections the kernel queues until a worker takes them
FIRST_PAUSE, LONGEST_PAUSE = 0.5, 60.0  # seconds before restarting a worker that died
STEADY = 30.0  # a worker that ran this long died of something new: the pause starts over
LOOK = 0.2  # seconds between the parent's looks at its workers
GRACE = 10.0  # seconds a stopped worker has to finish its mails before it is killed
ACCEPT_PAUSE = 0.1  # seconds before a worker that could not accept tries again
YIELD, LONGEST_YIELD = 0.005, 0.05  # seconds a worker lets pass, per connection it has,
# before it takes another: a connection waits at most that long for its greeting


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket listening on host:port (the first address the name has; "" is every
    address), to share with the workers."""
    if not host:
        dual = socket.has_dualstack_ipv6()
        return socket.create_server(("", port), family=socket.AF_INET6 if dual else
                                    socket.AF_INET, backlog=BACKLOG, dualstack_ipv6=dual)
    family, *_, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                             flags=socket.AI_PASSIVE)[0]
    return socket.create_server(address, family=family, backlog=BACKLOG)


class Workers:
    """N receiving processes on cfg.smtp_host:cfg.smtp_port (port 0: a free one, `port`)."""

    def __init__(self, cfg: Settings, processes: int, lmtp: bool = False):
        self.cfg, self.lmtp = cfg, lmtp
        self.sock = listening_socket(cfg.smtp_host, cfg.smtp_port)
        self.port = self.sock.getsockname()[1]
        self.slots = [_Slot(i) for i in range(processes)]
        self._stop = threading.Event()
        self._watcher = threading.Thread(target=self._watch, name="mail-workers", daemon=True)

    def start(self) -> None:
        for slot in self.slots:
            self._spawn(slot)
        self._watcher.start()

    def pids(self) -> list[int]:
        return [s.proc.pid for s in self.slots if s.proc is not None]

    def stop(self) -> None:
        """Stop every worker (SIGTERM, then SIGKILL after GRACE seconds) and the socket."""
        self._stop.set()
        if self._watcher.is_alive():
            self._watcher.join()
        live = [s.proc for s in self.slots if s.proc is not None]
        for proc in live:
            proc.terminate()
        deadline = time.monotonic() + GRACE
        for proc in live:
            try:
                proc.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                log.warning("mail worker %d did not stop in %.0f s: killed", proc.pid, GRACE)
                proc.kill()
                proc.wait()
            _close_stdin(proc)
        self.sock.close()

    def _spawn(self, slot: "_Slot") -> None:
        fd = self.sock.fileno()
        args = [sys.executable, "-m", "pbem.mail.workers", str(fd)] + (["--lmtp"] * self.lmtp)
        # its own session: a Ctrl-C at the terminal reaches the parent, which stops them
        proc = subprocess.Popen(args, pass_fds=(fd,), stdin=subprocess.PIPE,
                                start_new_session=True)
        # the settings go down the pipe, not on the command line (the secret key is in them)
        pipe = proc.stdin
        assert pipe is not None  # stdin=PIPE
        pipe.write(json.dumps(_plain(self.cfg)).encode() + b"\n")
        pipe.flush()
        slot.proc, slot.started = proc, time.monotonic()

    def _watch(self) -> None:
        while not self._stop.wait(LOOK):
            now = time.monotonic()
            for slot in self.slots:
                if slot.proc is not None and slot.proc.poll() is not None:
                    slot.died(now)
                elif slot.proc is None and now >= slot.due:
                    try:
                        self._spawn(slot)
                    except OSError:  # no process to be had now (memory, a limit): later
                        log.exception("mail worker %d could not start", slot.number)
                        slot.started = now
                        slot.died(now)


@dataclasses.dataclass
class _Slot:
    """One worker's place: its process, or the time its replacement is due."""

    number: int
    proc: subprocess.Popen | None = None
    started: float = 0.0
    pause: float = 0.0
    due: float = 0.0

    def died(self, now: float) -> None:
        lived = now - self.started
        self.pause = FIRST_PAUSE if lived > STEADY else min(LONGEST_PAUSE, 2 * self.pause
                                                            or FIRST_PAUSE)
        if self.proc is not None:
            log.warning("mail worker %d (pid %d) ended with %s after %.1f s; restarting it "
                        "in %.1f s", self.number, self.proc.pid, self.proc.returncode, lived,
                        self.pause)
            _close_stdin(self.proc)
        self.proc, self.due = None, now + self.pause


def _close_stdin(proc: subprocess.Popen) -> None:
    if proc.stdin is not None:
        proc.stdin.close()


def _plain(cfg: Settings) -> dict:
    return {f.name: str(v) if isinstance(v := getattr(cfg, f.name), Path) else v
            for f in dataclasses.fields(cfg)}


def _settings(line: bytes) -> Settings:
    values = json.loads(line)
    return Settings(**values | {"var_dir": Path(values["var_dir"])})


# -- a worker ---------------------------------------------------------------------------------

def serve(sock: socket.socket, cfg: Settings, lmtp: bool) -> None:
    """Receive mail on `sock` until SIGTERM, SIGINT or the end of stdin (the parent gone)."""
    logs.setup(cfg)
    handler = Handler(Processor(store_for(cfg.database_url), cfg))
    asyncio.run(_serve(sock, lambda: protocol(handler, lmtp, cfg.smtp_host)))
    # a mail's move that ended a league round opens the next in the background: let it
    # finish, as every `pbem` command does (else the clock's tick opens it later)
    rounds_opened(GRACE / 2)


async def _serve(sock: socket.socket, factory) -> None:
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    loop.add_reader(sys.stdin.fileno(), stop.set)  # the parent writes nothing more: its end
    sock.setblocking(False)
    accepting = asyncio.create_task(_accept(loop, sock, factory))
    await stop.wait()
    accepting.cancel()  # takes no more connections; a mail being handled finishes its thread
    # (asyncio.run waits for it), though its answer may not be sent: the relay sends it
    # again, and the Inbound row answers the repeat as a duplicate


async def _accept(loop, sock: socket.socket, factory) -> None:
    """Take connections from the shared socket. The kernel wakes every worker for a new
    connection and the first to ask gets it; a worker waits first as long as the connections
    it has, so the least busy one takes it (asyncio's own server took whatever came: 8 of a
    relay's connections fell 4, 3 and 1 on three workers)."""
    live: list[asyncio.BaseTransport] = []
    while True:
        await _readable(loop, sock)
        live = [t for t in live if not t.is_closing()]
        if live:
            await asyncio.sleep(min(LONGEST_YIELD, YIELD * len(live)))
        try:
            conn, _ = sock.accept()
        except BlockingIOError:  # another worker took it
            continue
        except OSError as e:  # no descriptors left, say: never the end of taking connections
            log.warning("mail worker could not take a connection: %s", e)
            await asyncio.sleep(ACCEPT_PAUSE)
            continue
        transport, _ = await loop.connect_accepted_socket(factory, conn)
        live.append(transport)


async def _readable(loop, sock: socket.socket) -> None:
    ready = loop.create_future()
    loop.add_reader(sock, lambda: ready.done() or ready.set_result(None))
    try:
        await ready
    finally:
        loop.remove_reader(sock)


def main(argv: list[str]) -> None:
    cfg = _settings(sys.stdin.buffer.readline())
    sock = socket.socket(fileno=int(argv[0]))
    gc_tuning.for_long_running()
    serve(sock, cfg, lmtp="--lmtp" in argv[1:])


if __name__ == "__main__":
    main(sys.argv[1:])
