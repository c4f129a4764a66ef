#!/bin/sh
# Stores a run of a scil binary as the reference the path-geometry comparison test
# (tests/it/catalogue.rs, `grid_matches_the_stored_run` and `rehearsal_matches_the_stored_run`) checks against:
#
#   tools/golden-paths.sh [SCIL]       (default: target/release/scil)
#
# writes tests/golden/paths/grid.csv (`scil catalogue grid` on the bundled proving ground and
# Euro NCAP X-intersection, no AEB) and tests/golden/paths/rehearsed.xlsx (`scil ncap
# rehearse` of tests/golden/paths/ca_preprocessed_template.xlsx, the rating tool's workbook
# with every prediction filled, 217 points, at the rehearse defaults). Regenerate both after a
# change that is meant to change results.
set -eu
cd "$(dirname "$0")/.."
SCIL=${1:-target/release/scil}
OUT=tests/golden/paths
"$SCIL" catalogue grid \
    --straight-map data/opendrive/proving_ground.xodr \
    --junction-map data/osc-ncap/OpenDRIVE/NCAP/X-Intersection_NCAP.xodr \
    --out "$OUT/grid.csv"
"$SCIL" ncap rehearse "$OUT/ca_preprocessed_template.xlsx" --out "$OUT/rehearsed.xlsx" --quiet
