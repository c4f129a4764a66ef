#!/usr/bin/env bash
# A scil sweep as a Slurm job array: one array task per shard. `--shard auto` reads
# SLURM_ARRAY_TASK_ID (made 0-based with SLURM_ARRAY_TASK_MIN) and the shard count from
# SLURM_ARRAY_TASK_COUNT, so the --array range alone decides the split.
#
#   sbatch deploy/slurm-sweep.sh                      # 16 shards (the --array line below)
#   sbatch --array=0-63 deploy/slurm-sweep.sh         # or 64
#   # when every task is done (or chain it: sbatch --dependency=afterok:<jobid> …):
#   scil sweep merge "$SCIL_SWEEP_OUT"/shard-* --out "$SCIL_SWEEP_OUT"/merged
#
# SCIL (the scil binary), SCIL_DATA (scenarios and replays) and SCIL_SWEEP_OUT (a directory on
# a file system every node sees) can be set in the environment sbatch passes on.
#SBATCH --job-name=scil-sweep
#SBATCH --array=0-15
#SBATCH --cpus-per-task=4
#SBATCH --mem=2G
#SBATCH --time=02:00:00
#SBATCH --output=scil-sweep-%A_%a.log
set -euo pipefail

SCIL=${SCIL:-scil}
DATA=${SCIL_DATA:-/usr/share/scil/data}
OUT=${SCIL_SWEEP_OUT:-$PWD/scil-sweep-${SLURM_ARRAY_JOB_ID:-local}}
mkdir -p "$OUT"

exec "$SCIL" sweep \
  --scenario "$DATA/scenarios/cpna75_30kmh.toml" \
  --replay "$DATA/replays/cpna75_10kmh.csv" \
  --replay "$DATA/replays/cpna75_30kmh.csv" \
  --replay "$DATA/replays/cpna75_50kmh.csv" \
  --vary method=predicted,at_sample \
  --vary noise.pos=0,0.02,0.05 \
  --vary dropout=0,0.05 \
  --repeat 200 \
  --jobs "${SLURM_CPUS_PER_TASK:-0}" \
  --shard auto \
  --quiet \
  --out "$OUT/shard-${SLURM_ARRAY_TASK_ID:?run under sbatch (or set SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT)}"
