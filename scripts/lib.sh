# Shared helpers for the set-up scripts: idempotent installation of what a fresh Debian 12
# machine lacks. Sourced, not run.
set -euo pipefail

repo_root() { cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd; }

# Installs the Debian packages given that are not installed yet.
ensure_packages() {
  local missing=()
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
      missing+=("$package")
  done
  if ((${#missing[@]})); then
    echo "Installing Debian packages: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
}

# The C++ toolchain and libraries of the native build.
ensure_native_deps() {
  ensure_packages cmake g++ make nlohmann-json3-dev doctest-dev
}

build_native() {
  local root
  root=$(repo_root)
  cmake --preset native -S "$root" >/dev/null
  cmake --build --preset native -j "$(nproc)"
}
