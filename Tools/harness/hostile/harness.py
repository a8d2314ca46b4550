"""What every check uses: a raw HTTP GET with a timeout, the size of a returned image, and the
verdict lines (`ok` / `FAIL` with a reason)."""
import http.client
import io
import sys
import time

from PIL import Image


class Answer:
    def __init__(self, status=None, body=b"", error=None, headers=None):
        self.status, self.body, self.error = status, body, error
        self.headers = headers or {}  # lower-case name -> value
        self.seconds = None  # from sending to the whole body read

    def __str__(self):
        return str(self.status) if self.status is not None else f"no answer ({self.error})"

    def why(self):
        """The status with the server's own sentence when it sent one (a refusal's reason)."""
        text = self.body[:160].decode("utf-8", "replace").strip() if self.status and self.status >= 400 else ""
        return f"{self} ({text})" if text else str(self)

    @property
    def refused(self):
        return self.status is not None and 400 <= self.status < 500


def get(port, path, timeout=30, headers=None, method="GET"):
    """GET `path` exactly as written (no re-encoding) from the server on 127.0.0.1:`port`;
    `headers` add to (or replace) the default Accept."""
    fields = {"Accept": "image/png,image/jpeg,image/gif", **(headers or {})}
    started = time.monotonic()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        conn.putrequest(method, path, skip_accept_encoding=True)
        for name, value in fields.items():
            conn.putheader(name, value)
        conn.endheaders()
        response = conn.getresponse()
        answer = Answer(response.status, response.read(), headers={k.lower(): v for k, v in response.getheaders()})
        conn.close()
    except (OSError, http.client.HTTPException) as error:
        answer = Answer(error=f"{type(error).__name__}: {error}")
    answer.seconds = time.monotonic() - started
    return answer


def image_size(body):
    """(width, height) of an encoded image, or None when it is not one Pillow reads."""
    try:
        return Image.open(io.BytesIO(body)).size
    except Exception:
        return None


def progress(text):
    print(f"-- {text}", flush=True)


class Report:
    def __init__(self):
        self.failures = 0
        self.passes = 0

    def verdict(self, label, passed, reason):
        print(f"{'ok  ' if passed else 'FAIL'} {label}: {reason}", flush=True)
        if passed:
            self.passes += 1
        else:
            self.failures += 1

    def judge(self, label, server, passed, reason):
        """The verdict on one attack, which also needs `server` alive after it (restarted when not,
        so the later checks still run)."""
        why = server.alive()
        if why is not None:
            passed, reason = False, f"{reason}; {why} (restarted)"
            server.restart()
        self.verdict(label, passed, reason)


def fail_fast(message):
    print(f"hostile-check: {message}", file=sys.stderr)
    sys.exit(2)


def metrics(port):
    """The server's /metrics on `port` (the admin listener's when it has one): series -> value."""
    answer = get(port, "/metrics", timeout=10, headers={"Accept": "text/plain"})
    series = {}
    if answer.status == 200:
        for line in answer.body.decode("utf-8", "replace").splitlines():
            if line and not line.startswith("#"):
                name, _, value = line.rpartition(" ")
                try:
                    series[name] = float(value)
                except ValueError:
                    pass
    return series
