"""Fine-tune a policy-value net on one search's moves in arena results files, on one board size.

    python3 experiments/pv-10x10/finetune.py OUT START SIZE EPOCHS LR PLAYER RESULTS...

OUT: the model base path (OUT.json, OUT.safetensors; the shards go to OUT-data/, reused when
there); START: committed weights by name or a model path; PLAYER: the spec prefix whose moves
are the targets (one-hot), the game results the value targets.
"""

import sys
import time
from pathlib import Path

import torch

from agents.nets.export import load_model, save_model
from agents.nets.store import POLICY_VALUE_WEIGHTS, weights_path

from training.data.policy_value import load_pv_dataset
from training.data.records import write_record_shards
from training.optimize.policy_value import train_pv


def main() -> None:
    out, start, size, epochs, lr, player, *results = sys.argv[1:]
    size, epochs, lr = int(size), int(epochs), float(lr)
    torch.set_num_threads(1)
    data_folder = Path(out + "-data")
    if not data_folder.exists():
        write_record_shards(data_folder, results, player, size)
    data, data_hash = load_pv_dataset(data_folder)
    model = load_model(weights_path(start, size, POLICY_VALUE_WEIGHTS))[0]
    began = time.time()
    history = train_pv(model, data, epochs, 256, lr, seed=0, progress=False)
    for row in history:
        print(row, flush=True)
    recipe = {
        "positions": int(len(data["sides"])),
        "history": history,
        "start": start,
        "epochs": epochs,
        "lr": lr,
        "player": player,
        "results": [Path(r).name for r in results],
    }
    path = save_model(model, out, board_size=size, recipe=recipe, data_hash=data_hash)
    print(path, f"{time.time() - began:.0f} s", len(data["sides"]), "positions")


if __name__ == "__main__":  # a script, run from the repository root (command.txt)
    main()
