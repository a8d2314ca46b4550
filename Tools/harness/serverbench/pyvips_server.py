"""The pyvips reference server: `python pyvips_server.py PORT ORIGIN_PORT QUALITY [--shape]`.

Answers `/unsafe/fit-in/WxH/HOST:PORT/PATH` by fetching PATH from the origin (one keep-alive
connection per thread), `pyvips.Image.thumbnail_buffer` (libvips' shrink-on-load: JPEG DCT scaling,
then a reduce) and a JPEG at QUALITY. One thread per connection; libvips releases the GIL while it
works, so both cores are used. libvips' operation cache is off: every request does the work.

--shape (imgproxy's benchmark): `fit-in/WxH/filters:format(F):quality(Q)/HOST:PORT/PATH` in JPEG,
PNG, WebP or AVIF at Q, with imgproxy's encoder settings: progressive JPEG, AVIF effort 0 (its
speed 9), metadata stripped; libvips' defaults otherwise (PNG compression 6, WebP effort 4)."""
import http.client
import http.server
import re
import sys
import threading

import pyvips

pyvips.cache_set_max(0)
PATTERN = re.compile(r"^/unsafe/fit-in/(\d+)x(\d+)/(?:filters:([^/]*)/)?[^/]+(/.*)$")
port, origin_port, quality = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
shape = "--shape" in sys.argv[4:]
SHAPE_SAVE = {
    "jpeg": (".jpg", "image/jpeg", {"interlace": True, "strip": True}),
    "png": (".png", "image/png", {"compression": 6, "strip": True}),
    "webp": (".webp", "image/webp", {"strip": True}),
    "avif": (".avif", "image/avif", {"effort": 0, "strip": True}),
}
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
        status, data = fetch(match.group(4))
        if status != 200:
            return self.answer(502, b"source failed\n")
        image = pyvips.Image.thumbnail_buffer(data, int(match.group(1)), height=int(match.group(2)), size="down")
        if not shape:
            return self.answer(200, image.write_to_buffer(".jpg", Q=quality), "image/jpeg")
        filters = dict(re.findall(r"(\w+)\(([^)]*)\)", match.group(3) or ""))
        suffix, content_type, options = SHAPE_SAVE[filters.get("format", "jpeg").replace("jpg", "jpeg")]
        if suffix != ".png":
            options = {**options, "Q": int(filters.get("quality", quality))}
        self.answer(200, image.write_to_buffer(suffix, **options), content_type)


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024


Server(("127.0.0.1", port), Handler).serve_forever()
