"""Processes: free ports, waiting for a server to answer, and a process tree's CPU time and memory
read from /proc (a server may fork workers: thumbor --processes, nginx's workers)."""
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_answering(url, seconds=60, process=None):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"{url}: the server exited with {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as reply:
                reply.read()
                return
        except urllib.error.HTTPError:
            return  # an HTTP status of any kind: the server is up
        except Exception:
            time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer within {seconds} s")


def tree(pid):
    """pid and every descendant alive now."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                children.setdefault(int(fields[1]), []).append(int(entry))
            except OSError:
                pass
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        todo.extend(children.get(p, []))
    return found


def cpu_seconds(pid):
    """User + system CPU of the tree, children that were waited for included."""
    total = 0
    for p in tree(pid):
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += sum(int(v) for v in fields[11:15])  # utime stime cutime cstime
        except OSError:
            pass
    return total / CLOCK_TICKS


def memory_mb(pid, field):
    """Sum over the tree of a /proc/PID/status field in MB: VmRSS (now) or VmHWM (peak)."""
    total = 0
    for p in tree(pid):
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith(field + ":"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def stop(process, seconds=10):
    """SIGTERM to the process's whole session (it was started in one of its own), SIGKILL after
    `seconds`; forked workers never outlive a run."""
    try:
        group = os.getpgid(process.pid)
    except ProcessLookupError:
        return
    os.killpg(group, signal.SIGTERM)
    try:
        process.wait(seconds)
    except subprocess.TimeoutExpired:
        os.killpg(group, signal.SIGKILL)
        process.wait()
    try:
        os.killpg(group, signal.SIGKILL)  # workers that outlived their parent
    except ProcessLookupError:
        pass
