#!/bin/bash
# issue 38 "No loss": after (52d8cee) vs before (38c00b6); the match harness is the after worktree's (a fixed commit)
cd /tmp/after38
OUT=/work/main/experiments/search-core-no-loss
T=0.1
for m in "uct 8" "uct 10" "uct-net 8" "uct-net 10"; do
  set -- $m
  echo "=== $1 size $2 start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
  PYTHONPATH=/tmp/after38 python3 -c "import sys; from amazons_cli.main import command; sys.exit(command())" match \
    "uci:/tmp/engines/after_$1.sh" "uci:/tmp/engines/before_$1.sh" --size $2 --games 200 --time $T \
    --workers 2 --opening 2 --json $OUT/$1-$2.json --records /tmp/i38rec/$1-$2 --quiet
  echo "=== $1 size $2 end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
done
