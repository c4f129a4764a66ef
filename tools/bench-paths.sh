#!/bin/sh
# Side-by-side timing of two scil binaries on the path-heavy commands (a baseline build, e.g.
# of the previous path code, against a new one), measured in the same run, interleaved:
#
#   tools/bench-paths.sh BASE_BIN NEW_BIN [ROUNDS]      (default ROUNDS: 3)
#
# * grid:        `scil catalogue grid` on the bundled proving ground and Euro NCAP
#                X-intersection (every placeable row × every cell)
# * turn-across: the same grid restricted to the turn-across-path rows (`--only ta`: CBTA,
#                CPTA, CCFtap, CMFtap and their stop-and-go variants); also net of the grid's
#                fixed cost (process start and catalogue: `--only` a row that does
#                not exist, which loads no map), which is the rows' own share
# * rehearse:    `scil ncap rehearse` of the golden workbook (217 points)
# * replay:      `scil bench replay` of the new binary (its replay/plain ratio; printed, as
#                measured in that run)
#
# Each figure is the best (smallest) of ROUNDS runs: wall time and CPU time (user + system) of
# the process. Ratios are base / new. Nothing here is asserted: timings depend on the machine
# and its load, which is why both binaries are run in the same session, turn about.
set -eu
cd "$(dirname "$0")/.."
BASE=$1
NEW=$2
ROUNDS=${3:-3}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
MAPS="--straight-map data/opendrive/proving_ground.xodr --junction-map data/osc-ncap/OpenDRIVE/NCAP/X-Intersection_NCAP.xodr"
WORKBOOK=tests/golden/paths/ca_preprocessed_template.xlsx

# measure NAME BIN ARGS…: one run; appends "wall cpu" to $TMP/NAME.
measure() {
    name=$1
    bin=$2
    shift 2
    /usr/bin/time -f "%e %U %S" -o "$TMP/time" "$bin" "$@" >"$TMP/out" 2>&1 || {
        echo "failed: $bin $*" >&2
        cat "$TMP/out" >&2
        exit 1
    }
    awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' "$TMP/time" >>"$TMP/$name"
}

# best NAME: "wall cpu", each the smallest of the rounds.
best() {
    awk 'NR == 1 || $1 < w { w = $1 } NR == 1 || $2 < c { c = $2 } END { printf "%.3f %.3f", w, c }' "$TMP/$1"
}

r=1
while [ "$r" -le "$ROUNDS" ]; do
    echo "round $r of $ROUNDS" >&2
    for who in base new; do
        if [ "$who" = base ]; then bin=$BASE; else bin=$NEW; fi
        # shellcheck disable=SC2086
        measure "grid.$who" "$bin" catalogue grid $MAPS --out "$TMP/grid.$who.csv"
        # shellcheck disable=SC2086
        measure "ta.$who" "$bin" catalogue grid $MAPS --only ta
        # shellcheck disable=SC2086
        measure "fixed.$who" "$bin" catalogue grid $MAPS --only no-such-row
        measure "rehearse.$who" "$bin" ncap rehearse "$WORKBOOK" --out "$TMP/r.$who.xlsx" --quiet
    done
    r=$((r + 1))
done

echo
printf '%-22s %18s %18s %16s\n' "" "base wall / CPU s" "new wall / CPU s" "ratio wall / CPU"
for m in grid ta fixed rehearse; do
    set -- $(best "$m.base") $(best "$m.new")
    case $m in
    grid) label="grid (2237 cells)" ;;
    ta) label="turn-across rows" ;;
    fixed) label="grid fixed cost" ;;
    rehearse) label="rehearse (217 points)" ;;
    esac
    printf '%-22s %8.2f / %7.2f %8.2f / %7.2f %7.1f× / %5.1f×\n' "$label" "$1" "$2" "$3" "$4" \
        "$(echo "$1 / $3" | bc -l)" "$(echo "$2 / $4" | bc -l)"
done
set -- $(best ta.base) $(best fixed.base) $(best ta.new) $(best fixed.new)
printf '%-22s %8.2f / %7.2f %8.2f / %7.2f %7.1f× / %5.1f×\n' "turn-across net" \
    "$(echo "$1 - $3" | bc -l)" "$(echo "$2 - $4" | bc -l)" \
    "$(echo "$5 - $7" | bc -l)" "$(echo "$6 - $8" | bc -l)" \
    "$(echo "($1 - $3) / ($5 - $7)" | bc -l)" "$(echo "($2 - $4) / ($6 - $8)" | bc -l)"
if cmp -s tests/golden/paths/grid.csv "$TMP/grid.new.csv"; then
    echo "new grid: the same CSV as tests/golden/paths/grid.csv, byte for byte"
else
    echo "new grid: differs from tests/golden/paths/grid.csv (cargo test --test it catalogue:: checks the tolerances)"
fi

echo
echo "replay bench (new binary):"
"$NEW" bench replay data/replays/cpna75_30kmh.csv --scenario data/scenarios/cpna75_30kmh.toml \
    --repeat 200 --rounds 5 2>&1 | grep -i "ratio" || true
