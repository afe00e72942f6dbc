"""A tiny TCP forwarder the tests put between the app and PostgreSQL, to cut the database off.

Stopping it closes the listening socket *and* every forwarded connection (as a server that went
away would); starting it again listens on the same port.
"""

from __future__ import annotations

import socket
import threading


class TcpProxy:
    def __init__(self, upstream: tuple[str, int], host: str = "127.0.0.1", port: int = 0) -> None:
        self.upstream = upstream
        self.host, self.port = host, port
        self._listener: socket.socket | None = None
        self._conns: set[socket.socket] = set()
        self._lock = threading.Lock()
        self.accepted = 0

    # --- control ----------------------------------------------------------------------------
    def start(self) -> TcpProxy:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((self.host, self.port))
        listener.listen(128)
        self.port = listener.getsockname()[1]
        self._listener = listener
        threading.Thread(target=self._accept_loop, args=(listener,), name="tcp-proxy", daemon=True).start()
        return self

    def stop(self) -> None:
        """Refuse new connections and cut every open one."""
        listener, self._listener = self._listener, None
        if listener is not None:
            try:
                listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            listener.close()
        with self._lock:
            conns, self._conns = list(self._conns), set()
        for s in conns:
            _close(s)

    @property
    def running(self) -> bool:
        return self._listener is not None

    def url(self, database_url: str) -> str:
        """``database_url`` with host:port replaced by the proxy's."""
        head, _, tail = database_url.partition("@")
        hostport, _, rest = tail.partition("/")
        return f"{head}@{self.host}:{self.port}/{rest}"

    # --- forwarding -------------------------------------------------------------------------
    def _accept_loop(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # stopped
            try:
                server = socket.create_connection(self.upstream, timeout=5)
                server.settimeout(None)
            except OSError:
                _close(client)
                continue
            with self._lock:
                if self._listener is not listener:  # stopped meanwhile
                    _close(client)
                    _close(server)
                    return
                self._conns.update((client, server))
                self.accepted += 1
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            with self._lock:
                self._conns.discard(src)
                self._conns.discard(dst)
            _close(src)
            _close(dst)


def _close(s: socket.socket) -> None:
    try:
        s.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    try:
        s.close()
    except OSError:
        pass
