"""training: self-play data, training of the value and policy-value nets, and expert iteration.

* ``data``: the self-play shards and their manifest, policy targets, data from recorded games.
* ``selfplay``: games of our search agents against themselves (value targets) and of the
  policy-value search (policy and value targets).
* ``optimize``: the training runs, their config and their resumable checkpoints.
* ``loop``: expert iteration in one command.
* ``imitation``: a policy-value net fitted to an engine's recorded moves.

The nets themselves, their safe files and the committed weights live in ``agents.nets``: agents
play with them without this package."""
