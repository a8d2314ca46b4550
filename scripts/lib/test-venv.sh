# Sourced by scripts/test and scripts/tsan: the Debian packages the tests need, and a venv
# (.venv-tests, Debian's python3-venv) for the test-only PyPI packages, also put first on PATH for
# the scripts (the specs find .venv-tests themselves). The system Python is never changed (PEP 668).
# Tests: PyPI's libthumbor makes the signed thumbor URLs the server specs accept (a real client);
# Pillow makes scripts/hostile-check's images and reads its answers. MODULE:PACKAGE when they differ.
test_python_packages=(libthumbor PIL:pillow)
test_venv() {
  local root venv
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  venv="$root/.venv-tests"
  "$root/scripts/bootstrap" tests
  # Debian's own python3: the venv module comes from its python3-venv package.
  [ -x "$venv/bin/python3" ] || /usr/bin/python3 -m venv "$venv"
  local p
  for p in "${test_python_packages[@]}"; do
    "$venv/bin/python3" -c "import ${p%%:*}" 2>/dev/null ||
      "$venv/bin/python3" -m pip install --quiet --disable-pip-version-check "${p#*:}" >&2
  done
  export PATH="$venv/bin:$PATH"
}
