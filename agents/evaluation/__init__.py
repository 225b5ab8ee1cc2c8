"""Position evaluation, separate from search: the ``Evaluator`` interface and its registry
(``evaluator``), the study's heuristics (``study``), the territory evaluation on mailbox and
bitboards (``territory``, ``territory_bitboard``, ``bitboards``) and the learned value net (``value_net``)."""
