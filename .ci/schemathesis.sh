#!/usr/bin/env bash
# API contract test: a fresh `scil serve` (temporary data dir, free port) under Schemathesis,
# which generates requests from the service's own OpenAPI document and checks every answer
# against it. Fails on any finding.
#   .ci/schemathesis.sh [SCIL_BINARY] [MAX_EXAMPLES]   (SCHEMATHESIS_EXTRA: more options, e.g. --include-name)
# Runs in a network namespace of its own with only loopback up: run bodies name carrier and
# source addresses, and a generated one must never reach a real host.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-target/debug/scil}")
examples=${2:-25}
if [ -z "${SCIL_IN_NETNS:-}" ]; then
  exec unshare -rn env SCIL_IN_NETNS=1 bash -c 'ip link set lo up && exec "$0" "$@"' "$0" "$bin" "$examples"
fi
work=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# No object answers in this namespace: arming and characterising wait 0.5 s for one, not the
# site default of 10 s (a characterise request that passes validation is a 409 either way).
printf '[ground]\nconnect_timeout_s = 0.5\n' >"$work/scil.toml"
SCIL_OPERATOR_TOKEN=contract-test SCIL_STORAGE_DIR="$work/data" \
  "$bin" serve --config "$work/scil.toml" --bind "127.0.0.1:$port" --database-url "sqlite://$work/scil.db" >"$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 150); do
  curl -sf "http://127.0.0.1:$port/api/v1/health" >/dev/null && break
  kill -0 $server 2>/dev/null || { cat "$work/server.log"; exit 1; }
  sleep 0.2
done
# Something to read: a finished replay run, a finished sweep and a test series (from Euro NCAP's
# rating tool), so that the run, sweep and series operations answer with content (JSON, CSV,
# Parquet, MCAP, HTML, XLSX) and reach their logic, not only 404.
api=http://127.0.0.1:$port/api/v1
post() { curl -sf -X POST -H "Authorization: Bearer contract-test" -H 'Content-Type: application/json' -d "$2" "$api$1"; }
field() { python3 -c "import json, sys; print(json.load(sys.stdin)['$1'])"; }
SCIL_CONTRACT_RUN=$(post /runs '{"scenario_id": "cpna75_30kmh", "replay": "cpna75_30kmh", "speed": "max", "start": true}' | field id)
SCIL_CONTRACT_SWEEP=$(post /sweeps '{"scenario_id": "cpna75_30kmh", "replays": ["cpna75_30kmh"]}' | field id)
wb=$(python3 .ci/rating_workbook.py "$work")
SCIL_CONTRACT_SERIES=$(curl -sf -X POST -H "Authorization: Bearer contract-test" \
  -F "file=@$wb" "$api/series" | field id)
# The runnable points of that series (a run of one then reaches the point's logic, not only 404).
SCIL_CONTRACT_POINTS=$(curl -sf "$api/series/$SCIL_CONTRACT_SERIES" | python3 -c \
  "import json, sys; print(' '.join(str(p['point']) for p in json.load(sys.stdin)['points'] if p.get('runnable')))")
export SCIL_CONTRACT_RUN SCIL_CONTRACT_SWEEP SCIL_CONTRACT_SERIES SCIL_CONTRACT_POINTS
for _ in $(seq 300); do
  run=$(curl -sf "$api/runs/$SCIL_CONTRACT_RUN" | field state)
  sweep=$(curl -sf "$api/sweeps/$SCIL_CONTRACT_SWEEP" | field state)
  [ "$run" = finished ] && [ "$sweep" != running ] && break
  sleep 0.2
done
[ "$run" = finished ] || { echo "setup run did not finish (state $run)" >&2; exit 1; }
status=0
# From the scratch directory: Schemathesis keeps a cache of its findings in the working directory.
config=$work/schemathesis.toml
python3 .ci/schemathesis_dictionaries.py "$config"
(cd "$work" && schemathesis --config-file "$config" --no-color run "http://127.0.0.1:$port/api/v1/openapi.json" \
  --checks all --max-examples "$examples" --seed "${SCHEMATHESIS_SEED:-1}" --workers 1 --generation-database none \
  --header "Authorization: Bearer contract-test" --request-timeout 20 ${SCHEMATHESIS_EXTRA:-}) || status=$?
if ! kill -0 $server 2>/dev/null; then
  echo "scil serve exited during the contract test:" >&2
  tail -n 50 "$work/server.log" >&2
  status=1
fi
exit $status
