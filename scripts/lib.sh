# Shared helpers for the set-up scripts: idempotent installation of what a fresh Debian 12
# machine lacks. Sourced, not run.
set -euo pipefail

repo_root() { cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd; }

# Runs a command and prints how long it took ("== SCRIPT: NAME: N s", SCRIPT the script that
# runs it), for the CI log's time budget: bench/setup.sh prints these lines of a fresh clone's
# .ci/run, so that every minute of it is attributed (issue 34: within 20 minutes on 2 cores).
# The CPU time of the step too (user and system seconds of the processes it ran and waited for),
# which a shared machine's load does not inflate.
timed() {
  local name="$1" start=$SECONDS cpu_start
  shift
  children_cpu_s
  cpu_start=$REPLY
  "$@"
  children_cpu_s
  echo "== $(basename "$0"): $name: $((SECONDS - start)) s ($((REPLY - cpu_start)) s CPU)"
}

# Sets REPLY to the CPU seconds (user and system) of this shell's finished children so far:
# `times` runs in this shell, not in a command substitution (which would report its own).
children_cpu_s() {
  local file
  file=$(mktemp)
  times >"$file"
  REPLY=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); s += t[1] * 60 + t[2] }
                         printf "%d", s }' "$file")
  rm -f "$file"
}

# The configure option naming the compiler launcher: ccache where it is installed (CI keeps its
# files between runs), none otherwise, and CMAKE_CXX_COMPILER_LAUNCHER from the environment where
# it is set (empty: none). Given on every configure, so that a build folder follows the machine
# (no stale launcher once ccache is gone). Sets REPLY.
compiler_launcher_option() {
  local launcher=""
  if [ -n "${CMAKE_CXX_COMPILER_LAUNCHER+set}" ]; then
    launcher="$CMAKE_CXX_COMPILER_LAUNCHER"
  elif command -v ccache >/dev/null; then
    launcher=ccache
  fi
  REPLY="-DCMAKE_CXX_COMPILER_LAUNCHER=$launcher"
}
# ccache hashes the paths under the clone as relative ones, so that another checkout's
# compilations hit (its manual, "Compiling in different directories").
CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(repo_root)}"
export CCACHE_BASEDIR

# Runs a command in DIR (a subshell): in_dir DIR COMMAND...
in_dir() { (cd "$1" && shift && "$@"); }

# Runs a command with its standard output discarded (a step whose log says nothing new).
quietly() { "$@" >/dev/null; }

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
  compiler_launcher_option
  timed "native configure" quietly cmake --preset native -S "$root" -DPARAPLAN_UNITY_BUILD=ON \
    "$REPLY"
  timed "native build" cmake --build --preset native -j "$(nproc)"
}

# Node.js and npm: Debian's packages unless some Node.js (18 or later) is already there.
ensure_node() {
  command -v node >/dev/null || ensure_packages nodejs
  command -v npm >/dev/null || ensure_packages npm
  local major
  major=$(node -p 'process.versions.node.split(".")[0]')
  if ((major < 18)); then
    echo "Node.js 18 or later is needed; this machine has $(node --version)." >&2
    exit 1
  fi
}

# Emscripten (Debian's 3.1.6) and what the web build needs.
ensure_web_deps() {
  ensure_packages cmake make nlohmann-json3-dev emscripten
  ensure_node
}

build_wasm() {
  local root
  root=$(repo_root)
  compiler_launcher_option
  # Debian's Emscripten finds its JavaScript libraries through NODE_PATH.
  timed "wasm configure" quietly env NODE_PATH=/usr/share/nodejs \
    cmake --preset wasm -S "$root" -DPARAPLAN_UNITY_BUILD=ON "$REPLY"
  timed "wasm build" env NODE_PATH=/usr/share/nodejs cmake --build --preset wasm -j "$(nproc)"
}

# `npm ci` in DIR when its node_modules is missing or older than its package-lock.json.
npm_install() {
  local dir="$1" stamp="$1/node_modules/.paraplan-lock-sha256" lock
  lock=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
  if [ "$(cat "$stamp" 2>/dev/null)" != "$lock" ]; then
    (cd "$dir" && npm ci --no-audit --no-fund)
    echo "$lock" >"$stamp"
  fi
}

# The static site in web/dist, from the WebAssembly module in build/wasm.
build_web() {
  local root
  root=$(repo_root)
  timed "npm ci (web)" npm_install "$root/web"
  timed "site build" in_dir "$root/web" npm run build
}
