"""nginx for the Python benchmarks (P4 in Tools/harness/peerbench_fetch.py, Tools/harness/bench-bulk-prefetch): a
throwaway server on 127.0.0.1 serving a folder, over http and, when given a certificate, https on a
second port, with an access log when asked; and the test certificate authority the https clients
are told to trust (made with the openssl command, never committed). Bash scripts use
Tools/harness/lib/loopback-nginx.sh."""
import os
import shutil
import socket
import subprocess
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_test_certificate(folder):
    """A self-signed EC certificate for 127.0.0.1 that is its own CA (what every client's --cacert
    takes); returns (certificate path, key path)."""
    cert, key = os.path.join(folder, "p4-cert.pem"), os.path.join(folder, "p4-key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    os.chmod(key, 0o644)  # nginx's worker runs as nobody when started by root
    return cert, key


class Nginx:
    """nginx serving `root` on 127.0.0.1:port (and with `tls` = (certificate, key) also on
    tls_port over https) from a throwaway prefix; with `access_log` (a path) one line per request:
    `URI STATUS CONNECTION REQUEST-ON-CONNECTION`. Stopped by stop()."""

    def __init__(self, root, tmp, tls=None, access_log=None):
        self.binary = shutil.which("nginx") or "/usr/sbin/nginx"
        self.port = free_port()
        self.tls_port = None
        while tls and self.tls_port in (None, self.port):  # two free ports, not the same one twice
            self.tls_port = free_port()
        self.prefix = os.path.join(tmp, "nginx")
        os.makedirs(os.path.join(self.prefix, "logs"), exist_ok=True)
        conf = os.path.join(self.prefix, "nginx.conf")
        temp = lambda name: os.path.join(self.prefix, name)
        secure = (f"        listen 127.0.0.1:{self.tls_port} ssl;\n        ssl_certificate {tls[0]};\n"
                  f"        ssl_certificate_key {tls[1]};\n        ssl_session_cache shared:p4:1m;\n") if tls else ""
        logging = (f"    log_format uri '$request_uri $status $connection $connection_requests';\n"
                   f"    access_log {access_log} uri;") if access_log else "    access_log off;"
        with open(conf, "w") as f:
            f.write(f"""
worker_processes 1;
daemon off;
pid {temp('nginx.pid')};
error_log {temp('logs/error.log')} warn;
events {{ worker_connections 1024; }}
http {{
{logging}
    sendfile on;
    tcp_nopush on;
    keepalive_requests 100000;
    keepalive_timeout 60;
    types {{ image/jpeg jpg; image/png png; image/gif gif; image/webp webp; image/avif avif; image/jxl jxl; text/plain txt; }}
    client_body_temp_path {temp('client')};
    proxy_temp_path {temp('proxy')};
    fastcgi_temp_path {temp('fastcgi')};
    uwsgi_temp_path {temp('uwsgi')};
    scgi_temp_path {temp('scgi')};
    server {{
        listen 127.0.0.1:{self.port};
{secure}        root {root};
    }}
}}
""")
        self.process = subprocess.Popen([self.binary, "-p", self.prefix, "-e", temp("logs/error.log"), "-c", conf],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError("nginx exited: " + self.process.stderr.read().decode(errors="replace")[-500:])
            try:
                for port in filter(None, (self.port, self.tls_port)):
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("nginx did not start listening within 10 s")

    def url(self, name, secure=False):
        return f"https://127.0.0.1:{self.tls_port}/{name}" if secure else f"http://127.0.0.1:{self.port}/{name}"

    def version(self):
        result = subprocess.run([self.binary, "-v"], capture_output=True, text=True)
        return (result.stderr or result.stdout).strip().replace("nginx version: ", "")

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()  # SIGTERM: nginx's fast shutdown
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
