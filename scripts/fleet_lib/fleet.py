"""The fleet's state under $FLEET_DIR and the commands that change it: Redis, N instances of the
release `webimage serve` (each with its own cache directory) and nginx with the site the server
generates (`webimage serve --print-nginx-config`)."""
import getpass
import json
import os
import secrets
import signal
import subprocess
import time
from pathlib import Path

from .processes import (FleetError, alive, free_port, http_status, http_text, redis_ping, signal_pid, spawn, stop,
                        wait_gone, wait_until)

ROOT = Path(__file__).resolve().parent.parent.parent
NGINX = "/usr/sbin/nginx"
# Seconds /readyz says 503 on SIGTERM before an instance stops taking work: short on loopback.
DRAIN_GRACE = os.environ.get("FLEET_DRAIN_GRACE", "1")


def release_binary():
    """The release `webimage` ($WEBIMAGE_BIN, else .build-release/release/webimage, built when missing)."""
    binary = Path(os.environ.get("WEBIMAGE_BIN") or ROOT / ".build-release/release/webimage")
    if not binary.exists():
        if "WEBIMAGE_BIN" in os.environ:
            raise FleetError(f"WEBIMAGE_BIN={binary} does not exist")
        print("fleet: building the release binary (scripts/build-release; ~11 min the first time)", flush=True)
        subprocess.run([str(ROOT / "scripts/build-release")], check=True)
    return str(binary.resolve())


def bootstrap():
    """nginx, redis-server and curl through scripts/bootstrap (it says what to run when not root)."""
    if subprocess.run([str(ROOT / "scripts/bootstrap"), "fleet"]).returncode != 0:
        raise FleetError("scripts/bootstrap fleet failed (see above)")


