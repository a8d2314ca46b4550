"""The three processes of a run, each on a free 127.0.0.1 port: the origin (a threaded
http.server over the fixtures folder), thumbor 7.8 (PIL engine, face + feature detectors, every
built-in filter, no result storage) and `webimage serve` (unsafe URLs, loopback sources)."""
import os
import subprocess
import textwrap
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

from serverbench import procs

# thumbor 7.8's 32 built-in filters (thumbor/filters/*.py), all enabled.
THUMBOR_FILTERS = [
    "autojpg", "background_color", "blur", "brightness", "colorize", "contrast", "convolution", "curve",
    "equalize", "extract_focal", "fill", "focal", "format", "frame", "grayscale", "max_age", "max_bytes",
    "no_upscale", "noise", "proportion", "quality", "redeye", "rgb", "rotate", "round_corner",
    "saturation", "sharpen", "stretch", "strip_exif", "strip_icc", "upscale", "watermark",
]
QUALITY = 80  # thumbor's default JPEG quality, asked of webimage too when it has the flag


class Origin:
    """The fixtures folder over HTTP, in a thread of this process."""

    def __init__(self, folder):
        class Quiet(SimpleHTTPRequestHandler):
            def translate_path(self, path):
                # A path that names no file is answered by its last component (the extract_focal
                # row's source is a thumbor URL: thumbor 7.8 fetches it as it is).
                found = super().translate_path(path)
                return found if os.path.exists(found) else os.path.join(folder, path.split("?")[0].rsplit("/", 1)[-1])

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(Quiet, directory=folder))
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True, name="origin").start()

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class Process:
    health = "/healthz"

    def __init__(self, work, name):
        self.work, self.name = os.path.join(work, name), name
        self.port = procs.free_port()
        self.process = None

    def command(self):
        raise NotImplementedError

    def start(self):
        os.makedirs(self.work, exist_ok=True)
        self.log_path = os.path.join(self.work, "server.log")
        log = open(self.log_path, "w")
        self.process = subprocess.Popen(self.command(), stdout=log, stderr=subprocess.STDOUT, cwd=self.work,
                                        start_new_session=True)
        procs.wait_until_answering(f"http://127.0.0.1:{self.port}{self.health}", process=self.process)
        return self

    def alive(self):
        return self.process is not None and self.process.poll() is None

    def stop(self):
        if self.process:
            procs.stop(self.process)


class Thumbor(Process):
    health = "/healthcheck"

    def __init__(self, work, python):
        super().__init__(work, "thumbor")
        self.python = python

    def command(self):
        conf = os.path.join(self.work, "thumbor.conf")
        filters = ",\n".join(f"    'thumbor.filters.{name}'" for name in THUMBOR_FILTERS)
        with open(conf, "w") as f:
            f.write(textwrap.dedent(f"""\
                ALLOW_UNSAFE_URL = True
                LOADER = 'thumbor.loaders.http_loader'
                STORAGE = 'thumbor.storages.no_storage'
                RESULT_STORAGE = None
                ENGINE = 'thumbor.engines.pil'
                DETECTORS = ['thumbor.detectors.face_detector', 'thumbor.detectors.feature_detector']
                RESPECT_ORIENTATION = True
                QUALITY = {QUALITY}
                """) + f"FILTERS = [\n{filters},\n]\n")
        thumbor = os.path.join(os.path.dirname(self.python), "thumbor")
        return [thumbor, "-p", str(self.port), "-i", "127.0.0.1", "-c", conf, "-l", os.environ.get("THUMBOR_LOG", "warning")]


def serve_help(binary):
    return subprocess.run([binary, "serve", "--help"], capture_output=True, text=True, timeout=60).stdout


class WebImage(Process):
    def __init__(self, work, binary):
        super().__init__(work, "webimage")
        self.binary = binary
        self.help = serve_help(binary)

    def command(self):
        flags = ["--port", str(self.port), "--allow-unsafe", "--allow-loopback-sources",
                 "--cache-dir", os.path.join(self.work, "cache")]
        if "--admin-port" in self.help:
            flags += ["--admin-port", "off"]
        if "--quality-jpeg" in self.help:
            flags += ["--quality-jpeg", str(QUALITY)]
        return [self.binary, "serve", *flags]
