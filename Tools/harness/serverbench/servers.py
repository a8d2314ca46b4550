"""The servers compared, each started fresh (empty caches) on a free loopback port:
webimage serve, thumbor 7.8, nginx image_filter, the pyvips reference server — and two plain
nginx roles: the origin holding the sources, and the static baseline serving variant bytes."""
import os
import subprocess
import textwrap

from . import procs

HERE = os.path.dirname(os.path.abspath(__file__))
QUALITY = 80  # JPEG quality asked of every server


class Server:
    name = "?"
    health = "/"
    env = None  # the environment to start it in; None = this one

    def __init__(self, work):
        self.work = work
        self.port = None
        self.process = None

    def command(self):
        raise NotImplementedError

    def start(self):
        os.makedirs(self.work, exist_ok=True)
        self.port = procs.free_port()
        log = open(os.path.join(self.work, "server.log"), "w")
        # A session of its own: stopping it stops every process it forked (thumbor's and nginx's workers).
        self.process = subprocess.Popen(self.command(), stdout=log, stderr=subprocess.STDOUT, cwd=self.work,
                                        env=self.env, start_new_session=True)
        procs.wait_until_answering(f"http://127.0.0.1:{self.port}{self.health}", process=self.process)
        return self

    def stop(self):
        if self.process:
            procs.stop(self.process)

    @property
    def pid(self):
        return self.process.pid


def nginx_conf(work, port, body, workers=1, modules=""):
    conf = os.path.join(work, "nginx.conf")
    with open(conf, "w") as f:
        f.write(textwrap.dedent(f"""\
            {modules}
            user root;
            worker_processes {workers};
            daemon off;
            master_process on;
            pid {work}/nginx.pid;
            error_log {work}/nginx-error.log;
            events {{ worker_connections 4096; }}
            http {{
              access_log off;
              sendfile on;
              keepalive_requests 1000000;
              types {{ image/jpeg jpg; image/png png; image/webp webp; image/avif avif; }}
              default_type image/jpeg;
              server {{
                listen 127.0.0.1:{port} reuseport;
            {textwrap.indent(body, "    ")}
              }}
            }}
            """))
    return ["nginx", "-c", conf, "-p", work]


class Origin(Server):
    """Where every server fetches its sources from: Debian's nginx, one worker, files on disk."""
    name = "origin (nginx)"

    def __init__(self, work, root):
        super().__init__(work)
        self.root = root

    def command(self):
        return nginx_conf(self.work, self.port, f"root {self.root};")


class StaticNginx(Server):
    """The warm baseline: nginx serving the very bytes a variant request returns, as files."""
    name = "nginx static files"

    def __init__(self, work, root, workers=2):
        super().__init__(work)
        self.root, self.workers = root, workers

    def command(self):
        return nginx_conf(self.work, self.port, f"root {self.root};", workers=self.workers)


class WebImage(Server):
    name = "webimage serve"
    health = "/healthz"

    def __init__(self, work, binary):
        super().__init__(work)
        self.binary = binary

    def command(self):
        return [self.binary, "serve", "--port", str(self.port), "--allow-unsafe", "--allow-loopback-sources",
                "--cache-dir", os.path.join(self.work, "cache")]


class Thumbor(Server):
    """thumbor 7.8 from PyPI with its PIL engine, one process per core, file storage for sources
    and results (so its warm runs are cache hits too; unsafe results are stored)."""
    name = "thumbor 7.8"
    health = "/healthcheck"

    def __init__(self, work, python, processes=2):
        super().__init__(work)
        self.python, self.processes = python, processes

    def command(self):
        conf = os.path.join(self.work, "thumbor.conf")
        with open(conf, "w") as f:
            f.write(textwrap.dedent(f"""\
                ALLOW_UNSAFE_URL = True
                LOADER = 'thumbor.loaders.http_loader'
                STORAGE = 'thumbor.storages.file_storage'
                FILE_STORAGE_ROOT_PATH = '{self.work}/storage'
                RESULT_STORAGE = 'thumbor.result_storages.file_storage'
                RESULT_STORAGE_FILE_STORAGE_ROOT_PATH = '{self.work}/results'
                RESULT_STORAGE_STORES_UNSAFE = True
                QUALITY = {QUALITY}
                """))
        thumbor = os.path.join(os.path.dirname(self.python), "thumbor")
        return [thumbor, "-p", str(self.port), "-i", "127.0.0.1", "-c", conf, "-l", "error",
                "--processes", str(self.processes)]


class ImageFilterNginx(Server):
    """Debian's nginx with ngx_http_image_filter_module (libgd): proxies the source from the origin
    and resizes it to fit the box, as `fit-in/WxH` asks; no cache of its own."""
    name = "nginx image_filter"

    def __init__(self, work, origin_port, workers=2):
        super().__init__(work)
        self.origin_port, self.workers = origin_port, workers

    def command(self):
        body = textwrap.dedent(f"""\
            location ~ ^/unsafe/fit-in/(\\d+)x(\\d+)/[^/]+/(.*)$ {{
              set $w $1;
              set $h $2;
              proxy_pass http://origin/$3;
              proxy_http_version 1.1;
              proxy_set_header Connection "";
              image_filter resize $w $h;
              image_filter_jpeg_quality {QUALITY};
              image_filter_buffer 32M;
            }}
            location / {{ return 404; }}""")
        cmd = nginx_conf(self.work, self.port, body, workers=self.workers,
                         modules="load_module /usr/lib/nginx/modules/ngx_http_image_filter_module.so;")
        conf = cmd[2]
        text = open(conf).read().replace("http {", f"http {{\n  upstream origin {{ server 127.0.0.1:{self.origin_port}; keepalive 64; }}", 1)
        open(conf, "w").write(text)
        return cmd


class Pyvips(Server):
    """A small reference server on pyvips (libvips: the engine under imgproxy, imagor and weserv):
    fetch, thumbnail_buffer (shrink-on-load), JPEG out; no cache."""
    name = "pyvips reference"
    health = "/healthz"

    def __init__(self, work, python, origin_port):
        super().__init__(work)
        self.python, self.origin_port = python, origin_port

    def command(self):
        return [self.python, os.path.join(HERE, "pyvips_server.py"), str(self.port), str(self.origin_port), str(QUALITY)]
