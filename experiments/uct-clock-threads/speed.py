"""uct simulations per CPU second from the start, for the tree on PYTHONPATH (run it once per tree,
interleaved: see command.txt): ``python3 speed.py SIZE SIMS REPEATS`` prints the sorted rates of
REPEATS searches of ``uct:sims=SIMS``, each by a new agent (a fresh tree, as before tree arrays were
kept between moves). Only public names, so that it runs on the trees before and after."""

from __future__ import annotations

import json
import sys
import time

from amazons_env import Board

import agents

size, sims, repeats = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
agents.make("uct:sims=100", seed=0).select_move(Board(size))  # compiled, warm
rates = []
for _ in range(repeats):
    agent = agents.make(f"uct:sims={sims}", seed=0)
    start = time.process_time()
    agent.select_move(Board(size))
    rates.append(sims / (time.process_time() - start))
print(json.dumps(sorted(rates)))
