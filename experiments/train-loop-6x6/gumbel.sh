#!/usr/bin/env bash
# The same loop with --selfplay gumbel (Gumbel AlphaZero's batched search on torch tensors, the
# self-play engine of the GPU round, here on the CPU), then the best net against generation 1 (the
# first trained on self-play) in a 100-game match of the gumbel agent. Run from the repository root:
#   bash experiments/train-loop-6x6/gumbel.sh [RUN_FOLDER]   (default /tmp/train-loop-6x6-gumbel)
set -euo pipefail
run=${1:-/tmp/train-loop-6x6-gumbel}
here=$(dirname "$0")/gumbel
mkdir -p "$here"
export NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1
start=$(date +%s)
python3 -m amazons_cli train-loop "$run" --selfplay gumbel --size 6 --generations 4 --device cpu --workers 2 \
  --bootstrap-games 64 --bootstrap-agent uct:sims=300 --games 64 --games-per-shard 32 --sims 32 \
  --gumbel-m 8 --gumbel-k 16 --channels 24 --blocks 2 --epochs 4 --gate-games 40 --gate-sims 32 --seed 0 \
  --no-progress
best=$(python3 -c "from training.loop import read_state; print(read_state('$run')['best'])")
python3 -m amazons_cli match \
  "gumbel:sims=32,m=8,k=16,device=cpu,weights=$run/gen-$(printf %03d "$best")/pv" \
  "gumbel:sims=32,m=8,k=16,device=cpu,weights=$run/gen-001/pv" --size 6 --games 100 --opening 2 --seed 1 \
  --workers 2 --json "$here/best-vs-gen1.json" --quiet
echo "wall time: $(( $(date +%s) - start )) s"
cp "$run/loop-state.json" "$run/elo.csv" "$here/"
cp "$run/elo.png" "$here/" 2>/dev/null || true
