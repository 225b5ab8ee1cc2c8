#!/bin/bash
# Old and new trees' speed, interleaved, one numba thread: ./speed_compare.sh OLD_TREE NEW_TREE
# (each a worktree; e.g. git worktree add /tmp/old 48675dc). Prints one JSON line per tree and figure.
set -euo pipefail
OLD=$1 NEW=$2 HERE=$(cd "$(dirname "$0")" && pwd)
export NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONWARNINGS=ignore
for rep in 1 2 3; do
  for what in perft vector uct; do
    for tree in "$OLD" "$NEW"; do
      echo "$rep $tree $what $(cd /tmp && PYTHONPATH=$tree python3 "$HERE/speed.py" $what)"
    done
  done
done
