"""Nodes and seconds per move of each side of the arena results JSON files given (both engines' own counts)."""

import json
import sys

for path in sys.argv[1:]:
    with open(path) as f:
        data = json.load(f)
    totals = {data["a"]: [0, 0.0, 0], data["b"]: [0, 0.0, 0]}
    for game in data["results"]:
        for colour, spec in enumerate((game["white"], game["black"])):
            totals[spec][0] += game["nodes"][colour]
            totals[spec][1] += game["seconds"][colour]
            totals[spec][2] += game["moves"][colour]
    for spec, (nodes, seconds, moves) in totals.items():
        per_move = f"{nodes / moves:.0f} nodes/move, {seconds / moves:.4f} s/move"
        print(f"{path} {spec}: {per_move}, {nodes / seconds:.0f} nodes/s")
