"""``pvmcts``: PUCT search guided by a policy-value net (``agents.nets.policy_value``).

**The tree has two levels per move.** A position node (``Node``) holds the side to move's legal
moves grouped by queen slide (the rules core lists a slide's arrows together). Selection first
picks a slide by PUCT over the slides (prior: the net's slide softmax), then one of that slide's
arrows by PUCT over its arrows (prior: the arrow softmax given the slide's destination). The
whole move leads to the child position. Slide and arrow statistics of a node are both kept for
the node's side to move, so a value changes sign only from one position to the next, never
between the slide and the arrow (``backup``).

**Leaves in batches.** ``gather`` descends up to ``batch`` times with a virtual loss on the path
(each pending descent counts as a lost visit, so the next one goes elsewhere), ``expand``
evaluates all the leaves in one forward pass (``PVNet.evaluate``: legal moves of every leaf in one
numba call, input planes, the net under ``torch.inference_mode``) and backs up. ``run_trees``
does this for many trees in lock-step: one forward pass serves a leaf from each of them (the
self-play of ``training.selfplay.policy_value``). A position without a legal move is a loss for its side to
move, with no net call.

The agent (``make("pvmcts:time=1")``): ``time`` seconds per move (default 1) or ``sims``
simulations; ``c`` the PUCT constant; ``batch`` leaves per forward pass; ``weights`` the committed
net by name (``default``) or a model file path; ``threads`` torch threads (1: one per process, as
the arena wants). The subtree of the position reached is kept between moves. The move is the most
visited slide and its most visited arrow.

>>> import tempfile, os
>>> from amazons_env import Board
>>> from agents import make
>>> from agents.nets.export import save_model
>>> from agents.nets.policy_value import PolicyValueNet
>>> path = save_model(PolicyValueNet(channels=8, blocks=1), os.path.join(tempfile.mkdtemp(), "pv"), board_size=6)
>>> agent = make(f"pvmcts:sims=40,batch=4,weights={path}")
>>> board = Board(6)
>>> result = agent.search(board)
>>> board.is_legal(result.move), result.simulations >= 40
(True, True)
"""

from __future__ import annotations

import importlib.util
import math
import time as _time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np

from amazons_env import Board, Move, core
from amazons_env.errors import IllegalMoveError, InvalidArgumentError

from agents.base import Agent
from agents.search.clock import Clock
from agents.nets import onnx_runtime, require_torch
from agents.nets.onnx_runtime import RUNTIME_HELP, RUNTIMES, OnnxRunner
from agents.options import TIME, OptionError, opt
from agents.registry import register

__all__ = ["PVNet", "Node", "Tree", "run_trees", "PVMCTS", "PVResult", "PV_WEIGHTS", "pv_weights_path"]

WEIGHTS_DIR = Path(importlib.util.find_spec("agents.nets.weights").origin).parent
#: committed policy-value weights by name and board size: ``default`` is ``pv-8x8`` fine-tuned on 27,082 of
#: ``uct``'s own moves (``training/runs_committed/uct-net-8x8/command.txt``), ``pv-8x8`` the train-loop's net
PV_WEIGHTS = {"default": {8: "pv-uct-8x8"}, "pv-8x8": {8: "pv-8x8"}}


def pv_weights_path(weights: str, size: int) -> Path:
    """The model file base of named committed weights (the nearest trained size) or a path."""
    if weights in PV_WEIGHTS:
        trained = PV_WEIGHTS[weights]
        return WEIGHTS_DIR / trained[min(trained, key=lambda s: (abs(s - size), -s))]
    return Path(weights)


