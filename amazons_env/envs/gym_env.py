"""``AmazonsEnv``: the Game of the Amazons as a gymnasium env with a two-phase turn.

>>> from amazons_env import Move
>>> from amazons_env.envs.actions import action_to_str, move_to_actions
>>> from amazons_env.envs.planes import PLANE_SHOOTER
>>> env = AmazonsEnv(size=6)
>>> obs, info = env.reset(seed=0)
>>> obs.shape, info["phase"], int(info["action_mask"].sum())
((9, 6, 6), 0, 40)
>>> first, second = move_to_actions(Move.parse("b1-b4/b5", size=6))
>>> action_to_str(first, 6), action_to_str(second, 6)
('b1-b4', 'b4-b5')
>>> obs, reward, terminated, truncated, info = env.step(first)
>>> info["phase"], obs[PLANE_SHOOTER].nonzero()
(1, (array([3]), array([1])))
>>> _ = env.step(second); env.board.peek()
Move.parse('b1-b4/b5', size=6)
"""

from __future__ import annotations

import copy
from typing import Any, Optional, Union

import gymnasium
import numpy as np
from gymnasium import spaces

from amazons_env.board import Board
from amazons_env.envs.actions import ActionCodec, action_to_str
from amazons_env.envs.arguments import check_choice, check_seed, parse_color, start_position
from amazons_env.envs.descriptions import caption
from amazons_env.envs.env_state import EnvState, check_state, frozen_copy, generator_copy
from amazons_env.envs.kernels import game as K
from amazons_env.envs.one_game import OneGame
from amazons_env.envs.opponents import reseed_opponent, resolve_opponent
from amazons_env.envs.planes import NUM_PLANES
from amazons_env.errors import IllegalMoveError
from amazons_env.squares import Color, check_size

__all__ = ["AmazonsEnv"]


