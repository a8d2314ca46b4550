"""The servers of the imgproxy shape, each set up as imgproxy's image-servers-benchmark sets up its
own: the origin maps every request's own name back to its source file (no cache can answer), thumbor
runs with their thumbor.conf.in, the libvips reference as imgproxy runs libvips, and webimage serve
with its admin listener on a port of its own (its /metrics is read around each pass)."""
import os
import textwrap
import urllib.request

from . import procs, servers

# From imgproxy/image-servers-benchmark thumbor/thumbor.conf.in (the Makefile sets the thread pool
# to nproc, 2 here); unsafe URLs, as their k6.js asks.
THUMBOR_CONF = """\
ALLOW_UNSAFE_URL = True
PROGRESSIVE_JPEG = True
PILLOW_RESAMPLING_FILTER = 'LANCZOS'
AVIF_SPEED = 10
PRESERVE_EXIF_COPYRIGHT_INFO = True
ENGINE_THREADPOOL_SIZE = 2
LOADER = 'thumbor.loaders.http_loader'
STORAGE = 'thumbor.storages.no_storage'
RESULT_STORAGE = None
ENGINE = 'thumbor.engines.pil'
"""


class Origin(servers.Origin):
    """nginx serving /src/FORMAT/NNN-COPY.EXT from the file NNN.EXT."""

    def command(self):
        body = textwrap.dedent(f"""\
            root {self.root};
            location /src/ {{ rewrite "^/src/(\\w+)/(\\d+)-\\d+\\.(\\w+)$" /src/$1/$2.$3 break; }}""")
        return servers.nginx_conf(self.work, self.port, body)


class Thumbor(servers.Thumbor):
    """thumbor 7.8, one process, configured as imgproxy's benchmark configures it."""

    def command(self):
        conf = os.path.join(self.work, "thumbor.conf")
        with open(conf, "w") as f:
            f.write(THUMBOR_CONF)
        thumbor = os.path.join(os.path.dirname(self.python), "thumbor")
        return [thumbor, "-p", str(self.port), "-i", "127.0.0.1", "-c", conf, "-l", "error"]


class Pyvips(servers.Pyvips):
    """The libvips reference in the shape: every format, imgproxy's encoder settings (progressive
    JPEG, AVIF effort 0 = its speed 9, metadata stripped) and libvips' own threads off, as
    imgproxy runs it (it works on requests in parallel instead)."""

    env = {**os.environ, "VIPS_CONCURRENCY": "1"}

    def command(self):
        return super().command() + ["--shape"]


class WebImage(servers.WebImage):
    """webimage serve with its admin listener (GET /metrics) on a free port."""

    def command(self):
        self.admin_port = procs.free_port()
        return super().command() + ["--admin-port", str(self.admin_port)]

    def metrics(self):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.admin_port}/metrics", timeout=10) as reply:
            return reply.read().decode()
