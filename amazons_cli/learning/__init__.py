"""The commands that learn: self-play data (``selfplay``), value nets (``train``), expert iteration
(``train-loop``), a policy-value net fitted to an engine's moves (``train-policy``) and the
evaluation weights fitted to games (``tune-eval``)."""
