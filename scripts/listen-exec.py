"""listen-exec.py HOST PORT CMD...: listen on TCP HOST:PORT here, then exec CMD with the socket as fd 3.

`make run` starts the web server inside simnet's network namespace (so its "check now" of a host
or switch reaches the simulated network, and nothing else): the listening socket is made first,
in the caller's (root) namespace, where browsers and curl find 127.0.0.1:PORT; CMD (`ip netns exec
NS gunicorn ... --bind fd://3`) inherits it. A socket keeps the namespace it was made in.
"""
from __future__ import annotations

import os
import socket
import sys

FD = 3


def main(argv: list[str]) -> None:
    if len(argv) < 4:
        sys.exit("usage: listen-exec.py HOST PORT CMD...")
    host, port, cmd = argv[1], int(argv[2]), argv[3:]
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)    # gunicorn's default backlog
    if sock.fileno() != FD:
        os.dup2(sock.fileno(), FD)    # dup2 makes fd 3 inheritable
        sock.close()
    else:
        os.set_inheritable(FD, True)
    os.execvp(cmd[0], cmd)


if __name__ == "__main__":
    main(sys.argv)
