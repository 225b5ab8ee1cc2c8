"""Gumbel AlphaZero's search on torch tensors: B games in lock-step, one forward pass per simulation.

The design of mctx's ``gumbel_muzero_policy`` (Danihelka et al. 2022, "Policy improvement by
planning with Gumbel"): at the root, ``m`` actions sampled without replacement by Gumbel-top-m and
Sequential Halving over the simulations (``root``); below it, mctx's deterministic choice; the
training target the improved policy ``softmax(logits + completed Q)``. Everything is a tensor on
one device (CPU or GPU), batched over games: simulation ``s`` of all ``B`` games descends together
and ends in one forward pass of the policy-value net for the ``B`` new leaves (``tree``).

**Nodes are whole moves.** A node is a position with the side to move to play; its children are
its ``K`` most probable whole moves (slide and arrow) under the net's factorised prior, found in
torch from the one forward pass that evaluates the position (``children``: the best slides, the
best arrows of each, the best of the pairs). The alternative, a node per phase (a slide, then its
arrow), would keep every node's arrow logits (``LINES x N x N`` floats) to expand its slides'
arrow nodes later, or run the net again; with whole moves a tree is ``[B, nodes, K]`` small arrays,
each simulation adds one node per game, and the sides alternate at every edge. What it gives up:
the moves outside a node's top ``K`` are never searched (the prior's mass there is small; ``K``
and the slides and arrows considered are settings).

``planes``: the net's input on tensors (equal to ``agents.nets.planes``'s). ``regions``: whether
the sides' amazons still share a region (self-play counts the filling phase only once they do not).
``agent``: the search as the agent ``gumbel``; ``training.selfplay.policy_value`` plays its
self-play games with it.
"""
