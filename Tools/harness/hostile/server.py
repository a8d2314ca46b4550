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


_help = {}


def serve_flags(binary):
    """The long flags `webimage serve --help` lists (rows use a flag only once the server has it)."""
    if binary not in _help:
        text = subprocess.run([binary, "serve", "--help"], capture_output=True, text=True, timeout=30).stdout
        _help[binary] = set(re.findall(r"--[a-z][a-z0-9-]+", text))
    return _help[binary]


def free_port(address="127.0.0.1"):
    import socket
    with socket.socket() as sock:
        sock.bind((address, 0))
        return sock.getsockname()[1]


class Server:
    def __init__(self, binary, args, env, log_path, name, host="127.0.0.1", group=None, admin_port=None):
        self.binary, self.args, self.env, self.log_path, self.name = binary, args, env, log_path, name
        self.host, self.group = host, group  # group: a cgroup.Group the server runs in
        # Where /metrics and purge answer: the admin listener when the server has one.
        self.admin_port = admin_port
        self.peak_kb = 0  # highest VmHWM seen across resets
        self.restarts = 0
        self.start()

    def start(self):
        self.oom_seen = self.group.oom_kills() if self.group is not None else 0
        self.log = open(self.log_path, "ab")
        admin = ["--admin-port", str(self.admin_port)] if self.admin_port else []

        def prepare():
            _die_with_parent()
            if self.group is not None and self.group.usable:
                self.group.join_self()

        self.proc = subprocess.Popen(
            [self.binary, "serve", "--host", self.host, "--port", "0", *admin, *self.args],
            stdout=subprocess.PIPE, stderr=self.log, env=self.env, preexec_fn=prepare)
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
        # Keep draining stdout so the server never blocks on a full pipe; its settings lines kept.
        self.settings = []

        def drain():
            for line in self.proc.stdout:
                if len(self.settings) < 100:
                    self.settings.append(line.decode("utf-8", "replace").rstrip())

        threading.Thread(target=drain, daemon=True).start()

    @property
    def control_port(self):
        return self.admin_port or self.port

    def exit_reason(self):
        """How the process ended, naming an OOM kill when the cgroup counted one."""
        why = _status(self.proc.returncode)
        if self.group is not None and self.group.oom_kills() > self.oom_seen:
            self.oom_seen = self.group.oom_kills()
            why += ", OOM-killed in its cgroup"
        return f"server exited ({why})"

    def cpu_seconds(self):
        """utime + stime of the process so far (/proc/PID/stat), or None."""
        try:
            with open(f"/proc/{self.proc.pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            return None

    def alive(self):
        """None when the process runs and /healthz answers 200, else why not."""
        if self.proc.poll() is not None:
            return self.exit_reason()
        try:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
            conn.request("GET", "/healthz")
            status = conn.getresponse().status
            conn.close()
        except OSError as error:
            try:
                self.proc.wait(3)  # a crashing process may still be writing its backtrace
                return self.exit_reason()
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
