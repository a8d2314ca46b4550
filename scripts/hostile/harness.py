"""What every check uses: a raw HTTP GET with a timeout, the size of a returned image, and the
verdict lines (`ok` / `FAIL` with a reason)."""
import http.client
import io
import sys

from PIL import Image


class Answer:
    def __init__(self, status=None, body=b"", error=None):
        self.status, self.body, self.error = status, body, error

    def __str__(self):
        return str(self.status) if self.status is not None else f"no answer ({self.error})"

    @property
    def refused(self):
        return self.status is not None and 400 <= self.status < 500


def get(port, path, timeout=30):
    """GET `path` exactly as written (no re-encoding) from the server on 127.0.0.1:`port`."""
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        conn.putrequest("GET", path, skip_accept_encoding=True)
        conn.putheader("Accept", "image/png,image/jpeg,image/gif")
        conn.endheaders()
        response = conn.getresponse()
        answer = Answer(response.status, response.read())
        conn.close()
        return answer
    except (OSError, http.client.HTTPException) as error:
        return Answer(error=f"{type(error).__name__}: {error}")


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
