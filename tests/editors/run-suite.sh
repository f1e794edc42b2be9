#!/usr/bin/env bash
# Runs the real-editor tests: the VS Code extension in code-server driven by
# headless Chromium, and the Neovim plugin headless on Neovim 0.7 and 0.10,
# all against the real kina-lsp; plus the grammar-sync tests of the TextMate
# grammar and the Vim syntax file. Installs what is missing first
# (scripts/setup-editors.sh, cached in $KINA_CACHE) and builds kina.vsix.
#
#   tests/editors/run-suite.sh [vscode|neovim|sync]...   (default: all)
#
# kina-lsp: $KINA_LSP, else build/lsp-server/kina-lsp. Screenshots and logs go
# to tests/editors/artifacts/. Last line: `N passed, N failed, N skipped`;
# exit status 1 when anything failed.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
export KINA_CACHE=${KINA_CACHE:-/var/cache/kina}
ARTIFACTS="$HERE/artifacts"
RESULTS="$ARTIFACTS/results.txt"
SUITES=("$@")
((${#SUITES[@]})) || SUITES=(sync vscode neovim)
want() { [[ " ${SUITES[*]} " == *" $1 "* ]]; }

rm -rf "$ARTIFACTS"
mkdir -p "$ARTIFACTS"
: >"$RESULTS"
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/kina-editors.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT

say() { printf '[editors] %s\n' "$*"; }
fail_all() { # reason, names...
  local why=$1
  shift
  for n in "$@"; do echo "FAIL $n: $why" >>"$RESULTS"; done
}
elapsed() { echo $((SECONDS - $1)); }

export KINA_LSP=${KINA_LSP:-$REPO/build/lsp-server/kina-lsp}
KINA_LSP=$(realpath -m "$KINA_LSP")
if [ ! -x "$KINA_LSP" ]; then
  say "warning: kina-lsp not found at $KINA_LSP; every check that needs the server will fail"
fi
export KINA_EDITOR_TIMEOUT_MS=${KINA_EDITOR_TIMEOUT_MS:-30000} KINA_EDITOR_FOLLOW_TIMEOUT_MS=${KINA_EDITOR_FOLLOW_TIMEOUT_MS:-15000}

# ---- tools (idempotent; seconds when warm) ----
t=$SECONDS
if ! env_lines=$("$REPO/scripts/setup-editors.sh" 2>"$ARTIFACTS/setup.log"); then
  cat "$ARTIFACTS/setup.log" >&2
  fail_all "scripts/setup-editors.sh failed (see tests/editors/artifacts/setup.log)" "setup-editors"
  env_lines=""
fi
while IFS='=' read -r k v; do [ -n "$k" ] && export "$k=$v"; done <<<"$env_lines"
say "setup-editors.sh: $(elapsed $t) s"

export npm_config_cache="$KINA_CACHE/npm-cache" npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
VSCODE_DIR="$REPO/editors/vscode"
node_counts() { # parse node --test output into PASS/FAIL lines
  local label=$1 log=$2
  grep -E '^(not )?ok [0-9]+ - ' "$log" | while read -r line; do
    if [[ $line == "not ok"* ]]; then
      echo "FAIL $label: ${line#not ok * - }"
    else
      echo "PASS $label: ${line#ok * - }"
    fi
  done >>"$RESULTS"
  grep -qE '^(not )?ok [0-9]+ - ' "$log" || echo "FAIL $label: no test ran (see $(basename "$log"))" >>"$RESULTS"
}

# ---- grammar sync (TextMate grammar and Vim syntax vs grammar/grammar.js) ----
ensure_vscode_deps() {
  if [ ! -d "$VSCODE_DIR/node_modules" ] || [ "$VSCODE_DIR/package-lock.json" -nt "$VSCODE_DIR/node_modules/.package-lock.json" ]; then
    (cd "$VSCODE_DIR" && npm ci --loglevel=error </dev/null >"$ARTIFACTS/npm-ci.log" 2>&1)
  fi
}
if want sync; then
  t=$SECONDS
  if ensure_vscode_deps; then
    (cd "$VSCODE_DIR" && node --test test/*.test.js) >"$ARTIFACTS/sync-textmate.log" 2>&1
    node_counts "sync" "$ARTIFACTS/sync-textmate.log"
    node --test "$HERE/syntax-sync.test.js" >"$ARTIFACTS/sync-vim.log" 2>&1
    node_counts "sync" "$ARTIFACTS/sync-vim.log"
  else
    fail_all "npm ci in editors/vscode failed (see npm-ci.log)" "sync: grammar tests"
  fi
  say "grammar sync: $(elapsed $t) s"
fi

# ---- VS Code in code-server ----
if want vscode; then
  t=$SECONDS
  export KINA_VSIX="$VSCODE_DIR/kina.vsix"
  stale=$(find "$VSCODE_DIR/src" "$VSCODE_DIR/syntaxes" "$VSCODE_DIR"/*.json "$VSCODE_DIR/esbuild.mjs" -newer "$KINA_VSIX" 2>/dev/null | head -1)
  if [ ! -f "$KINA_VSIX" ] || [ -n "$stale" ]; then
    if ! (ensure_vscode_deps && cd "$VSCODE_DIR" && npm run package </dev/null >"$ARTIFACTS/vsix-build.log" 2>&1); then
      tail -20 "$ARTIFACTS/vsix-build.log" >&2
      rm -f "$KINA_VSIX"
    fi
  fi
  say "kina.vsix: $(elapsed $t) s"
  if [ -f "$KINA_VSIX" ] && [ -n "${KINA_CODE_SERVER:-}" ]; then
    export KINA_EDITOR_ARTIFACTS="$ARTIFACTS"
    timeout -k 10 540 node "$HERE/vscode/code-server.test.mjs" >"$ARTIFACTS/vscode.log" 2>&1
    rc=$?
    grep -E '^(PASS|FAIL) ' "$ARTIFACTS/vscode.log" >>"$RESULTS"
    grep -qE '^(PASS|FAIL) ' "$ARTIFACTS/vscode.log" || fail_all "the VS Code suite exited $rc without results (see vscode.log)" "vscode: suite"
    [ "$rc" = 124 ] && fail_all "the VS Code suite timed out" "vscode: suite finished in time"
  else
    fail_all "no kina.vsix or no code-server (see vsix-build.log, setup.log)" "vscode: suite"
  fi
  say "VS Code suite: $(elapsed $t) s"
fi

# ---- Neovim 0.7 and 0.10 ----
if want neovim; then
  for pair in "0.7=${KINA_NVIM_07:-/usr/bin/nvim}" "0.10=${KINA_NVIM_010:-}"; do
    t=$SECONDS
    label=nvim-${pair%%=*}
    nv=${pair#*=}
    if [ -z "$nv" ] || [ ! -x "$nv" ]; then
      fail_all "Neovim not installed (see setup.log)" "$label: suite"
      continue
    fi
    d="$SCRATCH/nvim-$RANDOM"
    mkdir -p "$d"/{home,config,data,state,cache,work}
    part="$d/results.txt"
    : >"$part"
    HOME="$d/home" XDG_CONFIG_HOME="$d/config" XDG_DATA_HOME="$d/data" XDG_STATE_HOME="$d/state" \
      XDG_CACHE_HOME="$KINA_CACHE/nvim-test-cache" \
      KINA_RESULTS="$part" KINA_SCRATCH="$d/work" KINA_FIXTURES="$HERE/fixtures" KINA_PLUGIN="$REPO/editors/neovim" \
      timeout -k 5 300 "$nv" --headless --clean --cmd "set rtp^=$REPO/editors/neovim" \
      -c "luafile $HERE/neovim/test.lua" </dev/null >"$ARTIFACTS/neovim-$label.log" 2>&1
    rc=$?
    version=$(timeout 10 "$nv" --version 2>/dev/null | head -1)
    cat "$part" >>"$RESULTS"
    [ -s "$part" ] || fail_all "$version exited $rc without results (see neovim-$label.log)" "neovim ($version): suite"
    [ "$rc" = 124 ] && fail_all "$version timed out" "neovim ($version): suite finished in time"
    say "$version suite: $(elapsed $t) s"
  done
fi

cat "$RESULTS"
passed=$(grep -c '^PASS ' "$RESULTS")
failed=$(grep -c '^FAIL ' "$RESULTS")
echo "$passed passed, $failed failed, 0 skipped"
[ "$failed" = 0 ]
