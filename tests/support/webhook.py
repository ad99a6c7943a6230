"""A real local HTTP receiver for notification tests: every POSTed JSON body, with its arrival
time, in the order they came (ThreadingHTTPServer on 127.0.0.1, a free port)."""
from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def serve() -> Iterator[tuple[int, list[tuple[float, dict]]]]:
    """Yield (port, calls); calls holds (arrival time, body) per POST. Use from a fixture."""
    calls: list[tuple[float, dict]] = []

    class Hook(BaseHTTPRequestHandler):
        def do_POST(self):
            calls.append((time.time(), json.loads(self.rfile.read(int(self.headers["Content-Length"])))))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Hook)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1], calls
    finally:
        server.shutdown()
