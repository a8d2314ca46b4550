"""Connections that send a request head slowly and never finish it (issue 37, item 6): each
opens, then sends one ~1 KB header line every `interval` seconds towards a 60 KB head. One
thread watches them all and notes when the server closes each (or answers it, 408/431)."""
import selectors
import socket
import threading
import time


class Slowloris:
    def __init__(self, port, count, head_bytes=60_000, line_bytes=1000, interval=0.5):
        self.port, self.count, self.head_bytes = port, count, head_bytes
        self.line = b"X-Slow: " + b"a" * (line_bytes - 10) + b"\r\n"
        self.interval = interval
        self.opened = 0
        self.refused = 0  # connections the server did not even accept
        self.closed_after = []  # seconds from its open to the server's close, per closed connection
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True, name="slowloris")

    def start(self):
        self.started = time.monotonic()
        self.thread.start()
        return self

    def open_now(self):
        return self.opened - len(self.closed_after)

    def stop(self):
        self.stopping.set()
        self.thread.join()

    def _run(self):
        selector = selectors.DefaultSelector()
        sent = {}
        for _ in range(self.count):
            try:
                sock = socket.create_connection(("127.0.0.1", self.port), timeout=5)
                sock.sendall(b"GET /unsafe/10x10/slow.png HTTP/1.1\r\nHost: hostile\r\n")
            except OSError:
                self.refused += 1
                continue
            sock.setblocking(False)
            selector.register(sock, selectors.EVENT_READ, time.monotonic())
            sent[sock] = 0
            self.opened += 1
        next_line = time.monotonic() + self.interval
        while sent and not self.stopping.is_set():
            for key, _ in selector.select(timeout=max(0.0, next_line - time.monotonic())):
                self._read(key, selector, sent)
            if time.monotonic() >= next_line:
                next_line += self.interval
                for sock in list(sent):
                    if sent[sock] + len(self.line) < self.head_bytes:
                        try:
                            sock.send(self.line)
                            sent[sock] += len(self.line)
                        except BlockingIOError:
                            pass  # the server stopped reading: the head stays where it is
                        except OSError:
                            self._closed(sock, selector, sent)
        for sock in list(sent):
            selector.unregister(sock)
            sock.close()

    def _read(self, key, selector, sent):
        try:
            data = key.fileobj.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:  # closed (an answer such as 408 or 431 comes first, then the close)
            self._closed(key.fileobj, selector, sent)

    def _closed(self, sock, selector, sent):
        opened = selector.get_key(sock).data
        self.closed_after.append(time.monotonic() - opened)
        selector.unregister(sock)
        sock.close()
        del sent[sock]
