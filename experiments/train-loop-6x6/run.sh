#!/usr/bin/env bash
# The loop on 2 CPU cores improving a 6x6 net (issue 42's CPU target), then the best net against
# generations 0 and 1 in 100-game matches. Run from the repository root:
#   bash experiments/train-loop-6x6/run.sh [RUN_FOLDER]   (default /tmp/train-loop-6x6)
# Writes the run into RUN_FOLDER and copies its record (state, elo.csv, elo.png, match JSON) here.
set -euo pipefail
run=${1:-/tmp/train-loop-6x6}
here=$(dirname "$0")
export NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1
start=$(date +%s)
python3 -m amazons_cli train-loop "$run" --selfplay pvmcts --size 6 --generations 5 --device cpu --workers 2 \
  --bootstrap-games 64 --bootstrap-agent uct:sims=300 --games 64 --games-per-shard 16 --sims 48 \
  --channels 24 --blocks 2 --epochs 4 --gate-games 40 --gate-sims 48 --seed 0 --no-progress
best=$(python3 -c "from training.loop import read_state; print(read_state('$run')['best'])")
python3 -m amazons_cli match "pvmcts:sims=48,batch=8,weights=$run/gen-$(printf %03d "$best")/pv" \
  "pvmcts:sims=48,batch=8,weights=$run/gen-000/pv" --size 6 --games 100 --opening 2 --seed 1 --workers 2 \
  --json "$here/best-vs-gen0.json" --quiet
python3 -m amazons_cli match "pvmcts:sims=48,batch=8,weights=$run/gen-$(printf %03d "$best")/pv" \
  "pvmcts:sims=48,batch=8,weights=$run/gen-001/pv" --size 6 --games 100 --opening 2 --seed 1 --workers 2 \
  --json "$here/best-vs-gen1.json" --quiet
echo "wall time: $(( $(date +%s) - start )) s"
cp "$run/loop-state.json" "$run/elo.csv" "$here/"
cp "$run/elo.png" "$here/" 2>/dev/null || true
