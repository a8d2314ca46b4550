"""Processes the fleet starts, found again by pid (and checked by program name, so a reused pid
is never signalled), and the small waits around them."""
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request


class FleetError(Exception):
    """A step that failed, said in one line."""


def free_port():
    """A loopback port free right now (bound, then let go)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spawn(argv, log_path, env=None):
    """Starts argv in its own session (a Ctrl-C in the shell does not reach it), output to log_path."""
    log = open(log_path, "ab")
    try:
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                   env=env, start_new_session=True)
    finally:
        log.close()
    return process.pid


def alive(pid, marker):
    """Whether pid runs as the program named marker (a zombie or a reused pid is not ours)."""
    if not pid:
        return False
    try:
        os.waitpid(pid, os.WNOHANG)  # reaps it when it is our child and has exited
    except ChildProcessError:
        pass
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            if f.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                return False
        # comm, not cmdline: redis and nginx rewrite their argv in place, and a read mid-rewrite is empty.
        with open(f"/proc/{pid}/comm", "rb") as f:
            return f.read().strip() == marker.encode()[:15]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


def signal_pid(pid, marker, sig):
    """Sends sig to pid when it is still ours; returns whether it was."""
    if not alive(pid, marker):
        return False
    try:
        os.kill(pid, sig)
        return True
    except ProcessLookupError:
        return False


def wait_gone(pid, marker, timeout):
    deadline = time.monotonic() + timeout
    while alive(pid, marker):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def stop(pid, marker, sig=signal.SIGTERM, timeout=10.0):
    """sig, then SIGKILL after timeout: nothing of ours is left running."""
    if signal_pid(pid, marker, sig) and not wait_gone(pid, marker, timeout):
        signal_pid(pid, marker, signal.SIGKILL)
        wait_gone(pid, marker, 5)


def http_status(url, timeout=2.0):
    """The status of GET url, or None when nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            response.read()
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except (OSError, urllib.error.URLError):
        return None


def http_text(url, timeout=2.0):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.read().decode("utf-8", "replace")
    except (OSError, urllib.error.URLError):
        return ""


def redis_ping(port, timeout=1.0):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.sendall(b"PING\r\n")
            return s.recv(64).startswith(b"+PONG")
    except OSError:
        return False


def wait_until(condition, timeout, what, pid=None, marker=None, log=None):
    """Polls condition; fails naming what (and the log's tail) on timeout or when pid dies."""
    deadline = time.monotonic() + timeout
    while not condition():
        if pid is not None and not alive(pid, marker):
            raise FleetError(f"{what}: the process exited" + tail(log))
        if time.monotonic() > deadline:
            raise FleetError(f"{what}: not after {timeout:.0f} s" + tail(log))
        time.sleep(0.05)


def tail(path, lines=15):
    if not path or not os.path.exists(path):
        return ""
    with open(path, "rb") as f:
        text = f.read()[-4000:].decode("utf-8", "replace")
    return f"\n--- {path}:\n" + "\n".join(text.splitlines()[-lines:])
