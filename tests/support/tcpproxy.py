"""A TCP forwarder on 127.0.0.1 that a test can cut and restore: a real network outage.

Pointing Django's connection at the proxy and cutting it gives the collector exactly what a
database host that went away gives it (reset connections, refused reconnects), without
stopping the PostgreSQL that the test itself needs to check the outcome.
"""
from __future__ import annotations

import socket
import threading
from functools import partial


class TcpProxy:
    def __init__(self, target_host: str, target_port: int):
        self.target = (target_host, target_port)
        self._listener: socket.socket | None = None
        self._conns: list[socket.socket] = []
        self._lock = threading.Lock()
        self.port = 0

    def start(self) -> TcpProxy:
        self._listen()
        return self

    def _listen(self) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", self.port))
        self.port = sock.getsockname()[1]
        sock.listen(16)
        self._listener = sock
        threading.Thread(target=self._accept, args=(sock,), daemon=True).start()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._conns += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def cut(self) -> None:
        """Refuse new connections and reset the open ones."""
        if self._listener:
            try:
                self._listener.shutdown(socket.SHUT_RDWR)   # wakes the thread blocked in accept()
            except OSError:
                pass
            self._listener.close()
            self._listener = None
        with self._lock:
            for s in self._conns:
                # shutdown() first: close() alone does not wake a thread blocked in recv(),
                # and the kernel would keep the connection open for it.
                for op in (partial(s.shutdown, socket.SHUT_RDWR), s.close):
                    try:
                        op()
                    except OSError:
                        pass
            self._conns.clear()

    def restore(self) -> None:
        if self._listener is None:
            self._listen()

    def stop(self) -> None:
        self.cut()