class Fleet:
    def __init__(self, directory=None, environment=None):
        self.dir = Path(directory or os.environ.get("FLEET_DIR") or ROOT / ".fleet").resolve()
        self.env = dict(environment if environment is not None else os.environ)
        self.state_path = self.dir / "state.json"
        self.state = json.loads(self.state_path.read_text()) if self.state_path.exists() else None

    def save(self):
        self.dir.mkdir(parents=True, exist_ok=True)
        tmp = self.state_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.state, indent=2))
        tmp.replace(self.state_path)

    def require_state(self):
        if not self.state:
            raise FleetError(f"no fleet in {self.dir}: run scripts/fleet up first")
        return self.state

    @property
    def url(self):
        return f"http://127.0.0.1:{self.state['nginx']['port']}"

    # MARK: up / down

    def up(self, instances, allow_unsafe):
        if self.state and self.running():
            raise FleetError(f"a fleet is already up in {self.dir} ({self.url}): scripts/fleet down first")
        if instances < 1:
            raise FleetError("--instances must be 1 or more")
        if not self.env.get("WEBIMAGE_SECURITY_KEY") and not allow_unsafe:
            raise FleetError("set WEBIMAGE_SECURITY_KEY (thumbor's key) or pass --allow-unsafe: otherwise every request is refused")
        bootstrap()
        self.state = {
            "binary": release_binary(), "allow_unsafe": allow_unsafe, "purge_token": secrets.token_hex(16),
            "redis": {"port": free_port(), "pid": None}, "nginx": {"port": free_port(), "pid": None},
            "instances": [{"port": free_port(), "admin_port": free_port(), "pid": None} for _ in range(instances)],
        }
        self.save()
        try:
            self.start_redis()
            for index in range(1, instances + 1):
                self.start(index, wait=False)
            for index in range(1, instances + 1):
                self.wait_ready(index)
            self.write_nginx_config()
            self.start_nginx()
        except BaseException:
            self.down(quiet=True)
            raise

    def running(self):
        """Names of the fleet's processes that still run."""
        state = self.state or {}
        names = []
        if alive(state.get("redis", {}).get("pid"), "redis-server"):
            names.append("redis")
        if alive(state.get("nginx", {}).get("pid"), "nginx"):
            names.append("nginx")
        for index, instance in enumerate(state.get("instances", []), 1):
            if alive(instance.get("pid"), "webimage"):
                names.append(f"instance {index}")
        return names

    def down(self, quiet=False):
        if not self.state:
            if not quiet:
                print(f"fleet: nothing in {self.dir}")
            return
        # All instances drain at once (readyz 503 for the grace, then in-flight work finishes).
        for instance in self.state["instances"]:
            signal_pid(instance.get("pid"), "webimage", signal.SIGTERM)
        signal_pid(self.state["nginx"].get("pid"), "nginx", signal.SIGQUIT)
        grace = float(DRAIN_GRACE) + 15
        for instance in self.state["instances"]:
            stop(instance.get("pid"), "webimage", signal.SIGTERM, grace)
            instance["pid"] = None
        stop(self.state["nginx"].get("pid"), "nginx", signal.SIGQUIT, 10)
        self.state["nginx"]["pid"] = None
        stop(self.state["redis"].get("pid"), "redis-server", signal.SIGTERM, 10)
        self.state["redis"]["pid"] = None
        self.save()
        left = self.running()
        if left:
            raise FleetError("still running after down: " + ", ".join(left))
        if not quiet:
            print("fleet: down (logs stay in " + str(self.dir) + ")")

    # MARK: Redis

    def start_redis(self):
        redis = self.state["redis"]
        if alive(redis.get("pid"), "redis-server"):
            return
        directory = self.dir / "redis"
        directory.mkdir(parents=True, exist_ok=True)
        # deploy/redis/redis.conf, with the fleet's port and directory over it.
        argv = ["redis-server", str(ROOT / "deploy/redis/redis.conf"), "--port", str(redis["port"]), "--dir", str(directory),
                "--logfile", "", "--daemonize", "no", "--supervised", "no"]
        redis["pid"] = spawn(argv, directory / "redis.log")
        self.save()
        wait_until(lambda: redis_ping(redis["port"]), 10, "redis", redis["pid"], "redis-server", directory / "redis.log")

    def stop_redis(self):
        stop(self.state["redis"].get("pid"), "redis-server", signal.SIGTERM, 10)
        self.state["redis"]["pid"] = None
        self.save()

    # MARK: instances

    def instance(self, index):
        instances = self.require_state()["instances"]
        if not 1 <= index <= len(instances):
            raise FleetError(f"no instance {index}: the fleet has 1 to {len(instances)}")
        return instances[index - 1]

    def instance_dir(self, index):
        return self.dir / f"instance-{index}"

    def start(self, index, wait=True):
        instance = self.instance(index)
        if alive(instance.get("pid"), "webimage"):
            print(f"fleet: instance {index} already runs (pid {instance['pid']})")
            return
        directory = self.instance_dir(index)
        (directory / "cache").mkdir(parents=True, exist_ok=True)
        # /metrics and purge answer on the admin listener only; nginx's site never proxies them.
        argv = [self.state["binary"], "serve", "--host", "127.0.0.1", "--port", str(instance["port"]),
                "--admin-host", "127.0.0.1", "--admin-port", str(instance["admin_port"]),
                "--cache-dir", str(directory / "cache"), "--allow-loopback-sources", "--drain-grace", DRAIN_GRACE]
        if self.state["allow_unsafe"]:
            argv.append("--allow-unsafe")
        env = dict(self.env)
        env["WEBIMAGE_REDIS_URL"] = f"redis://127.0.0.1:{self.state['redis']['port']}/0"
        env["WEBIMAGE_PURGE_TOKEN"] = self.state["purge_token"]
        instance["pid"] = spawn(argv, directory / "serve.log", env)
        self.save()
        if wait:
            self.wait_ready(index)

    def wait_ready(self, index):
        instance = self.instance(index)
        wait_until(lambda: http_status(f"http://127.0.0.1:{instance['port']}/readyz") == 200, 30, f"instance {index}",
                   instance["pid"], "webimage", self.instance_dir(index) / "serve.log")

    def kill(self, index):
        instance = self.instance(index)
        if not signal_pid(instance.get("pid"), "webimage", signal.SIGKILL):
            raise FleetError(f"instance {index} is not running")
        wait_gone(instance["pid"], "webimage", 5)

    def add(self):
        self.require_state()["instances"].append({"port": free_port(), "admin_port": free_port(), "pid": None})
        self.save()
        index = len(self.state["instances"])
        self.start(index)
        self.write_nginx_config()
        self.reload_nginx()
        return index

    def admin_url(self, instance):
        """An instance's admin listener (GET /metrics, DELETE /purge)."""
        return f"http://127.0.0.1:{instance['admin_port']}"

    def instance_at(self, upstream):
        """The instance nginx names `127.0.0.1:PORT` in X-Upstream."""
        for instance in self.require_state()["instances"]:
            if upstream == f"127.0.0.1:{instance['port']}":
                return instance
        raise FleetError(f"no instance listens at {upstream}")

    def has_redis_tier(self):
        """Whether the server reports a Redis tier (a webimage_redis series in its admin /metrics)."""
        for instance in self.state["instances"]:
            if alive(instance.get("pid"), "webimage"):
                return "webimage_redis" in http_text(f"{self.admin_url(instance)}/metrics")
        return False

    # MARK: nginx

    def write_nginx_config(self):
        directory = self.dir / "nginx"
        for name in ("logs", "temp"):
            (directory / name).mkdir(parents=True, exist_ok=True)
        upstreams = [arg for instance in self.state["instances"] for arg in ("--upstream", f"127.0.0.1:{instance['port']}")]
        site = subprocess.run([self.state["binary"], "serve", "--print-nginx-config", *upstreams,
                               "--listen", f"127.0.0.1:{self.state['nginx']['port']}"],
                              check=True, capture_output=True, text=True).stdout
        (directory / "webimage.conf").write_text(site)
        temp = directory / "temp"
        user = f"user {getpass.getuser()};" if os.geteuid() == 0 else ""
        (directory / "nginx.conf").write_text(f"""# scripts/fleet: nginx on loopback around the generated site (webimage.conf).
daemon off;
worker_processes 2;
pid {directory}/nginx.pid;
error_log {directory}/logs/error.log notice;
{user}
events {{ worker_connections 1024; }}
http {{
    access_log {directory}/logs/access.log;
    client_body_temp_path {temp}/body;
    proxy_temp_path {temp}/proxy;
    fastcgi_temp_path {temp}/fastcgi;
    uwsgi_temp_path {temp}/uwsgi;
    scgi_temp_path {temp}/scgi;
    include {directory}/webimage.conf;
}}
""")
        checked = subprocess.run([NGINX, "-t", "-p", str(directory), "-c", str(directory / "nginx.conf")],
                                 capture_output=True, text=True)
        if checked.returncode != 0:
            raise FleetError("nginx -t refused the generated config:\n" + checked.stderr)

    def start_nginx(self):
        directory = self.dir / "nginx"
        nginx = self.state["nginx"]
        nginx["pid"] = spawn([NGINX, "-p", str(directory), "-c", str(directory / "nginx.conf")], directory / "logs/nginx.out")
        self.save()
        wait_until(lambda: http_status(f"{self.url}/healthz") == 200, 10, "nginx", nginx["pid"], "nginx",
                   directory / "logs/error.log")

    def reload_nginx(self):
        """SIGHUP: new workers on the new site; the old ones finish their requests."""
        log = self.dir / "nginx/logs/error.log"
        before = log.read_text().count("reconfiguring") if log.exists() else 0
        if not signal_pid(self.state["nginx"].get("pid"), "nginx", signal.SIGHUP):
            raise FleetError("nginx is not running")
        wait_until(lambda: log.read_text().count("reconfiguring") > before, 10, "nginx reload")
        time.sleep(0.3)  # the new workers start after the line

    # MARK: status

    def status(self):
        state = self.require_state()
        redis = state["redis"]
        print(f"redis      port {redis['port']:<6} pid {redis.get('pid') or '-':<8} "
              f"{'up' if redis_ping(redis['port']) else 'down'}")
        for index, instance in enumerate(state["instances"], 1):
            running = alive(instance.get("pid"), "webimage")
            ready = http_status(f"http://127.0.0.1:{instance['port']}/readyz") if running else None
            print(f"instance {index} port {instance['port']:<6} pid {instance.get('pid') or '-':<8} "
                  f"{'up' if running else 'down'}{f' (readyz {ready})' if running else ''}; admin {self.admin_url(instance)}")
        nginx = state["nginx"]
        running = alive(nginx.get("pid"), "nginx")
        print(f"nginx      port {nginx['port']:<6} pid {nginx.get('pid') or '-':<8} {'up' if running else 'down'}")
        print(f"redis tier: {'reported by the server' if self.has_redis_tier() else 'not reported by this server binary'}")
        # Any instance's purge reaches every one through the Redis tier's purge channel.
        print(f"purge: DELETE {self.admin_url(state['instances'][0])}/purge?url=SOURCE (an instance's admin listener) "
              f"with 'Authorization: Bearer {state['purge_token']}'")
        print(f"logs: {self.dir}")
        print(f"fleet: {self.url}")
