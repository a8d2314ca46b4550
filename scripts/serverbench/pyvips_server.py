"""The pyvips reference server: `python pyvips_server.py PORT ORIGIN_PORT QUALITY`.

Answers `/unsafe/fit-in/WxH/HOST:PORT/PATH` by fetching PATH from the origin (one keep-alive
connection per thread), `pyvips.Image.thumbnail_buffer` (libvips' shrink-on-load: JPEG DCT scaling,
then a reduce) and a JPEG at QUALITY. One thread per connection; libvips releases the GIL while it
works, so both cores are used. libvips' operation cache is off: every request does the work."""
import http.client
import http.server
import re
import sys
import threading

import pyvips

pyvips.cache_set_max(0)
PATTERN = re.compile(r"^/unsafe/fit-in/(\d+)x(\d+)/[^/]+(/.*)$")
port, origin_port, quality = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
local = threading.local()


def fetch(path):
    for _ in range(2):
        if getattr(local, "connection", None) is None:
            local.connection = http.client.HTTPConnection("127.0.0.1", origin_port, timeout=10)
        try:
            local.connection.request("GET", path)
            reply = local.connection.getresponse()
            return reply.status, reply.read()
        except (http.client.HTTPException, OSError):
            local.connection.close()
            local.connection = None
    raise OSError("origin unreachable")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes; with Nagle on, the body waits for the client's
    # delayed ACK (40 ms a response).
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def answer(self, status, body, content_type="text/plain"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/healthz":
            return self.answer(200, b"ok\n")
        match = PATTERN.match(self.path)
        if not match:
            return self.answer(400, b"bad path\n")
        status, data = fetch(match.group(3))
        if status != 200:
            return self.answer(502, b"source failed\n")
        image = pyvips.Image.thumbnail_buffer(data, int(match.group(1)), height=int(match.group(2)), size="down")
        self.answer(200, image.write_to_buffer(".jpg", Q=quality), "image/jpeg")


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024


Server(("127.0.0.1", port), Handler).serve_forever()
