"""The servers' box (issue 37): a cgroup like the shipped unit's `MemoryMax=2G` (no swap) with 2
cores (`cpu.max 200000 100000`), each server moved in before it execs. cgroup v2 where the memory
controller is on the unified hierarchy; else the v1 memory and cpu hierarchies (a hybrid mount,
as on this project's machines). Peak and OOM kills read from the kernel's own counters."""
import os
import threading
import time

MEMORY_MAX = 2 * 1024 ** 3
CPU_QUOTA, CPU_PERIOD = 200_000, 100_000  # 2 cores


def _read(path):
    with open(path) as f:
        return f.read()


def _write(path, text):
    with open(path, "w") as f:
        f.write(text)


def _mounts():
    with open("/proc/self/mounts") as f:
        for line in f:
            _, point, kind, options = line.split()[:4]
            yield point, kind, options.split(",")


class Group:
    """`name` under the cgroup root (v2) or under the memory and cpu roots (v1). `why_not` says
    why there is none (then every method is a no-op and the rows that need it FAIL)."""

    def __init__(self, name):
        self.name, self.version, self.dirs, self.why_not = name, None, [], None
        self.memory_dir = self.cpu_dir = None
        try:
            self._make()
        except OSError as error:
            self.why_not = f"{type(error).__name__}: {error}"
            self.remove()
        self._samples = {"peak": 0}
        self._sampling = None

    def _make(self):
        v2 = next((p for p, k, _ in _mounts() if k == "cgroup2" and "memory" in _read(f"{p}/cgroup.controllers").split()), None)
        if v2:
            self.version = 2
            wanted = [c for c in ("memory", "cpu") if c in _read(f"{v2}/cgroup.controllers").split()]
            enabled = _read(f"{v2}/cgroup.subtree_control").split()
            missing = [c for c in wanted if c not in enabled]
            if missing:  # the root may have processes of its own: only a real root allows it
                _write(f"{v2}/cgroup.subtree_control", " ".join("+" + c for c in missing))
            path = f"{v2}/{self.name}"
            os.mkdir(path)
            self.dirs = [path]
            self.memory_dir = self.cpu_dir = path
            _write(f"{path}/memory.max", str(MEMORY_MAX))
            if os.path.exists(f"{path}/memory.swap.max"):
                _write(f"{path}/memory.swap.max", "0")
            if "cpu" in wanted:
                _write(f"{path}/cpu.max", f"{CPU_QUOTA} {CPU_PERIOD}")
            else:
                self.cpu_dir = None
            return
        roots = {}
        for point, kind, options in _mounts():
            if kind == "cgroup":
                for controller in ("memory", "cpu"):
                    if controller in options:
                        roots.setdefault(controller, point)
        if "memory" not in roots:
            raise OSError("no cgroup2 hierarchy with the memory controller and no cgroup v1 memory hierarchy mounted")
        self.version = 1
        self.memory_dir = f"{roots['memory']}/{self.name}"
        os.mkdir(self.memory_dir)
        self.dirs.append(self.memory_dir)
        _write(f"{self.memory_dir}/memory.limit_in_bytes", str(MEMORY_MAX))
        if os.path.exists(f"{self.memory_dir}/memory.memsw.limit_in_bytes"):
            _write(f"{self.memory_dir}/memory.memsw.limit_in_bytes", str(MEMORY_MAX))  # = no swap
        if "cpu" in roots:
            self.cpu_dir = f"{roots['cpu']}/{self.name}"
            os.mkdir(self.cpu_dir)
            self.dirs.append(self.cpu_dir)
            _write(f"{self.cpu_dir}/cpu.cfs_period_us", str(CPU_PERIOD))
            _write(f"{self.cpu_dir}/cpu.cfs_quota_us", str(CPU_QUOTA))

    @property
    def usable(self):
        return self.why_not is None

    def describe(self):
        if not self.usable:
            return f"no cgroup: {self.why_not}"
        cpu = "2 cores" if self.cpu_dir else "no cpu controller"
        return f"cgroup v{self.version} {', '.join(self.dirs)}: memory max {mb(MEMORY_MAX):.0f} MB, no swap, {cpu}"

    def join_self(self):
        """Moves the calling process in (a server's preexec, before it execs)."""
        for path in dict.fromkeys(self.dirs):
            _write(f"{path}/cgroup.procs", str(os.getpid()))

    def oom_kills(self):
        """The kernel's count of OOM kills in the group (v2 memory.events, v1 memory.oom_control)."""
        if not self.usable:
            return 0
        source = "memory.events" if self.version == 2 else "memory.oom_control"
        for line in _read(f"{self.memory_dir}/{source}").splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill":
                return int(value)
        return 0

    def current(self):
        if not self.usable:
            return 0
        return int(_read(f"{self.memory_dir}/{'memory.current' if self.version == 2 else 'memory.usage_in_bytes'}"))

    def kernel_peak(self):
        """The group's peak since it was made (v2 memory.peak where the kernel has it, v1
        memory.max_usage_in_bytes), or None."""
        if not self.usable:
            return None
        path = f"{self.memory_dir}/{'memory.peak' if self.version == 2 else 'memory.max_usage_in_bytes'}"
        return int(_read(path)) if os.path.exists(path) else None

    def start_window(self):
        """A new peak window: memory.current sampled every 20 ms (the kernel's peak counts the
        whole run, and v2's cannot be reset by every kernel)."""
        self.stop_window()
        self._samples = {"peak": self.current()}
        stop = threading.Event()

        def sample():
            while not stop.wait(0.02):
                try:
                    self._samples["peak"] = max(self._samples["peak"], self.current())
                except OSError:
                    return

        thread = threading.Thread(target=sample, daemon=True, name="cgroup sampler")
        thread.start()
        self._sampling = (stop, thread)

    def stop_window(self):
        """The sampled peak of the window, in bytes."""
        if self._sampling:
            stop, thread = self._sampling
            stop.set()
            thread.join()
            self._sampling = None
            try:
                self._samples["peak"] = max(self._samples["peak"], self.current())
            except OSError:
                pass
        return self._samples["peak"]

    def remove(self):
        """rmdir, once its processes have gone (a killed server may take a moment to leave)."""
        for path in reversed(self.dirs):
            for _ in range(50):
                try:
                    os.rmdir(path)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.1)
        self.dirs = [p for p in self.dirs if os.path.exists(p)]


def mb(value):
    return value / 1024 ** 2
