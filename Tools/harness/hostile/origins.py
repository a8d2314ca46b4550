"""The origins the attacks aim at (standard library only): each a threaded HTTP server that counts
the requests it sees, so a check can tell whether the image server reached it."""
import socket
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Origin:
    """Serves `files` (name -> (content type, bytes)) at any path ending in that name; `redirects`
    (path -> Location) answer 302; paths under /slow/ trickle their file over `slow_seconds`; paths
    under /drip/ promise a large body and send one byte every `drip_seconds` (just inside the
    server's idle timeout) until the server hangs up — or `drip_cap` seconds, so the harness ends."""

    def __init__(self, address, port, files, redirects=None, slow_seconds=5.0, drip_seconds=1.5, drip_cap=120):
        self.files = files
        self.drip_seconds, self.drip_cap = drip_seconds, drip_cap
        self.dripping = 0  # /drip/ bodies still being sent
        self.connections = 0
        self.drip_started = 0
        self.redirects = redirects or {}
        self.slow_seconds = slow_seconds
        self.paths = Counter()
        self.slow_started = None  # when the last slow body began
        self.hosts = Counter()
        self.lock = threading.Lock()
        origin = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                with origin.lock:
                    origin.paths[self.path] += 1
                    origin.hosts[self.headers.get("Host", "")] += 1
                origin.answer(self)

            def log_message(self, *args):
                pass

        class Quiet(ThreadingHTTPServer):
            daemon_threads = True
            address_family = socket.AF_INET6 if ":" in address else socket.AF_INET

            def verify_request(self, request, client_address):
                with origin.lock:
                    origin.connections += 1  # every connection, a request sent on it or not
                return True

            def handle_error(self, request, client_address):
                pass  # the image server hanging up mid-body (a cancelled download) is no error here

        self.httpd = Quiet((address, port), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True, name=f"origin {address}").start()

    def total(self):
        with self.lock:
            return sum(self.paths.values())

    def seen(self, prefix):
        """Requests whose path starts with `prefix`."""
        with self.lock:
            return sum(n for path, n in self.paths.items() if path.startswith(prefix))

    def answer(self, handler):
        path = handler.path.split("?", 1)[0]
        if path in self.redirects:
            handler.send_response(302)
            handler.send_header("Location", self.redirects[path])
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        if path.startswith("/drip/"):
            self._drip(handler)
            return
        name = path.rsplit("/", 1)[-1]
        if name not in self.files:
            handler.send_error(404)
            return
        content_type, body = self.files[name]
        handler.send_response(200)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        if not path.startswith("/slow/"):
            handler.wfile.write(body)
            return
        # A busy download: the body in 20 pieces spread over slow_seconds.
        with self.lock:
            self.slow_started = time.monotonic()
        piece = max(1, len(body) // 20 + 1)
        for start in range(0, len(body), piece):
            handler.wfile.write(body[start:start + piece])
            handler.wfile.flush()
            time.sleep(self.slow_seconds / 20)

    def _drip(self, handler):
        handler.send_response(200)
        handler.send_header("Content-Type", "image/png")
        handler.send_header("Content-Length", str(10 * 1024 * 1024))
        handler.end_headers()
        with self.lock:
            self.dripping += 1
            self.drip_started += 1
        try:
            handler.wfile.write(b"\x89PNG\r\n\x1a\n")
            handler.wfile.flush()
            stop = time.monotonic() + self.drip_cap
            while time.monotonic() < stop:
                time.sleep(self.drip_seconds)
                handler.wfile.write(b"\0")
                handler.wfile.flush()
        except OSError:
            pass  # the server hung up: the download was cancelled
        finally:
            with self.lock:
                self.dripping -= 1

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()
