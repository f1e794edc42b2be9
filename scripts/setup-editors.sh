#!/usr/bin/env bash
# Installs what the real-editor tests (tests/editors/) need, pinned and
# idempotent, into a reusable cache folder so that a second run takes seconds:
#   - Debian packages: chromium, chromium-driver, libkrb5-dev, ripgrep, neovim
#     (Debian 12's neovim is 0.7.2, the "old" Neovim the plugin supports);
#   - code-server (a real VS Code, 1.100.3) from npm;
#   - playwright-core from npm (drives the headless Chromium);
#   - Neovim 0.10.4 from Debian trixie's .debs, unpacked privately (trixie is
#     never added to the system's sources) with a wrapper that runs it through
#     trixie's own ld-linux.
# Facts behind each step: shared/EDITOR-TESTING.md.
#
# Usage: scripts/setup-editors.sh            (KINA_CACHE defaults to /var/cache/kina)
# Prints the environment to use at the end; tests/editors/env.sh computes the same paths.
set -euo pipefail

KINA_CACHE=${KINA_CACHE:-/var/cache/kina}
CODE_SERVER_VERSION=4.100.3
PLAYWRIGHT_CORE_VERSION=1.65.1
# Upstream version pinned; the Debian revision follows trixie's security updates.
NVIM_TRIXIE_VERSION=0.10.4
RIPGREP_CACHE_NAME=vscode-ripgrep-cache-1.15.11
RIPGREP_TARBALL=ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz
DEBIAN_PACKAGES=(chromium chromium-driver libkrb5-dev ripgrep neovim)

log() { printf '[setup-editors] %s\n' "$*" >&2; }
die() { printf '[setup-editors] error: %s\n' "$*" >&2; exit 1; }

mkdir -p "$KINA_CACHE"
export npm_config_cache="$KINA_CACHE/npm-cache"
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

# ---- Debian packages (bookworm's own suites; versions fixed by the suite) ----
missing=()
for p in "${DEBIAN_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
    missing+=("$p")
