#!/usr/bin/env bash
# Installs everything a fresh Debian 12 machine lacks to build and test Kina,
# every item pinned, and writes .deps/env.sh with the tool paths. It checks
# before it installs, so a second run takes seconds. Items:
#   - Debian packages (LLVM/MLIR/clang 22 from bookworm-security, the
#     tree-sitter runtime, nlohmann-json, GoogleTest, CLI11, ccache, ...);
#   - the tree-sitter CLI, built once by `cargo install --locked` into the
#     reusable cache ($KINA_CACHE), or reused from ~/.cargo or PATH when its
#     version matches;
#   - ptxas, nvdisasm, cuobjdump and tileiras: a CUDA toolkit ($CUDA_HOME/bin
#     or PATH) wins; what it lacks comes from NVIDIA's PyPI wheels, unpacked
#     into .deps/cuda;
#   - lit and FileCheck from Debian's llvm-22-tools.
# With --editors it also runs scripts/setup-editors.sh (the real-editor test
# dependencies) when that script exists.
#
# Usage: scripts/setup.sh [--editors]
# Env:   KINA_CACHE (see scripts/common.sh), KINA_STRICT_PINS=1 makes a pinned
#        Debian version that the archive no longer offers an error instead of
#        a warning.
set -euo pipefail
# shellcheck source=scripts/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# ---- Pins (the one place they are written down) -------------------------------
LLVM_DEB=1:22.1.8-1~deb12u1
APT_PINS=(
  "llvm-22-dev=$LLVM_DEB" "libmlir-22-dev=$LLVM_DEB" "mlir-22-tools=$LLVM_DEB"
  "clang-22=$LLVM_DEB" "llvm-22-tools=$LLVM_DEB"
  "libclang-rt-22-dev=$LLVM_DEB" # libFuzzer and the sanitizer runtimes (tests/fuzz)
  "libtree-sitter-dev=0.20.7-1"
  "ccache=4.8+really4.7.5-1"
  "nlohmann-json3-dev=3.11.2-2"
  "libgtest-dev=1.12.1-0.2" "libgmock-dev=1.12.1-0.2" "googletest=1.12.1-0.2"
  "libcli11-dev=2.1.2+ds-1"
  "zlib1g-dev=1:1.2.13.dfsg-1" "libzstd-dev=1.5.4+dfsg2-5+deb12u1"
  "ninja-build=1.11.1-2~deb12u1" "cmake=3.25.1-1"
  "neovim=0.7.2-7"
  "g++=4:12.2.0-3" "python3=3.11.2-1+b1"
  "python3-psutil=5.9.4-1+b1" # lit --timeout
  "python3-numpy=1:1.24.2-1+deb12u1" # tests/gpu references against the interpreter
  "libpolly-22-dev=$LLVM_DEB"        # KINA_STATIC=ON links LLVM's Polly (the GPU machine's kina)
  "unzip=6.0-28"
)
PIP_PIN="python3-pip=23.0.1+dfsg-1" # only when python3 has no pip
# The tree-sitter CLI generates parsers; grammar/ generates with `--abi 14` so
# that Debian's runtime (libtree-sitter 0.20.7, ABI 13-14) loads them.
TS_CLI_VERSION=0.27.1
# ptxas must be no newer than the GPU machine's driver (CUDA 13.0). nvdisasm
# and cuobjdump have no 13.0 wheel; 13.2.51 is the oldest. tileiras 13.3.36 is
# the oldest wheel whose --gpu-name accepts sm_90 (13.1 starts at sm_100,
# 13.2 lacks sm_90).
CUDA_WHEELS=(
  "ptxas:nvidia-cuda-nvcc==13.0.88"
  "nvdisasm:nvidia-cuda-nvdisasm==13.2.51"
  "cuobjdump:nvidia-cuda-cuobjdump==13.2.51"
  "tileiras:nvidia-cuda-tileiras==13.3.36"
  "tileiras:nvidia-nvvm==13.3.33"
  "tileiras:nvidia-cuda-nvcc==13.3.33"
)
# tileiras finishes a cubin with the libnvvm (<bin>/../lib/libnvvm.so.4) and
# the ptxas beside it, of its own release: 13.0's ptxas rejects its PTX and
# without libnvvm every assembly fails ("failed to compile Tile IR program").
# So these three go into their own prefix, $CUDA_DIR/tileiras (found by the
# .deps/cuda/**/bin search after the 13.0 tools, which keep the PTX path).
TILEIRAS_WHEELS=("nvidia-cuda-tileiras==13.3.36" "nvidia-nvvm==13.3.33" "nvidia-cuda-nvcc==13.3.33")
CUDA_DIR="$KINA_DEPS/cuda"
# NCCL for host functions on a mesh of devices (issue 19; runtime/Nccl.h
# dlopens it, and its unit test calls ncclGetVersion, which needs no GPU).
NCCL_WHEEL="nvidia-nccl-cu13==2.27.7"
NCCL_DIR="$KINA_DEPS/nccl"
CUDA_WHEEL_BIN="$CUDA_DIR/nvidia/cu13/bin"

