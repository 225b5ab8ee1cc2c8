"""training: self-play data, training of the value and policy-value nets, and expert iteration.

* ``data``: the self-play shards and their manifest, policy targets, data from recorded games.
* ``selfplay``: games of our search agents against themselves (value targets) and of the
  policy-value search (policy and value targets).
* ``optimize``: the training runs, their config and their resumable checkpoints.
* ``loop``: expert iteration in one command.
* ``imitation``: a policy-value net fitted to an engine's recorded moves.

The nets themselves, their safe files and the committed weights live in ``agents.nets``: agents
play with them without this package."""

from amazons_env.moved import alias_moved_modules

# the modules of the flat layout, moved into subpackages by concept
alias_moved_modules(
    {
        "training.shards": "training.data.shards",
        "training.pv_data": "training.data.policy_value",
        "training.pv_records": "training.data.records",
        "training.pv_selfplay": "training.selfplay.policy_value",
        "training.config": "training.optimize.config",
        "training.checkpoint": "training.optimize.checkpoint",
        "training.train": "training.optimize.value",
        "training.pv_train": "training.optimize.policy_value",
    }
)
