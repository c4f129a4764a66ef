#!/usr/bin/env bash
# Builds every cargo-fuzz target and runs each for SECONDS (default 30), one after the other,
# starting from the seed corpus in fuzz/corpus/<target>/. New inputs go to a scratch directory
# (the seeds stay as committed). Fails on the first crash, leak, timeout or out-of-memory; the
# input that caused it is left in fuzz/artifacts/<target>/.
#   fuzz/run.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")"
secs=${1:-30}
shift || true
# cargo-fuzz needs nightly-only rustc flags (sanitizers); RUSTC_BOOTSTRAP lets the stable
# toolchain accept them. Sanitizer builds get their own target directory
# (CARGO_FUZZ_TARGET_DIR, default target/fuzz): they cannot share the workspace's builds.
export RUSTC_BOOTSTRAP=1
export CARGO_TARGET_DIR=${CARGO_FUZZ_TARGET_DIR:-$PWD/../target/fuzz}
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
targets=("$@")
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(cargo fuzz list)
cargo fuzz build -O
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for t in "${targets[@]}"; do
  mkdir -p "$scratch/$t"
  echo "== fuzz $t (${secs}s)"
  # -rss_limit_mb: a parser that allocates without bound on small input is a finding too.
  if ! cargo fuzz run -O "$t" "$scratch/$t" "corpus/$t" -- \
      -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
      >"$scratch/$t.log" 2>&1; then
    tail -n 60 "$scratch/$t.log"
    echo "fuzz target $t failed (input in fuzz/artifacts/$t/)" >&2
    exit 1
  fi
  grep -E '^#[0-9]+ +DONE|stat::number_of_executed_units' "$scratch/$t.log" | tail -n 2
done
