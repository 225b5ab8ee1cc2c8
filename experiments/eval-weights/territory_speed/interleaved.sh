#!/bin/bash
# benchmarks/search/territory_speed.py before and after the phase-dependent scale, runs taking turns (best of 3
# rounds each, 3 runs a side after a warm-up that compiles each tree's kernels):
#   git worktree add --detach /tmp/g_base f9bf7cf          # before: the kernels without scale_phase
#   git worktree add --detach /tmp/g_after f9bf7cf && git -C /tmp/g_after checkout 8f247c5 -- agents/evaluation
# (the two trees differ in agents/evaluation only; uct plays the study set in both)
OUT=$(cd "$(dirname "$0")" && pwd)
export NUMBA_NUM_THREADS=1
for i in 0 1 2 3; do
  for tree in base after; do
    if [ $i = 0 ]; then
      (cd /tmp/g_$tree && PYTHONPATH=/tmp/g_$tree python3 benchmarks/search/territory_speed.py --sizes 8 --rounds 1 --sims 200 > /dev/null)
      continue
    fi
    (cd /tmp/g_$tree && PYTHONPATH=/tmp/g_$tree python3 benchmarks/search/territory_speed.py --sizes 8 10 --rounds 3 --json "$OUT/${tree}_$i.json")
  done
done
