"""Train a policy-value net on bootstrap shards (from scratch or from committed weights)."""

import sys
import time

import torch

from agents.nets.export import load_model, save_model
from agents.nets.policy_value import PolicyValueNet
from agents.search.pvmcts import pv_weights_path

from training.data.policy_value import load_pv_dataset
from training.optimize.policy_value import train_pv


def main() -> None:
    folder, out, start, epochs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    lr = float(sys.argv[5]) if len(sys.argv) > 5 else 2e-3
    torch.set_num_threads(1)
    data, data_hash = load_pv_dataset(folder.split(","))
    model = PolicyValueNet(32, 3) if start == "scratch" else load_model(pv_weights_path(start, 8))[0]
    t = time.time()
    history = train_pv(model, data, epochs, 256, lr, seed=0, progress=False)
    for row in history:
        print(row, flush=True)
    recipe = {
        "positions": int(len(data["sides"])),
        "history": history,
        "start": start,
        "epochs": epochs,
        "lr": lr,
        "data": folder,
    }
    print(save_model(model, out, board_size=8, recipe=recipe, data_hash=data_hash), time.time() - t, len(data["sides"]))


if __name__ == "__main__":  # a script, run from the repository root (command.txt)
    main()