WITH_EDITORS=0
for arg in "$@"; do
  case "$arg" in
  --editors) WITH_EDITORS=1 ;;
  -h | --help)
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
    exit 0
    ;;
  *) die "unknown argument '$arg' (usage: scripts/setup.sh [--editors])" ;;
  esac
done

T0=$(now_s)
mkdir -p "$KINA_DEPS" "$KINA_CACHE/logs"

# One setup at a time per cache (two engineers' test runs may start together).
exec 9>"$KINA_CACHE/setup.lock"
if ! flock -n 9; then
  log "another setup holds $KINA_CACHE/setup.lock; waiting"
  flock 9
fi

as_root() {
  if [ "$(id -u)" = 0 ]; then
    "$@"
  elif command -v sudo >/dev/null; then
    sudo "$@"
  else
    die "need root for: $*"
  fi
}

# ---- tree-sitter CLI: find a matching copy, else start building one ----------
TS_ROOT="$KINA_CACHE/tree-sitter-cli-$TS_CLI_VERSION"
ts_version_of() { "$1" --version 2>/dev/null | awk '{print $2}'; }
find_tree_sitter() {
  local cand
  for cand in "${KINA_TREE_SITTER:-}" "$TS_ROOT/bin/tree-sitter" "${CARGO_HOME:-$HOME/.cargo}/bin/tree-sitter" \
    "$(command -v tree-sitter 2>/dev/null || true)"; do
    if [ -n "$cand" ] && [ -x "$cand" ] && [ "$(ts_version_of "$cand")" = "$TS_CLI_VERSION" ]; then
      echo "$cand"
      return 0
    fi
  done
  return 1
}
TS_BIN=$(find_tree_sitter || true)
TS_PID=
TS_LOG="$KINA_CACHE/logs/tree-sitter-cli.log"
# start_ts_build: starts `cargo install` in the background (TS_PID).
start_ts_build() {
  CARGO=$(command -v cargo || echo "${CARGO_HOME:-$HOME/.cargo}/bin/cargo")
  [ -x "$CARGO" ] || die "cargo not found: install Rust with rustup (Debian 12's rustc 1.63 is too old for tree-sitter-cli $TS_CLI_VERSION)"
  log "building tree-sitter-cli $TS_CLI_VERSION with cargo into $TS_ROOT (about 8 min on 2 cores; log $TS_LOG)"
  # A target folder in the cache lets an interrupted build resume.
  CARGO_TARGET_DIR="$KINA_CACHE/cargo-target" "$CARGO" install --locked tree-sitter-cli \
    --version "$TS_CLI_VERSION" --root "$TS_ROOT" </dev/null >"$TS_LOG" 2>&1 9>&- &
  TS_PID=$!
  # If setup stops early, stop the build too.
  trap '[ -n "$TS_PID" ] && kill "$TS_PID" 2>/dev/null || true' EXIT
}
# The build overlaps the downloads below; it needs a C compiler (QuickJS), so
# on a machine without one it starts after the Debian packages are in.
if [ -z "$TS_BIN" ] && command -v cc >/dev/null; then
  start_ts_build
