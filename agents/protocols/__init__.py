"""Engine protocols: our agents as engines (``uci_engine``, ``botzone``) and external UCI engines
as agents (``uci_client``)."""
