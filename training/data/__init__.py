"""Training data: self-play shards and their manifest (``shards``), policy-value targets
(``policy_value``), and policy-value data from recorded games (``records``)."""