fi

# ---- CUDA tools: what the toolkit lacks comes from NVIDIA's wheels -------------
toolkit_has() {
  { [ -n "${CUDA_HOME:-}" ] && [ -x "$CUDA_HOME/bin/$1" ]; } || command -v "$1" >/dev/null 2>&1
}
need_wheels=()
for entry in "${CUDA_WHEELS[@]}"; do
  tool=${entry%%:*}
  toolkit_has "$tool" && continue
  need_wheels+=("${entry#*:}")
done
stamp="$CUDA_DIR/.installed"
want_stamp=$(printf '%s\n' "${need_wheels[@]}")
wheel_cache="$KINA_CACHE/wheels"
unpack_wheels=0
to_fetch=()
if ((${#need_wheels[@]})) && { [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want_stamp" ]; }; then
  unpack_wheels=1
  for req in "${need_wheels[@]}"; do
    name=${req%%==*}
    compgen -G "$wheel_cache/${name//-/_}-${req#*==}-*.whl" >/dev/null || to_fetch+=("$req")
  done
fi

# ---- Debian packages ------------------------------------------------------------
T=$(now_s)
pins=("${APT_PINS[@]}")
if ((${#to_fetch[@]})) && ! python3 -m pip --version >/dev/null 2>&1; then
  pins+=("$PIP_PIN")
fi
declare -A installed=()
while read -r name ver; do
  installed[$name]=$ver
done < <(dpkg-query -W -f='${db:Status-Status} ${Package} ${Version}\n' "${pins[@]%%=*}" 2>/dev/null |
  awk '$1 == "installed" { print $2, $3 }')
missing=()
for pin in "${pins[@]}"; do
  [ "${installed[${pin%%=*}]:-}" = "${pin#*=}" ] || missing+=("$pin")
done
if ((${#missing[@]})); then
  log "Debian packages to install: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt_opts=(-o DPkg::Lock::Timeout=600 -o Acquire::Retries=3)
  as_root apt-get "${apt_opts[@]}" update -qq
  want=()
  for pin in "${missing[@]}"; do
    if apt-cache madison "${pin%%=*}" | awk -F'|' '{gsub(/ /, "", $2); print $2}' | grep -qxF "${pin#*=}"; then
      want+=("$pin")
    elif [ "${KINA_STRICT_PINS:-0}" = 1 ]; then
      die "the archive no longer offers $pin"
    else
      log "warning: the archive no longer offers $pin; installing its candidate $(apt-cache policy "${pin%%=*}" | awk '/Candidate:/ {print $2}')"
      want+=("${pin%%=*}")
    fi
  done
  as_root apt-get "${apt_opts[@]}" install -y -qq --no-install-recommends --allow-downgrades "${want[@]}" \
    >"$KINA_CACHE/logs/apt.log" 2>&1 || {
    tail -30 "$KINA_CACHE/logs/apt.log" >&2
    die "apt-get install failed (log $KINA_CACHE/logs/apt.log)"
  }
  log "Debian packages installed in $(elapsed "$T") s"
fi

if [ -z "$TS_BIN" ] && [ -z "$TS_PID" ]; then
  start_ts_build
fi

# ---- lit and FileCheck (Debian's llvm-22-tools) ---------------------------------
KINA_LIT="$KINA_LLVM_BIN/lit"
for tool in lit FileCheck not split-file; do
  [ -x "$KINA_LLVM_BIN/$tool" ] || die "$KINA_LLVM_BIN/$tool missing (llvm-22-tools)"
done
lit_version=$("$KINA_LIT" --version 2>&1) || die "lit does not run: $lit_version"

# ---- CUDA tools: download and unpack the wheels -------------------------------
if ((unpack_wheels)); then
  T=$(now_s)
  log "NVIDIA wheels into $CUDA_DIR: ${need_wheels[*]}"
  mkdir -p "$wheel_cache"
  if ((${#to_fetch[@]})); then
    # One download per wheel: the list pins two versions of nvidia-cuda-nvcc
    # (ptxas 13.0, tileiras' 13.3), which one pip resolution refuses even with
    # --no-deps.
    for req in "${to_fetch[@]}"; do
      python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
        --platform manylinux2014_x86_64 --dest "$wheel_cache" "$req" </dev/null ||
        die "pip download of the NVIDIA wheel $req failed"
    done
  fi
  rm -rf "$CUDA_DIR"
  mkdir -p "$CUDA_DIR"
  for req in "${need_wheels[@]}"; do
    name=${req%%==*}
    ver=${req#*==}
    whl=$(ls "$wheel_cache/${name//-/_}-$ver-"*.whl 2>/dev/null | head -1)
    [ -n "$whl" ] || die "wheel for $req not found in $wheel_cache"
    dest="$CUDA_DIR"
    for t in "${TILEIRAS_WHEELS[@]}"; do [ "$t" = "$req" ] && dest="$CUDA_DIR/tileiras"; done
    unzip -qo "$whl" -d "$dest" || die "cannot unpack $whl"
  done
  echo "$want_stamp" >"$stamp"
  log "NVIDIA wheels unpacked in $(elapsed "$T") s"
fi

# ---- NCCL: the pinned wheel into .deps/nccl --------------------------------------
if [ ! -f "$NCCL_DIR/.installed" ] || [ "$(cat "$NCCL_DIR/.installed")" != "$NCCL_WHEEL" ]; then
  T=$(now_s)
  mkdir -p "$wheel_cache"
  nccl_whl() { ls "$wheel_cache/nvidia_nccl_cu13-${NCCL_WHEEL#*==}-"*.whl 2>/dev/null | head -1; }
  if [ -z "$(nccl_whl)" ]; then
    python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
      --platform manylinux2014_x86_64 --dest "$wheel_cache" "$NCCL_WHEEL" </dev/null ||
      die "pip download of $NCCL_WHEEL failed"
  fi
  rm -rf "$NCCL_DIR"
  mkdir -p "$NCCL_DIR"
  unzip -qo "$(nccl_whl)" -d "$NCCL_DIR" || die "cannot unpack $NCCL_WHEEL"
  echo "$NCCL_WHEEL" >"$NCCL_DIR/.installed"
  log "NCCL ($NCCL_WHEEL) unpacked into $NCCL_DIR in $(elapsed "$T") s"
fi

# ---- Editor-test dependencies (owned by the editors engineer) ------------------
# Before the wait below: their downloads overlap the tree-sitter CLI build.
if ((WITH_EDITORS)); then
  if [ -f "$KINA_ROOT/scripts/setup-editors.sh" ]; then
    T=$(now_s)
    bash "$KINA_ROOT/scripts/setup-editors.sh" >"$KINA_CACHE/logs/setup-editors.out" ||
      die "scripts/setup-editors.sh failed"
    log "editor dependencies ready in $(elapsed "$T") s"
  else
    log "scripts/setup-editors.sh does not exist yet: no editor dependencies installed"
  fi
fi

# ---- Wait for the tree-sitter CLI build ------------------------------------------
if [ -n "$TS_PID" ]; then
  T=$(now_s)
  log "waiting for the tree-sitter-cli build (pid $TS_PID)"
  if ! wait "$TS_PID"; then
    tail -30 "$TS_LOG" >&2
    die "cargo install tree-sitter-cli $TS_CLI_VERSION failed (log $TS_LOG)"
  fi
  TS_PID=
  rm -rf "$KINA_CACHE/cargo-target"
  TS_BIN="$TS_ROOT/bin/tree-sitter"
  [ "$(ts_version_of "$TS_BIN")" = "$TS_CLI_VERSION" ] || die "the built tree-sitter is not $TS_CLI_VERSION"
  log "tree-sitter-cli built; waited $(elapsed "$T") s"
fi

# ---- .deps/env.sh ---------------------------------------------------------------------
env_new=$(
  cat <<EOF
# Generated by scripts/setup.sh; do not edit. Source it for Kina's tool paths.
# CUDA tools: an explicit KINA_PTXAS (...) wins, then \$CUDA_HOME/bin, then PATH,
# then NVIDIA's wheels in .deps/cuda (DESIGN.md 3.9).
export KINA_CACHE="\${KINA_CACHE:-$KINA_CACHE}"
export CCACHE_DIR="\${CCACHE_DIR:-\$KINA_CACHE/ccache}"
export KINA_TREE_SITTER="$TS_BIN"
export KINA_LIT="$KINA_LIT"
export KINA_LLVM_BIN="$KINA_LLVM_BIN"
export KINA_CUDA_WHEEL_BIN="$CUDA_WHEEL_BIN"
export KINA_LIBNCCL="\${KINA_LIBNCCL:-$NCCL_DIR/nvidia/nccl/lib/libnccl.so.2}"
case ":\$PATH:" in *":${TS_BIN%/*}:"*) ;; *) export PATH="${TS_BIN%/*}:\$PATH" ;; esac
case ":\$PATH:" in *":$KINA_LLVM_BIN:"*) ;; *) export PATH="\$PATH:$KINA_LLVM_BIN" ;; esac
_kina_cuda_tool() {
  eval "_kina_t=\\\${\$1:-}"
  if [ -z "\$_kina_t" ]; then
    if [ -n "\${CUDA_HOME:-}" ] && [ -x "\$CUDA_HOME/bin/\$2" ]; then _kina_t="\$CUDA_HOME/bin/\$2"
    elif _kina_t=\$(command -v "\$2" 2>/dev/null); then :
    elif [ -x "$CUDA_WHEEL_BIN/\$2" ]; then _kina_t="$CUDA_WHEEL_BIN/\$2"
    elif [ -x "$CUDA_DIR/tileiras/nvidia/cu13/bin/\$2" ]; then _kina_t="$CUDA_DIR/tileiras/nvidia/cu13/bin/\$2"
    fi
  fi
  if [ -n "\$_kina_t" ]; then export "\$1=\$_kina_t"; fi
  unset _kina_t
}
_kina_cuda_tool KINA_PTXAS ptxas
_kina_cuda_tool KINA_NVDISASM nvdisasm
_kina_cuda_tool KINA_CUOBJDUMP cuobjdump
_kina_cuda_tool KINA_TILEIRAS tileiras
unset -f _kina_cuda_tool
EOF
)
if [ ! -f "$KINA_DEPS/env.sh" ] || [ "$(cat "$KINA_DEPS/env.sh")" != "$env_new" ]; then
  printf '%s\n' "$env_new" >"$KINA_DEPS/env.sh"
fi
kina_load_env

# ---- Verify -----------------------------------------------------------------------------
[ -n "${KINA_PTXAS:-}" ] || die "no ptxas found (CUDA_HOME, PATH, $CUDA_WHEEL_BIN)"
ptxas_version=$("$KINA_PTXAS" --version 2>&1 | sed -n 's/.*release \([0-9.]*\),.*/\1/p')
[ -n "$ptxas_version" ] || die "$KINA_PTXAS --version does not run"
case "$ptxas_version" in
13.0 | 12.*) ;;
*) log "warning: ptxas $ptxas_version is newer than CUDA 13.0 (the GPU machine's driver)" ;;
esac
for v in KINA_NVDISASM KINA_CUOBJDUMP KINA_TILEIRAS; do
  [ -n "${!v:-}" ] || die "$v: tool not found"
  "${!v}" --version >/dev/null 2>&1 || die "${!v} --version does not run"
done

log "ready in $(elapsed "$T0") s: LLVM $(dpkg-query -W -f='${Version}' llvm-22-dev), $lit_version," \
  "tree-sitter $TS_CLI_VERSION ($TS_BIN), ptxas $ptxas_version ($KINA_PTXAS)"
