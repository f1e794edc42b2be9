#!/usr/bin/env bash
# The README's main job: setup, build, then for every stdlib/*.kina and
# examples/*.kina kernel file:
#   kina check FILE                          (the type checker)
#   kina build FILE --emit=ptx -o OUT.ptx    (PTX into $KINA_BUILD_DIR/demo/)
#   kina report FILE [ARGS]                  (registers, spills, shared memory,
#                                             occupancy; every kernel of the file)
#   kina run FILE --check [ARGS]             (where `nvidia-smi -L` lists a GPU)
#   kina run FILE --interpret [ARGS]         (elsewhere: the tile-IR interpreter)
# A file may give the ARGS for report and run in comment lines, one run per
# line, e.g. `// demo: run --kernel gemm_tc --dims M=256,N=256,K=256`
# and `// demo: report --kernel gemm_tc --target sm_90a`. Without `demo: run`
# lines, each kernel runs at its `small` size from tests/gpu/sizes.txt (or a
# `// gpu-size:` line in the file), else at its first size there.
# A subcommand that this build of `kina` does not have yet is reported as
# skipped; a `kina run` that prints `SKIP:` is skipped; every other non-zero
# exit is a failure, and the script exits 1 when any step failed.
#
# Usage: scripts/demo.sh [--no-setup] [--no-build] [FILE.kina ...]
set -uo pipefail
# shellcheck source=scripts/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

DO_SETUP=1
DO_BUILD=1
files=()
for arg in "$@"; do
  case "$arg" in
  --no-setup) DO_SETUP=0 ;;
  --no-build) DO_BUILD=0 ;;
  -h | --help)
    sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'
    exit 0
    ;;
  -*) die "unknown argument '$arg' (usage: scripts/demo.sh [--no-setup] [--no-build] [FILE.kina ...])" ;;
  *) files+=("$(realpath "$arg")") ;;
  esac
done

T0=$(now_s)
cd "$KINA_ROOT" || exit 1
if ((DO_SETUP)); then
  "$KINA_ROOT/scripts/setup.sh" || die "setup failed"
fi
kina_load_env
if ((DO_BUILD)); then
  "$KINA_ROOT/scripts/build.sh" || die "build failed"
fi

# The kina binary: $KINA_BIN, else where the driver's CMake puts it, else a search.
KINA=${KINA_BIN:-}
if [ -z "$KINA" ]; then
  for cand in "$KINA_BUILD_DIR/compiler/driver/kina" "$KINA_BUILD_DIR/bin/kina"; do
    [ -x "$cand" ] && KINA=$cand && break
  done
fi
if [ -z "$KINA" ]; then
  KINA=$(find "$KINA_BUILD_DIR" -name CMakeFiles -prune -o -type f -name kina -perm -u+x -print 2>/dev/null | head -1)
fi
[ -n "$KINA" ] && [ -x "$KINA" ] || die "the kina binary was not built in $KINA_BUILD_DIR"