class AmazonsEnv(gymnasium.Env):
    """The Game of the Amazons; one turn is two steps: a queen move, then the arrow it shoots.

    **Board and squares.** ``size`` x ``size`` (4..12; 10 is the standard game), White first.
    Squares are ``rank * size + file`` (a1 = 0), like ``Board`` and ``Move``.

    **Action space.** ``Discrete(N**4)`` with ``N = size``; an action is the queen-line slide
    ``from_square * N*N + to_square``. Queen phase: ``from_square`` holds a queen of the side to
    move and ``to_square`` is reachable along an empty queen line. Arrow phase: ``from_square`` is
    the square of the queen that has just moved and ``to_square`` is where it shoots (the square
    it left counts as empty). ``move_to_actions``/``actions_to_move``, ``encode_action``,
    ``decode_action``, ``action_to_str`` and ``parse_action`` of ``amazons_env.envs.actions`` convert.

    **Observation.** ``Box(0, 1, (9, N, N), int8)``, planes indexed ``[plane, rank, file]`` (rank 0
    is rank 1; the board is not flipped, so planes line up with action squares), relative to the
    side to move ("own"):

    0. ``own_queens``: the side to move's queens (in the arrow phase the moved queen is on its new square)
    1. ``opponent_queens``
    2. ``arrows``: burnt squares
    3. ``arrow_phase``: all ones in the arrow phase, zeros in the queen phase
    4. ``shooter``: one-hot, the queen that must shoot (arrow phase only)
    5. ``vacated``: one-hot, the square that queen just left (arrow phase only): with plane 4 it
       says which queen move is pending, and it is always a legal arrow target
    6. ``own_reach``: the ``to_square`` of every legal action now (queen phase: where own queens
       can move; arrow phase: where the arrow can land); when it is not the observer's turn,
       where its queens can move. Mobility is the basis of every strong Amazons evaluation.
    7. ``opponent_reach``: squares one queen move from an opponent queen (where it can move next)
    8. ``black``: all ones when the observing side is Black (the sides are not symmetric: White
       moves first, so parity of the filling phase favours one side)

    **Options.** ``action_encoding="lines"`` replaces the flat actions by queen lines
    (``square x 8 directions x distance``, 7,200 on 10x10; see ``amazons_env.envs.actions``);
    ``obs_mode="dict"`` makes the observation ``{"observation": planes, "action_mask": mask}``
    (PettingZoo classic's keys, where TorchRL's ``ActionMask`` finds the mask too; RLlib and
    Tianshou want other keys: ``amazons_env.adapters``); ``mask_dtype="bool"`` gives bool masks
    (default ``"int8"``, what ``Discrete.sample(mask=...)`` wants; TorchRL's masked distributions
    want bool).

    **Mask.** ``info["action_mask"]`` and ``env.action_masks()`` (sb3-contrib's MaskablePPO):
    ``int8[N**4]`` (or the chosen encoding and dtype), 1 for the legal actions of the current
    phase; each is a new array (editing it changes nothing). Once the game is over
    ``action_masks()`` is all zeros (no legal action), while the step that ends it returns a mask
    of all ones, in ``info`` and the observation (pgx's convention: gymnasium's ``NEXT_STEP``
    vector envs play one more action in a finished game, which they ignore and reset instead; a
    masked sampler such as TorchRL's ``ActionMask`` must be able to draw it).
    ``info`` also has ``player`` (0 White, 1 Black: the side to move, or the learner with an
    opponent), ``phase`` (0 queen, 1 arrow), ``move_number`` (full turns completed), ``winner`` (0/1 once
    the game is over, -1 before) and ``illegal_action`` (``True`` on the step of an illegal action):
    every step has every key, with one number type each, so that vector wrappers and TorchRL can
    stack them. Why an action was illegal is ``env.illegal_reason`` (``""`` after a legal step).

    **Rewards and termination.** A side to move with no queen move loses, so the game ends on the
    arrow step that leaves the opponent without a move: reward +1 to the mover on that step, 0
    otherwise (the reward of each step belongs to the side that acted). Games cannot be drawn
    and never truncate. ``info["rewards"]`` (pgx's convention) is ``float64[2]``, this step's
    reward of White and of Black: ``[0, 0]`` during the game and, on the last step, +1 for the
    winner and -1 for the loser (also after an illegal action), so a self-play learner credits
    the loser without its own bookkeeping. With ``opponent=`` (an ``Agent`` or a spec for ``agents.make``, e.g.
    ``"random"``) the env is single-agent: the opponent replies inside ``step`` and rewards are
    +1/-1 from the learner's view; ``learner_color`` is ``"white"``, ``"black"`` or ``"random"``
    (drawn at each reset). The opponent is reseeded from ``np_random`` at each reset, so a seeded
    env replays its game against an opponent with a node budget (``"uct:sims=N"``,
    ``"alphabeta:depth=N"``); a timed one (``"uct"``: 1 s a move) searches as far as the machine's
    load lets it, and its games (gymnasium's ``check_env`` determinism check too) are not reproducible.

    **Illegal actions.** ``illegal_action="lose"`` (default, the PettingZoo/pgx convention): the
    acting side loses, reward -1, ``terminated``, ``info["illegal_action"] = True``.
    ``illegal_action="raise"``: ``IllegalMoveError`` and the state is left as it was. Out-of-range
    or non-integer actions always raise ``InvalidMoveError``; ``step`` after the end (or before
    ``reset``) raises ``gymnasium.error.ResetNeeded``.

    **Reset.** ``reset(seed=..., options={"position": text_or_Board})`` starts from the initial
    position or from any position of this size (with at least one legal move).

    **Render modes** (fixed at construction): ``"ansi"`` (diagram with coordinates, side to move,
    phase, last move), ``"rgb_array"`` (a picture, see ``render.rgb_array``) and ``"human"``
    (a pygame window; ``pip install "amazons[render]"``).
    """

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 4}

    def __init__(
        self,
        size: int = 10,
        opponent: Any = None,
        learner_color: Union[str, int] = "white",
        illegal_action: str = "lose",
        render_mode: Optional[str] = None,
        *,
        obs_mode: str = "planes",
        action_encoding: str = "flat",
        mask_dtype: str = "int8",
    ) -> None:
        self.size = check_size(size)
        self._codec = ActionCodec(self.size, action_encoding, mask_dtype, obs_mode)
        self.action_encoding, self.obs_mode = action_encoding, obs_mode
        check_choice("illegal_action", illegal_action, ("lose", "raise"))
        if render_mode is not None:
            check_choice("render_mode", render_mode, self.metadata["render_modes"])
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self._learner_choice = parse_color(learner_color, allow_random=True)
        self.opponent = None if opponent is None else resolve_opponent(opponent)
        self._window = None
        if render_mode == "human":
            from amazons_env.drawing.render import HumanWindow

            self._window = HumanWindow(f"Amazons {self.size}x{self.size}")
        n = self.size
        self._nn = n * n
        self.action_space = self._codec.action_space()
        self.observation_space = self._codec.observation_space(spaces.Box(0, 1, (NUM_PLANES, n, n), np.int8))
        self._start, self._geometry = Board(n), K.Geometry.of(n)
        self._game: Optional[OneGame] = None  # None before the first reset
        self.learner_color: Optional[Color] = None
        self.illegal_reason = ""  #: why the last action was illegal ("" after a legal one)

    # -- gymnasium API ---------------------------------------------------------------------------

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        seed = check_seed(seed)
        start = start_position(options, self._start, self.size)  # checked first: a refused reset changes nothing
        super().reset(seed=seed)
        game = self._game = OneGame(start, self._geometry)
        self.learner_color = None
        self.illegal_reason = ""
        if self.opponent is not None:
            choice = self._learner_choice
            self.learner_color = choice if isinstance(choice, Color) else Color(int(self.np_random.integers(2)))
            reseed_opponent(self.opponent, int(self.np_random.integers(2**63)))
            if game.meta[K.SIDE] != self.learner_color:
                self._opponent_turn(game)
        obs, self._mask = self._observe()
        if self.render_mode == "human":
            self.render()
        info = self._info()
        return self._codec.observation(obs, info["action_mask"]), info

    def step(self, action):
        game = self._game
        if game is None:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        meta = game.meta
        if meta[K.DONE]:
            raise gymnasium.error.ResetNeeded(
                f"the game is over ({Color(int(meta[K.WINNER])).name.lower()} won after "
                f"{int(meta[K.TURNS])} turns): call reset() before step()"
            )
        value = self._codec.to_flat(action)
        if value < 0:  # a queen-line action that leaves the board
            code, reason = K.ILLEGAL, f"line action {action} leaves the {self.size}x{self.size} board"
        else:
            frm, to = divmod(value, self._nn)
        actor = int(meta[K.SIDE])
        phase = int(meta[K.PHASE])
        if value >= 0:
            code, obs, mask = game.step(value)
            reason = game.why_illegal(frm, to) if code == K.ILLEGAL else ""
        info_extra: dict[str, Any] = {}
        if code == K.ILLEGAL:
            if self.illegal_action == "raise":
                shown = action_to_str(value, self.size) if value >= 0 else "off the board"
                raise IllegalMoveError(f"illegal action {shown} ({action}): {reason}")
            meta[K.DONE] = 1
            meta[K.WINNER] = actor ^ 1
            obs, mask = self._observe(actor)
            info_extra = {"illegal_action": True}
        else:
            if phase == 1:
                game.record(to)
            if self.opponent is not None and meta[K.SIDE] != actor:
                if code != K.WIN:
                    self._opponent_turn(game)
                obs, mask = self._observe(actor)
            else:
                obs = obs.reshape(NUM_PLANES, self.size, self.size)
        self._mask = mask
        self.illegal_reason = reason if code == K.ILLEGAL else ""
        info = self._info()
        info.update(info_extra)
        rewards = info["rewards"]
        if meta[K.DONE]:
            winner = int(meta[K.WINNER])
            rewards[winner], rewards[winner ^ 1] = 1.0, -1.0
            info["action_mask"] = np.ones_like(info["action_mask"])  # the docstring's "Mask": pgx's convention
        # the reward of the side that acted (with an opponent: of the learner)
        reward = float(rewards[actor if self.learner_color is None else int(self.learner_color)])
        if self.render_mode == "human":
            self.render()
        return self._codec.observation(obs, info["action_mask"]), reward, bool(meta[K.DONE]), False, info

    def legal_actions(self) -> np.ndarray:
        """The legal actions of the current phase in this env's encoding, ``int64[k]`` (the
        mask's non-zero entries, in increasing order)."""
        return np.flatnonzero(self.action_masks())

    def action_masks(self) -> np.ndarray:
        """The legal-action mask of the current phase (``int8[N**4]``, or the chosen encoding and
        dtype; a new array), for MaskablePPO."""
        self._started("action_masks()")
        return self._codec.mask(self._mask)

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode= to AmazonsEnv")
            return None
        game = self._game
        if game is None:
            raise gymnasium.error.ResetNeeded("call reset() before render()")
        from amazons_env.drawing import render

        meta, pad, pub = game.meta, game.geometry.pad, game.geometry.pub
        grid = game.positions.cells[0, pad].reshape(self.size, self.size)
        if self.render_mode == "ansi":
            return render.ansi(grid, caption(meta, game.moves, pub, self.size))
        last = game.last
        shooter = int(pub[meta[K.DST]]) if meta[K.PHASE] == 1 and not meta[K.DONE] else None
        if shooter is not None:
            last = (int(pub[meta[K.SRC]]),)
        picture = render.rgb_array(grid, last, shooter)
        if self.render_mode == "rgb_array":
            return picture
        self._window.show(picture, self.metadata["render_fps"])
        return None

    def close(self) -> None:
        if self._window is not None:
            self._window.close()

    # -- state -------------------------------------------------------------------------------------

    @property
    def board(self) -> Board:
        """A copy of the position as a ``Board`` with the game's moves (in the arrow phase: the
        position before the pending queen move)."""
        return self._started("board").board().copy()

    @property
    def phase(self) -> int:
        """0 in the queen phase, 1 in the arrow phase."""
        return int(self._started("phase").meta[K.PHASE])

    @property
    def move_number(self) -> int:
        """Full turns completed."""
        return int(self._started("move_number").meta[K.TURNS])

    @property
    def side_to_move(self) -> Color:
        return Color(int(self._started("side_to_move").meta[K.SIDE]))

    def observation(self, perspective: Union[int, Color, None] = None) -> np.ndarray:
        """The observation planes as seen by ``perspective`` (default: the side to move)."""
        meta = self._started("observation()").meta
        side = int(meta[K.SIDE]) if perspective is None else int(parse_color(perspective, False))
        return self._observe(side)[0]

    def get_state(self) -> EnvState:
        """The env's state (``env_state``): restoring it with ``set_state`` makes the next steps
        those that followed it. A copy: the env never changes it."""
        game = self._started("get_state()")
        colour = None if self.learner_color is None else int(self.learner_color)
        arrays = tuple(frozen_copy(a) for a in game.positions)
        history, origin = tuple(game.moves), game.origin.text()
        mask, rng = frozen_copy(self._mask), generator_copy(self.np_random)
        return EnvState(self.size, arrays, mask, origin, history, colour, self.illegal_reason, rng)

    def set_state(self, state: EnvState) -> None:
        """Put the env back to ``state`` (from ``get_state`` of an env of this size); copies it."""
        check_state(state, EnvState, self.size)
        self._game = OneGame(Board.from_text(state.origin), self._geometry, state.history, state.arrays)
        self._mask, self.illegal_reason = np.array(state.mask), state.illegal_reason
        self.learner_color = None if state.learner_color is None else Color(state.learner_color)
        self.np_random = generator_copy(state.np_random)

    def clone(self) -> AmazonsEnv:
        """A new env in this one's state, independent of it but for the opponent (shared: see
        ``env_state``) and without a window (a ``"human"`` render mode becomes None)."""
        twin = copy.copy(self)
        twin._window, twin.render_mode = None, None if self.render_mode == "human" else self.render_mode
        twin.set_state(self.get_state())
        return twin

    # -- internals ---------------------------------------------------------------------------------

    def _started(self, what: str) -> OneGame:
        if self._game is None:
            raise gymnasium.error.ResetNeeded(f"call reset() before {what}")
        return self._game

    def _observe(self, perspective: Optional[int] = None) -> tuple[np.ndarray, np.ndarray]:
        game = self._started("observation()")
        return game.observe(int(game.meta[K.SIDE]) if perspective is None else perspective)

    def _info(self) -> dict[str, Any]:
        meta = self._started("step()").meta
        player = int(meta[K.SIDE]) if self.learner_color is None else int(self.learner_color)
        info = {
            "action_mask": self._codec.mask(self._mask),
            "player": player,
            "phase": int(meta[K.PHASE]),
            "move_number": int(meta[K.TURNS]),
            "rewards": np.zeros(2),
            # the same keys with the same types on every step (vector wrappers and TorchRL stack them)
            "winner": int(meta[K.WINNER]) if meta[K.DONE] else -1,
            "illegal_action": False,
        }
        return info

    def _opponent_turn(self, game: OneGame) -> int:
        """Let the opponent play a full turn; returns the code of its arrow step."""
        board = game.board()
        assert self.opponent is not None  # called only when the env has an opponent
        move = self.opponent.select_move(board)
        if not board.is_legal(move):
            raise IllegalMoveError(f"opponent {self.opponent!r} chose illegal move {move} in {board.text()!r}")
        return game.play(move)
