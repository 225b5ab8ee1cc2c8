"""Training runs: the value nets (``value``), the policy-value net (``policy_value``), the run's
config (``config``) and its resumable state (``checkpoint``)."""