class PVNet:
    """A loaded policy-value net for search: ``evaluate`` on padded boards (numpy in and out).
    ``model``: a ``PolicyValueNet`` (an inference copy with folded batch norms is made).
    ``runtime`` (``agents.nets.onnx_runtime.RUNTIMES``): on the CPU, ``auto`` runs the inference
    copy through ONNX Runtime when it is installed (4.3x torch's speed for single positions, 1.1-2x for batches), else through torch."""

    def __init__(self, model: Any, threads: int = 1, runtime: str = "auto") -> None:
        require_torch("pvmcts")
        import torch

        from agents.evaluation.cnn import inference_module

        if runtime not in RUNTIMES:
            raise OptionError(f"runtime={runtime!r}: use one of {RUNTIMES}")
        if threads:
            torch.set_num_threads(int(threads))
        self.model = model.eval()
        self.fast = inference_module(self.model)
        self.device = next(self.model.parameters()).device
        self.runtime = "onnx" if self.device.type == "cpu" and (
            runtime == "onnx" or (runtime == "auto" and onnx_runtime.available())) else "torch"
        self._onnx = OnnxRunner(self.fast, threads) if self.runtime == "onnx" else None

    @classmethod
    def load(cls, path: "str | Path", threads: int = 1, runtime: str = "auto") -> "PVNet":
        from agents.nets.export import load_model

        model, config = load_model(path)
        if config["arch"] != "PolicyValueNet":
            raise OptionError(f"{path}: a {config['arch']} has no policy; pvmcts needs a PolicyValueNet file")
        return cls(model, threads, runtime)

    def evaluate(self, cells: np.ndarray, sides: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(values[k], slide[k, LINES*N*N], arrow[k, LINES*N*N])`` for ``k`` positions."""
        import torch

        from agents.nets.planes import make_planes

        planes, k = make_planes(cells, sides, "relative"), len(cells)
        if self._onnx is not None:
            value, slide, arrow = self._onnx(planes)
            return value.astype(np.float64), slide.reshape(k, -1), arrow.reshape(k, -1)
        x = torch.from_numpy(planes)
        with torch.inference_mode():
            if self.device.type == "cpu":
                value, slide, arrow = self.fast(x.contiguous(memory_format=torch.channels_last))
            else:
                with torch.autocast(self.device.type):
                    value, slide, arrow = self.model(x.to(self.device))
        return (value.float().cpu().numpy().astype(np.float64), slide.float().reshape(k, -1).cpu().numpy(),
                arrow.float().reshape(k, -1).cpu().numpy())


def _softmax_groups(logits: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Softmax of ``logits`` within each run beginning at ``starts`` (starts[0] == 0)."""
    top = np.maximum.reduceat(logits, starts)
    lengths = np.diff(np.append(starts, len(logits)))
    e = np.exp(logits - np.repeat(top, lengths))
    return e / np.repeat(np.add.reduceat(e, starts), lengths)


class Node:
    """One position: its legal ``moves`` (public squares) in slide groups ``starts``, and per slide
    and per move the prior, visits and summed value for the side to move here."""

    __slots__ = ("cells", "side", "value", "moves", "starts", "group", "p_slide", "n_slide", "w_slide",
                 "p_move", "n_move", "w_move", "children", "visits", "p_net")

    def __init__(self, cells: np.ndarray, side: int, moves: np.ndarray) -> None:
        self.cells, self.side, self.moves = cells, side, moves
        self.value = -1.0 if len(moves) == 0 else 0.0  # no legal move: lost
        self.children: dict[int, Node] = {}
        self.visits = 0
        if len(moves):
            new = np.ones(len(moves), bool)
            new[1:] = (moves[1:, 0] != moves[:-1, 0]) | (moves[1:, 1] != moves[:-1, 1])
            self.starts = np.flatnonzero(new)
            self.group = np.cumsum(new) - 1
            s = len(self.starts)
            self.n_slide, self.w_slide = np.zeros(s), np.zeros(s)
            self.n_move, self.w_move = np.zeros(len(moves)), np.zeros(len(moves))

    @property
    def terminal(self) -> bool:
        return len(self.moves) == 0

    def set_priors(self, value: float, slide: np.ndarray, arrow: np.ndarray, size: int) -> None:
        """The net's value and logits (flattened rows of ``PVNet.evaluate``) for this position."""
        from agents.nets.policy_value import move_indices

        self.value = float(value)
        sidx, aidx = move_indices(self.moves, size)
        ls = slide[sidx[self.starts]]
        e = np.exp(ls - ls.max())
        self.p_slide = self.p_net = e / e.sum()
        self.p_move = _softmax_groups(arrow[aidx], self.starts)

    def add_noise(self, rng: np.random.Generator, alpha: float, fraction: float) -> None:
        """Dirichlet noise on the net's slide priors (self-play's root exploration; fresh noise
        replaces any earlier noise of a reused root)."""
        noise = rng.dirichlet(np.full(len(self.p_net), alpha))
        self.p_slide = (1 - fraction) * self.p_net + fraction * noise

    def select(self, c: float, fpu: float) -> int:
        """The move index PUCT picks: a slide, then one of its arrows."""
        q0 = self.value - fpu  # unvisited children: the parent's value, a little pessimistic
        g = _puct(self.n_slide, self.w_slide, self.p_slide, self.visits, c, q0)
        lo = self.starts[g]
        hi = self.starts[g + 1] if g + 1 < len(self.starts) else len(self.moves)
        return lo + _puct(self.n_move[lo:hi], self.w_move[lo:hi], self.p_move[lo:hi], self.n_slide[g], c, q0)

    def update(self, m: int, visits: float, value: float) -> None:
        """Add ``visits`` and ``value`` (for this node's side to move) to move ``m`` and its slide."""
        g = self.group[m]
        self.visits += visits
        self.n_slide[g] += visits
        self.w_slide[g] += value
        self.n_move[m] += visits
        self.w_move[m] += value

    def child(self, m: int) -> "Node | None":
        return self.children.get(m)

    def index_of(self, move: Move) -> int:
        """The index of ``move`` in ``moves`` (``ValueError`` if it is not legal here)."""
        hit = np.flatnonzero((self.moves[:, 0] == move.from_square) & (self.moves[:, 1] == move.to_square)
                             & (self.moves[:, 2] == move.arrow))
        if len(hit) == 0:
            raise IllegalMoveError(f"move {move} is not legal in this node")
        return int(hit[0])


def _puct(n: np.ndarray, w: np.ndarray, p: np.ndarray, total: float, c: float, q0: float) -> int:
    q = np.where(n > 0, w / np.maximum(n, 1), q0)
    return int(np.argmax(q + c * p * math.sqrt(total + 1) / (1 + n)))


def _play(cells: np.ndarray, move: np.ndarray, size: int) -> np.ndarray:
    padded = core.padded_index(size)
    out = cells.copy()
    frm, to, arrow = padded[move[0]], padded[move[1]], padded[move[2]]
    out[to], out[frm] = out[frm], core.EMPTY
    out[arrow] = core.ARROW
    return out


class Tree:
    """A search tree rooted at ``root`` (a ``Node`` or ``None`` until ``start``)."""

    def __init__(self, size: int, c: float = 1.5, fpu: float = 0.2) -> None:
        self.size, self.c, self.fpu = size, c, fpu
        self.root: Optional[Node] = None
        self.sims = 0

    def gather(self, limit: int) -> list[tuple[list[tuple[Node, int]], Optional[np.ndarray], int]]:
        """Up to ``limit`` descents with virtual loss: ``(path, leaf cells or None, leaf side)``;
        ``None``: the path ended on a known lost position (no evaluation needed)."""
        leaves, pending = [], set()
        for _ in range(limit):
            node, path = self.root, []
            while not node.terminal:
                m = node.select(self.c, self.fpu)
                path.append((node, m))
                node.update(m, 1, -1.0)  # virtual loss: a visit that lost
                nxt = node.child(m)
                if nxt is None:
                    break
                node = nxt
            key = (id(path[-1][0]), path[-1][1]) if path else None
            if node.terminal or key not in pending:
                if not node.terminal:
                    pending.add(key)
                    nm = path[-1][1]
                    leaves.append((path, _play(node.cells, node.moves[nm], self.size), 1 - node.side))
                else:
                    leaves.append((path, None, node.side))
            else:  # two descents into the same new leaf: undo this one and stop gathering
                for parent, m in path:
                    parent.update(m, -1, 1.0)
                break
        return leaves

    def backup(self, path: list[tuple[Node, int]], value: float) -> None:
        """``value``: the leaf's value for its side to move. Each position's mover sees the negation
        of its child's value; its slide and its arrow get the same number (no flip between them)."""
        for node, m in reversed(path):
            value = -value
            node.update(m, 0, value + 1.0)  # replace the virtual loss (-1) by the value


def run_trees(trees: Sequence[Tree], net: PVNet, sims: int, batch: int = 8, deadline: float = math.inf) -> None:
    """Grow every tree (rooted by ``start_roots``) to ``sims`` simulations (fewer if ``deadline``,
    a ``perf_counter`` time, comes first), ``batch`` leaves per tree per forward pass, the leaves
    of all trees in one pass."""
    from agents.nets.policy_value import legal_moves_batch

    size = trees[0].size

    def evaluate(cells: list[np.ndarray], sides: list[int]) -> tuple[list[np.ndarray], Any]:
        c, s = np.stack(cells), np.array(sides, np.int64)
        rows, moves = legal_moves_batch(c, s, size)
        split = np.searchsorted(rows, np.arange(1, len(cells)))
        legal = np.split(moves.astype(np.int16), split)
        live = [i for i, m in enumerate(legal) if len(m)]
        out = net.evaluate(c[live], s[live]) if live else None
        return legal, (live, out)

    if any(t.root is None for t in trees):
        raise InvalidArgumentError("run_trees: every tree needs a root (start_roots)")
    last = 0.0  # how long the last round (gather, forward pass, backup) took
    while True:
        todo = [t for t in trees if t.sims < sims and not t.root.terminal]
        begun = _time.perf_counter()
        # a round cannot stop half-way: start one only if a round like the last still fits
        if not todo or begun + last >= deadline:
            return
        gathered = [(t, leaf) for t in todo for leaf in t.gather(min(batch, sims - t.sims))]
        wanted = [leaf for _, leaf in gathered if leaf[1] is not None]
        legal, (live, out) = evaluate([leaf[1] for leaf in wanted], [leaf[2] for leaf in wanted]) if wanted \
            else ([], ([], None))
        row = {i: j for j, i in enumerate(live)}
        for k, (cells, side) in enumerate((leaf[1], leaf[2]) for leaf in wanted):
            path = wanted[k][0]
            node = Node(cells, side, legal[k])
            if k in row:
                j = row[k]
                node.set_priors(out[0][j], out[1][j], out[2][j], size)
            parent, m = path[-1]
            parent.children[m] = node
        for tree, (path, cells, side) in gathered:
            leaf = path[-1][0].children[path[-1][1]] if cells is not None else None
            value = leaf.value if leaf is not None else -1.0
            tree.backup(path, value)
            tree.sims += 1
        last = _time.perf_counter() - begun


def start_roots(trees: Sequence[Tree], boards: Sequence[tuple[np.ndarray, int]], net: PVNet,
                noise: Optional[tuple[np.random.Generator, float, float]] = None) -> None:
    """Give each tree a root for its ``(cells, side)`` (one forward pass for all that need one),
    keeping a tree's root if it already is that position; ``noise`` as in ``run_trees``."""
    from agents.nets.policy_value import legal_moves_batch

    need = [i for i, (t, (cells, side)) in enumerate(zip(trees, boards))
            if t.root is None or t.root.side != side or not np.array_equal(t.root.cells, cells)]
    if need:
        size = trees[0].size
        c = np.stack([boards[i][0] for i in need])
        s = np.array([boards[i][1] for i in need], np.int64)
        rows, moves = legal_moves_batch(c, s, size)
        legal = np.split(moves.astype(np.int16), np.searchsorted(rows, np.arange(1, len(need))))
        values, slide, arrow = net.evaluate(c, s)
        for j, i in enumerate(need):
            node = Node(c[j].copy(), int(s[j]), legal[j])
            if not node.terminal:
                node.set_priors(values[j], slide[j], arrow[j], size)
            trees[i].root = node
    for tree in trees:
        tree.sims = 0
        if noise is not None and not tree.root.terminal:
            tree.root.add_noise(*noise)


@dataclass(frozen=True)
class PVResult:
    """The ``move``, its mean ``value`` for the side to move, the ``simulations`` (as ``nodes``
    too, so the arena prints simulations per second) and the ``seconds`` taken."""

    move: Move
    value: float
    simulations: int
    seconds: float

    @property
    def nodes(self) -> int:
        return self.simulations


def best_move(root: Node) -> int:
    """The most visited slide of ``root``, then its most visited arrow (ties: the higher prior)."""
    g = int(np.lexsort((root.p_slide, root.n_slide))[-1])
    lo = root.starts[g]
    hi = root.starts[g + 1] if g + 1 < len(root.starts) else len(root.moves)
    return lo + int(np.lexsort((root.p_move[lo:hi], root.n_move[lo:hi]))[-1])


@register("pvmcts", options={
    "time": TIME, "sims": opt("simulations per move (instead of time)", ge=1),
    "weights": opt("committed policy-value weights by name (default) or a model file path without suffix"),
    "c": opt("PUCT exploration constant", gt=0),
    "batch": opt("leaves per forward pass (virtual loss between them)", ge=1),
    "fpu": opt("first-play urgency: an unvisited move's value is its parent's value less this", ge=0),
    "threads": opt("torch threads for the forward passes (0: leave torch's setting)", ge=0),
    "runtime": opt(RUNTIME_HELP, choices=RUNTIMES),
    "reuse": opt("keep the subtree between moves")})
class PVMCTS(Agent):
    """PUCT with a policy-value net (module docstring)."""

    name = "pvmcts"

    def __init__(self, time: Optional[float] = None, sims: Optional[int] = None, weights: str = "default",
                 c: float = 1.5, batch: int = 8, fpu: float = 0.2, threads: int = 1, runtime: str = "auto",
                 reuse: bool = True, seed: Optional[int] = None) -> None:
        super().__init__(seed)
        self.time = 1.0 if time is None and sims is None else time
        self.sims = sims
        self.c, self.batch, self.fpu, self.reuse = float(c), int(batch), float(fpu), bool(reuse)
        self.weights, self.threads, self.runtime = str(weights), int(threads), str(runtime)
        self._nets: dict[Path, PVNet] = {}
        for size in PV_WEIGHTS.get(self.weights, {}):  # load now: a bad file fails here, not in a game
            self.net(size)
        if self.weights not in PV_WEIGHTS:
            self.net(0)
        self.clock = Clock()
        self._tree: Optional[Tree] = None
        self.last_result: Optional[PVResult] = None

    def net(self, size: int) -> PVNet:
        path = pv_weights_path(self.weights, size)
        if path not in self._nets:
            self._nets[path] = PVNet.load(path, self.threads, self.runtime)
        return self._nets[path]

    def reset(self) -> None:
        self._tree = None

    def select_move(self, board: Board) -> Move:
        self.last_result = self.search(board)
        return self.last_result.move

    def _kept_root(self, board: Board) -> Optional[Node]:
        """The node of the kept tree for ``board`` (our last move and the reply), or None."""
        tree = self._tree
        if not self.reuse or tree is None or tree.root is None or tree.size != board.size or len(board.move_stack) < 2:
            return None
        node: Optional[Node] = tree.root
        for move in board.move_stack[-2:]:
            if node is None or node.terminal:
                return None
            try:
                node = node.child(node.index_of(move))
            except ValueError:
                return None
        return node

    def search(self, board: Board) -> PVResult:
        """Run the simulations for ``board``'s side to move and choose the move."""
        if board.is_game_over():
            raise InvalidArgumentError(f"{self.spec}: no move to search in a finished game: {board.text()!r}")
        start = _time.perf_counter()
        net = self.net(board.size)
        tree = Tree(board.size, self.c, self.fpu)
        tree.root = self._kept_root(board)
        start_roots([tree], [(board.cells.copy(), int(board.turn))], net)
        stop = math.inf if self.time is None else self.clock.stop(start, self.time)
        run_trees([tree], net, self.sims if self.sims is not None else 1 << 40, self.batch, stop)
        root = tree.root
        m = best_move(root)
        if self.time is not None:
            self.clock.returned(stop)
        self._tree = tree
        value = root.w_move[m] / root.n_move[m] if root.n_move[m] else root.value
        move = Move(*(int(x) for x in root.moves[m]), board.size)
        return PVResult(move, float(value), tree.sims, _time.perf_counter() - start)