if ((${#files[@]} == 0)); then
  shopt -s nullglob
  files=("$KINA_ROOT"/stdlib/*.kina "$KINA_ROOT"/examples/*.kina)
  shopt -u nullglob
fi
((${#files[@]})) || die "no kernels to run: stdlib/*.kina and examples/*.kina are empty"

# has_subcommand SUB: whether this kina has SUB (its help lists it, or
# `kina SUB --help` prints a usage line for it).
declare -A have=()
main_help=$("$KINA" --help 2>&1 </dev/null || true)
has_subcommand() {
  if [ -z "${have[$1]:-}" ]; then
    have[$1]=no
    if awk -v want="$1" 'tolower($0) ~ /^ *(sub)?commands:/ { on = 1; next }
                        on && /^[^ \t]/ { on = 0 }
                        on && $1 == want { found = 1 }
                        END { exit !found }' <<<"$main_help"; then
      have[$1]=yes
    elif "$KINA" "$1" --help </dev/null 2>&1 | grep -qiE "^usage: *[^ ]*kina $1( |$)"; then
      have[$1]=yes
    fi
  fi
  [ "${have[$1]}" = yes ]
}

GPU=0
if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q GPU; then
  GPU=1
fi

OUT="$KINA_BUILD_DIR/demo"
mkdir -p "$OUT"
ok=0
failed=0
skipped=0
failures=()
skip_notes=()

# step LABEL SUB ARGS...: runs `kina SUB ARGS...` and counts the outcome.
step() {
  local label=$1 sub=$2
  shift 2
  if ! has_subcommand "$sub"; then
    skipped=$((skipped + 1))
    skip_notes+=("kina $sub (not in this build)")
    printf '  %-8s SKIP  kina %s is not available yet\n' "$sub" "$sub"
    return 0
  fi
  local output rc
  output=$("$KINA" "$sub" "$@" </dev/null 2>&1)
  rc=$?
  if ((rc == 0)) && ! grep -q '^SKIP:' <<<"$output"; then
    ok=$((ok + 1))
    printf '  %-8s ok    %s\n' "$sub" "$label"
    [ -n "$output" ] && sed 's/^/           /' <<<"$output"
  elif grep -q '^SKIP:' <<<"$output"; then
    skipped=$((skipped + 1))
    skip_notes+=("$label: $(grep -m1 '^SKIP:' <<<"$output")")
    printf '  %-8s SKIP  %s\n' "$sub" "$label"
    sed 's/^/           /' <<<"$output"
  else
    failed=$((failed + 1))
    failures+=("kina $sub $* (exit $rc)")
    printf '  %-8s FAIL  %s (exit %d)\n' "$sub" "$label" "$rc"
    sed 's/^/           /' <<<"$output"
  fi
}

# demo_args FILE WHAT: the ARGS of each `// demo: WHAT ARGS` line in FILE.
demo_args() {
  sed -n "s|^[[:space:]]*//[[:space:]]*demo:[[:space:]]*$2\\([[:space:]].*\\)\\{0,1\\}\$|\\1|p" "$1" |
    sed 's/^[[:space:]]*//'
}

# size_args FILE: `--kernel K --dims D` for each kernel K of FILE, D its
# `small` size (else its first) in the file's `// gpu-size:` lines or
# tests/gpu/sizes.txt; `--kernel K` alone for a kernel listed with dims `-`.
SIZES="$KINA_ROOT/tests/gpu/sizes.txt"
size_args() {
  local k d
  for k in $(sed -nE 's/^[[:space:]]*kernel[[:space:]]+([A-Za-z_][A-Za-z0-9_]*).*/\1/p' "$1"); do
    d=$({
      sed -nE 's|^[[:space:]]*//[[:space:]]*gpu-size:[[:space:]]*(.*)$|\1|p' "$1"
      [ -f "$SIZES" ] && cat "$SIZES"
    } | awk -v k="$k" '$1 == k { if (first == "") first = $2; if ($3 == "small") { print $2; found = 1; exit } }
                      END { if (!found && first != "") print first }')
    if [ "$d" = - ]; then
      echo "--kernel $k"
    elif [ -n "$d" ]; then
      echo "--kernel $k --dims $d"
    else
      echo "--kernel $k"
    fi
  done
}

for file in "${files[@]}"; do
  rel=${file#"$KINA_ROOT"/}
  name=$(basename "$file" .kina)
  echo "== $rel"
  step "$rel" check "$file"
  step "$rel -> ${OUT#"$KINA_ROOT"/}/$name.ptx" build "$file" --emit=ptx -o "$OUT/$name.ptx"
  mapfile -t report_args < <(demo_args "$file" report)
  ((${#report_args[@]})) || report_args=("")
  for a in "${report_args[@]}"; do
    read -r -a extra <<<"$a"
    step "$rel${a:+ $a}" report "$file" "${extra[@]}"
  done
  mapfile -t run_args < <(demo_args "$file" run)
  ((${#run_args[@]})) || mapfile -t run_args < <(size_args "$file")
  ((${#run_args[@]})) || run_args=("")
  for a in "${run_args[@]}"; do
    read -r -a extra <<<"$a"
    if ((GPU)); then
      step "$rel${a:+ $a} --check" run "$file" --check "${extra[@]}"
    else
      step "$rel${a:+ $a} --interpret" run "$file" --interpret "${extra[@]}"
    fi
  done
done

echo
echo "demo: ${#files[@]} files, $ok steps ok, $failed failed, $skipped skipped in $(elapsed "$T0") s"
((GPU)) || echo "  note: no GPU (nvidia-smi -L lists none): kina run used the tile-IR interpreter (--interpret), not --check"
for n in "${skip_notes[@]}"; do echo "  skipped: $n"; done | sort | uniq -c | sed 's/^ *\([0-9]*\) /  \1x /'
for f in "${failures[@]}"; do echo "  FAILED: $f"; done
((failed == 0))
