#!/usr/bin/env bash
# Builds every cargo-fuzz target and runs each for SECONDS (default 30), starting from the seed
# corpus in fuzz/corpus/<target>/. New inputs go to a scratch directory (the seeds stay as
# committed). Fails on the first crash, leak, timeout or out-of-memory; the input that caused it
# is left in fuzz/artifacts/<target>/.
#   fuzz/run.sh [SECONDS|build] [TARGET...]
# `build` only builds the targets. FUZZ_JOBS=N runs N targets at a time (libFuzzer uses one core
# per target; default 1). FUZZ_CODEGEN_UNITS=N builds with N codegen units instead of
# cargo-fuzz's one: a build several times faster on several cores, for slightly slower runs
# (CI's short runs). FUZZ_SANITIZER=none builds without AddressSanitizer (CI's short runs: a
# panic, an overflow, a timeout or an allocation past the limit is still found, but not a leak
# or a memory error in unsafe code; the long runs keep cargo-fuzz's default, address).
# FUZZ_PROFILE=dev builds with fuzz/Cargo.toml's dev profile instead of release: the readers
# and their parsing libraries at opt-level 1, the rest unoptimised, debug assertions and
# overflow checks on (CI's short runs: a far shorter build, for fewer inputs per second).
set -euo pipefail
cd "$(dirname "$0")"
secs=${1:-30}
shift || true
jobs=${FUZZ_JOBS:-1}
# cargo-fuzz needs nightly-only rustc flags (sanitizers); RUSTC_BOOTSTRAP lets the stable
# toolchain accept them. Sanitizer builds get their own target directory
# (CARGO_FUZZ_TARGET_DIR, default target/fuzz): they cannot share the workspace's builds.
export RUSTC_BOOTSTRAP=1
export CARGO_TARGET_DIR=${CARGO_FUZZ_TARGET_DIR:-$PWD/../target/fuzz}
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
targets=("$@")
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(cargo fuzz list)
cg=()
[ -n "${FUZZ_CODEGEN_UNITS:-}" ] && cg=(--codegen-units "$FUZZ_CODEGEN_UNITS")
[ -n "${FUZZ_SANITIZER:-}" ] && cg+=(--sanitizer "$FUZZ_SANITIZER")
mode=(-O)
[ "${FUZZ_PROFILE:-release}" = dev ] && mode=(--dev)
cargo fuzz build "${mode[@]}" "${cg[@]}"
[ "$secs" = build ] && exit 0
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# One target: its log in the scratch directory; on a finding, the log's tail and a failure.
run_one() {
  local t=$1
  mkdir -p "$scratch/$t"
  # -rss_limit_mb: a parser that allocates without bound on small input is a finding too.
  if ! cargo fuzz run "${mode[@]}" "${cg[@]}" "$t" "$scratch/$t" "corpus/$t" -- \
      -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
      >"$scratch/$t.log" 2>&1; then
    tail -n 60 "$scratch/$t.log"
    echo "fuzz target $t failed (input in fuzz/artifacts/$t/)" >&2
    return 1
  fi
}

# Results in target order, whatever order the runs end in.
report() {
  local t=$1
  echo "== fuzz $t (${secs}s)"
  grep -E '^#[0-9]+ +DONE|stat::number_of_executed_units' "$scratch/$t.log" | tail -n 2
}

pending=()
for t in "${targets[@]}"; do
  run_one "$t" &
  pending+=("$t:$!")
  if [ ${#pending[@]} -ge "$jobs" ]; then
    entry=${pending[0]}
    pending=("${pending[@]:1}")
    wait "${entry##*:}" || exit 1
    report "${entry%%:*}"
  fi
done
for entry in "${pending[@]}"; do
  wait "${entry##*:}" || exit 1
  report "${entry%%:*}"
done
