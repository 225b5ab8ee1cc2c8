"""training.tuning: the ``territory`` evaluation's weights fitted to data, per board size.

* ``data``: labelled positions, from uct self-play games (the outcome) and a deeper uct search
  (its root value), resumable.
* ``model``: the evaluation's value as a function of its weights over parameter-free terms of
  each position (``agents.evaluation.territory_mailbox.terms``), equal to the kernel's.
* ``fit``: the Texel-style fit of the weights, per board size (and phase bucket), with a held-out
  split and the losses of the fitted set against the study set; the parameter file it writes is
  read by ``agents.evaluation.territory_weights``.
* ``pipeline``: data, then the fit, then the parameter file, in one call (``amazons tune-eval``).
"""