done
if ((${#missing[@]})); then
  log "apt-get install ${missing[*]}"
  [ "$(id -u)" = 0 ] || die "need root to apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
nvim_old=$(dpkg-query -W -f='${Version}' neovim)
case "$nvim_old" in 0.7.*) ;; *) die "expected Debian 12's neovim 0.7.x, found $nvim_old" ;; esac

# ---- code-server ----
CS_DIR="$KINA_CACHE/code-server-$CODE_SERVER_VERSION"
if [ ! -f "$CS_DIR/.complete" ]; then
  log "npm install code-server@$CODE_SERVER_VERSION into $CS_DIR (about 80 s)"
  rm -rf "$CS_DIR"
  mkdir -p "$CS_DIR"
  scratch=$(mktemp -d)
  # @vscode/ripgrep's postinstall downloads rg from GitHub, which is not
  # reachable: pre-seed its cache with Debian's rg.
  mkdir -p "$scratch/$RIPGREP_CACHE_NAME" "$scratch/rg"
  cp /usr/bin/rg "$scratch/rg/rg"
  tar -C "$scratch/rg" -czf "$scratch/$RIPGREP_CACHE_NAME/$RIPGREP_TARBALL" rg
  (cd "$CS_DIR" &&
    TMPDIR="$scratch" npm_config_unsafe_perm=true npm_config_yes=true \
      npm install --no-save --loglevel=error --prefix "$CS_DIR" \
      "code-server@$CODE_SERVER_VERSION" </dev/null >"$scratch/npm.log" 2>&1) ||
    { tail -40 "$scratch/npm.log" >&2; die "code-server install failed"; }
  [ -x "$CS_DIR/node_modules/.bin/code-server" ] || die "code-server binary missing after install"
  rm -rf "$scratch"
  touch "$CS_DIR/.complete"
fi

# ---- playwright-core ----
PW_DIR="$KINA_CACHE/playwright-core-$PLAYWRIGHT_CORE_VERSION"
if [ ! -f "$PW_DIR/.complete" ]; then
  log "npm install playwright-core@$PLAYWRIGHT_CORE_VERSION into $PW_DIR"
  rm -rf "$PW_DIR"
  mkdir -p "$PW_DIR"
  (cd "$PW_DIR" && npm install --no-save --loglevel=error --prefix "$PW_DIR" \
    "playwright-core@$PLAYWRIGHT_CORE_VERSION" </dev/null >/dev/null) ||
    die "playwright-core install failed"
  touch "$PW_DIR/.complete"
fi

# ---- Neovim 0.10.4 from trixie, private ----
NV_DIR="$KINA_CACHE/nvim-$NVIM_TRIXIE_VERSION"
if [ ! -f "$NV_DIR/.complete" ]; then
  log "Neovim $NVIM_TRIXIE_VERSION from trixie's .debs into $NV_DIR"
  rm -rf "$NV_DIR"
  APT_DIR="$NV_DIR/apt"
  mkdir -p "$APT_DIR/lists/partial" "$APT_DIR/archives/partial" "$APT_DIR/debs" "$NV_DIR/root" "$NV_DIR/bin"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" \
    >"$APT_DIR/sources.list"
  apt_priv=(-o "Dir::Etc::SourceList=$APT_DIR/sources.list" -o "Dir::Etc::SourceParts=/nonexistent"
    -o "Dir::State::Lists=$APT_DIR/lists" -o "Dir::Cache=$APT_DIR/cache"
    -o "Dir::Cache::archives=$APT_DIR/archives" -o "Dir::State::status=/dev/null"
    -o "APT::Architecture=amd64" -o "APT::Architectures::=amd64" -o "Debug::NoLocking=1")
  mkdir -p "$APT_DIR/cache"
  apt-get "${apt_priv[@]}" update -qq || die "apt-get update of the private trixie list failed"
  # The dependency closure of neovim in trixie (no recommends), libc included:
  # nvim then runs entirely on trixie's libraries through trixie's ld-linux.
  cand=$(apt-cache "${apt_priv[@]}" policy neovim | awk '/Candidate:/ {print $2}')
  case "$cand" in "$NVIM_TRIXIE_VERSION"-*) ;; *) die "trixie offers neovim $cand, pinned $NVIM_TRIXIE_VERSION" ;; esac
  mapfile -t pkgs < <(apt-cache "${apt_priv[@]}" depends --recurse --no-recommends --no-suggests \
    --no-conflicts --no-breaks --no-replaces --no-enhances neovim |
    grep -v '^ ' | grep -v '^<' | sort -u)
  ((${#pkgs[@]} > 3)) || die "could not resolve neovim=$NVIM_TRIXIE_VERSION in trixie"
  log "downloading ${#pkgs[@]} trixie packages"
  (cd "$APT_DIR/debs" && apt-get "${apt_priv[@]}" download "${pkgs[@]}" >/dev/null 2>"$APT_DIR/download.log") ||
    { tail -20 "$APT_DIR/download.log" >&2; die "apt-get download failed"; }
  for deb in "$APT_DIR"/debs/*.deb; do dpkg-deb -x "$deb" "$NV_DIR/root"; done
  R="$NV_DIR/root"
  LDSO=$(find "$R" -name 'ld-linux-x86-64.so.2' \( -type f -o -type l \) | head -1)
  [ -n "$LDSO" ] || die "trixie's ld-linux-x86-64.so.2 not found in the unpacked libc6"
  [ -x "$R/usr/bin/nvim" ] || die "nvim binary not found in the unpacked neovim package"
  libpath="$R/usr/lib/x86_64-linux-gnu:$R/lib/x86_64-linux-gnu:$R/usr/lib/x86_64-linux-gnu/lua/5.1"
  cat >"$NV_DIR/bin/nvim" <<EOF
#!/bin/sh
# Neovim $NVIM_TRIXIE_VERSION (Debian trixie), run on its own libc; made by scripts/setup-editors.sh.
export VIMRUNTIME="$R/usr/share/nvim/runtime"
exec "$LDSO" --library-path "$libpath" "$R/usr/bin/nvim" --cmd "set rtp+=$R/usr/lib/nvim" "\$@"
EOF
  chmod +x "$NV_DIR/bin/nvim"
  rm -rf "$APT_DIR/cache" "$APT_DIR/archives"
  ver=$(timeout 20 "$NV_DIR/bin/nvim" --version | head -1) || die "the private Neovim does not start"
  case "$ver" in "NVIM v$NVIM_TRIXIE_VERSION"*) ;; *) die "unexpected private Neovim version: $ver" ;; esac
  touch "$NV_DIR/.complete"
fi

cat <<EOF
KINA_CODE_SERVER=$CS_DIR/node_modules/.bin/code-server
KINA_PLAYWRIGHT_CORE=$PW_DIR/node_modules/playwright-core
KINA_NVIM_07=/usr/bin/nvim
KINA_NVIM_010=$NV_DIR/bin/nvim
KINA_CHROMIUM=/usr/bin/chromium
EOF
