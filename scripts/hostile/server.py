"""One `webimage serve` process under attack: started on a free port, watched through /proc."""
import ctypes
import http.client
import os
import re
import signal
import subprocess
import threading

PR_SET_PDEATHSIG = 1


def _die_with_parent():
    # The server must not outlive this script, however the script ends.
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    os.umask(0o022)  # a usual umask, so the cache modes checked are the server's own doing


class Server:
    def __init__(self, binary, args, env, log_path, name):
        self.binary, self.args, self.env, self.log_path, self.name = binary, args, env, log_path, name
        self.peak_kb = 0  # highest VmHWM seen across resets
        self.restarts = 0
        self.start()

    def start(self):
        self.log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            [self.binary, "serve", "--host", "127.0.0.1", "--port", "0", *self.args],
            stdout=subprocess.PIPE, stderr=self.log, env=self.env, preexec_fn=_die_with_parent)
        port = []
        reader = threading.Thread(target=self._read_port, args=(port,), daemon=True)
        reader.start()
        reader.join(30)
        if not port:
            self.proc.kill()
            raise RuntimeError(f"{self.name}: no 'listening on' line within 30 s (log: {self.log_path})")
        self.port = port[0]

    def _read_port(self, port):
        for line in self.proc.stdout:
            match = re.search(rb"listening on http://[^:]+:(\d+)", line)
            if match:
                port.append(int(match.group(1)))
                break
        # Keep draining stdout so the server never blocks on a full pipe.
        threading.Thread(target=lambda: [None for _ in self.proc.stdout], daemon=True).start()

    def alive(self):
        """None when the process runs and /healthz answers 200, else why not."""
        if self.proc.poll() is not None:
            return f"server exited ({_status(self.proc.returncode)})"
        try:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
            conn.request("GET", "/healthz")
            status = conn.getresponse().status
            conn.close()
        except OSError as error:
            try:
                self.proc.wait(3)  # a crashing process may still be writing its backtrace
                return f"server exited ({_status(self.proc.returncode)})"
            except subprocess.TimeoutExpired:
                return f"/healthz unreachable ({error})"
        return None if status == 200 else f"/healthz answered {status}"

    def restart(self):
        self.note_peak()
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.log.close()
        self.restarts += 1
        self.start()

    def status_kb(self, field):
        try:
            with open(f"/proc/{self.proc.pid}/status") as status:
                for line in status:
                    if line.startswith(field + ":"):
                        return int(line.split()[1])
        except OSError:
            pass
        return 0

    def rss_mb(self):
        return self.status_kb("VmRSS") / 1024

    def note_peak(self):
        self.peak_kb = max(self.peak_kb, self.status_kb("VmHWM"))

    def reset_peak(self):
        """Starts a new peak window (VmHWM reset by clear_refs 5), keeping the overall peak."""
        self.note_peak()
        try:
            with open(f"/proc/{self.proc.pid}/clear_refs", "w") as refs:
                refs.write("5")
        except OSError:
            pass

    def window_peak_mb(self):
        return self.status_kb("VmHWM") / 1024

    def overall_peak_mb(self):
        self.note_peak()
        return self.peak_kb / 1024

    def stop(self, timeout=15):
        """SIGTERM (the server drains and flushes its caches), then SIGKILL past `timeout`."""
        if self.proc.poll() is None:
            self.note_peak()
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        return self.proc.returncode


def _status(code):
    return f"signal {signal.Signals(-code).name}" if code < 0 else f"status {code}"
