"""Where things are and how to get them: the repository's paths, the shared .venv (created and
filled on first use so a fresh clone needs no manual pip step), and which `webimage` binary to run.

The binary is chosen in one place because the benchmarks are often run against a worktree's build
while the main tree is mid-edit: --webimage PATH, else $WEBIMAGE_BIN, else the repository's own
release build (built here unless --no-build)."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
VENV = os.path.join(ROOT, ".venv")
VENV_PY = os.path.join(VENV, "bin", "python")
PHOTOS = os.path.join(ROOT, ".photos")
DERIVED = os.path.join(PHOTOS, "derived")
SCRATCH = ".build-release"
DEFAULT_WEBIMAGE = os.path.join(ROOT, SCRATCH, "release", "webimage")
# module to import: pip package(s). The plugins register AVIF and HEIF openers with Pillow.
NEEDED = {"PIL": "pillow", "numpy": "numpy", "pillow_avif": "pillow-avif-plugin", "pillow_heif": "pillow-heif"}

PROG = "compare-pillow"


def die(message, status=2):
    print(f"{PROG}: {message}", file=sys.stderr)
    sys.exit(status)


def log(message):
    print(f"{PROG}: {message}", file=sys.stderr, flush=True)


def ensure_venv(entry, needed=NEEDED):
    """Re-executes `entry` (the script file) under .venv, creating it and pip-installing what is
    missing; returns only when running inside it with every module importable."""
    if os.path.realpath(sys.prefix) == os.path.realpath(VENV):
        missing = []
        for module, packages in needed.items():
            try:
                __import__(module)
            except ImportError:
                missing += packages.split()
        if missing:
            log(f"pip install {' '.join(missing)} into {VENV}")
            subprocess.run([VENV_PY, "-m", "pip", "install", "-q", *missing], check=True)
            os.execv(VENV_PY, [VENV_PY, *sys.argv])
        return
    if not os.path.exists(VENV_PY):
        log(f"creating {VENV}")
        try:
            subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
        except subprocess.CalledProcessError:
            die("cannot create the venv (on Debian: apt-get install python3-venv)")
    os.execv(VENV_PY, [VENV_PY, os.path.abspath(entry), *sys.argv[1:]])


def build():
    cmd = [os.path.join(ROOT, "scripts", "build-release")]
    log(" ".join(cmd))
    result = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        sys.stderr.write(result.stdout[-4000:])
        die(f"release build failed (--no-build uses the existing {SCRATCH}/release/webimage)")


def webimage_binary(explicit, no_build):
    """The binary to run: --webimage, $WEBIMAGE_BIN, or the repository's build (built first unless
    no_build). Dies when it is not executable."""
    path = explicit or os.environ.get("WEBIMAGE_BIN")
    if path:
        path = os.path.abspath(path)
    else:
        if not no_build:
            build()
        path = DEFAULT_WEBIMAGE
    if not os.access(path, os.X_OK):
        die(f"{path} missing or not executable (build it, or pass --webimage PATH / WEBIMAGE_BIN)")
    return path
