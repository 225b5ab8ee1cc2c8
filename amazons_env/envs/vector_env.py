"""``AmazonsVectorEnv``: many Amazons games advanced together, one numba call per step.

>>> import numpy as np
>>> envs = AmazonsVectorEnv(num_envs=3, size=6)
>>> obs, infos = envs.reset(seed=0)
>>> obs.shape, infos["action_mask"].shape, infos["action_mask"].sum(axis=1).tolist()
((3, 9, 6, 6), (3, 1296), [40, 40, 40])
>>> obs, rewards, terminated, truncated, infos = envs.step(envs.sample_legal_actions())
>>> infos["phase"].tolist(), infos["rewards"].shape
([1, 1, 1], (3, 2))

Against a fixed opponent (the learner plays White or Black at random each game):

>>> envs = AmazonsVectorEnv(4, size=6, opponent="random", learner_color="random")
>>> obs, infos = envs.reset(seed=1)
>>> bool((infos["phase"] == 0).all())   # where the learner is Black, the opponent has moved
True
"""

from __future__ import annotations

from typing import Any, Optional, Union

import gymnasium
import numba
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from amazons_env import core
from amazons_env.board import Board
from amazons_env.envs.actions import ActionCodec, action_to_str
from amazons_env.envs.arguments import check_choice, check_seed, parse_color
from amazons_env.envs.batch_opponents import BatchGames, BatchPolicy, UniformRandom
from amazons_env.envs.env_state import VectorEnvState, check_state, frozen_copy, generator_copy
from amazons_env.envs.kernels import batch as B
from amazons_env.envs.kernels import game as K
from amazons_env.envs.opponents import vector_opponent
from amazons_env.envs.vector_arguments import MAX_ENVS, check_autoreset_mode, check_num_envs, check_num_threads
from amazons_env.errors import IllegalMoveError, InvalidArgumentError, InvalidMoveError, describe
from amazons_env.squares import check_size

__all__ = ["AmazonsVectorEnv", "BatchPolicy", "MAX_ENVS"]


class AmazonsVectorEnv(VectorEnv):
    """``num_envs`` independent ``AmazonsEnv`` games in shared arrays.

    Spaces, observations, masks, rewards, the options ``obs_mode``, ``action_encoding`` and
    ``mask_dtype``, and illegal-action handling are those of ``AmazonsEnv`` (see its docstring),
    batched: observations ``int8[num_envs, 9, N, N]`` (or a dict of them and the masks); ``infos``
    holds ``action_mask`` (``[num_envs, A]``), ``player``, ``phase``, ``move_number``,
    ``illegal_action``, ``winner`` (0/1 in a game that is over, -1 while it is played) and ``rewards``
    (``float64[num_envs, 2]``: this step's reward of White and of Black in each game, +1/-1 on the
    step a game ends), each with gymnasium's ``_key`` flags: the same keys and dtypes on every step,
    in a new dict every step.

    **Opponent.** Without one (default), both sides are played through ``step`` (self-play) and
    ``rewards[i]`` belongs to the side that acted. ``opponent=`` makes every game single-agent:
    an agent spec, played by a batched opponent where there is one (``"random"``, ``"greedy"``,
    ``"uct:sims=N"``: one numba call for all games, on ``num_threads`` threads;
    ``amazons_env.envs.batch_opponents``) and else by one ``agents.make`` agent per game; a
    ``BatchOpponent``; an ``Agent`` (one object shared by all games: its ``reset()`` runs whenever
    any game restarts) or a list of ``num_envs`` of them (one per game); or a batched policy
    ``policy(obs, mask) -> actions`` (called once per half-turn with the games where it is to
    move; e.g. a frozen copy of the learner's net). A seeded env replays the same games with a
    batched opponent; a timed agent (``"uct"``, ``"alphabeta:time=..."``) searches as far as the
    machine's load lets it, so its games are not reproducible: give it a node budget
    (``"uct:sims=N"``, ``"alphabeta:depth=N"``). It replies inside ``step``; ``rewards`` and
    ``player`` are the learner's, whose colour is ``learner_color`` (``"white"``, ``"black"`` or
    ``"random"``, drawn per game at every reset).
    The last observation of a game is from the learner's side, as in ``AmazonsEnv``.

    **Autoreset** is gymnasium's default ``NEXT_STEP`` mode: the step after a game ends resets it
    (its action is ignored, reward 0). ``reset(options={"reset_mask": bool[num_envs]})`` resets
    only some games. ``autoreset_mode="Disabled"`` (or ``AutoresetMode.DISABLED``; TorchRL
    requires it) leaves that to the caller: stepping a game that has ended raises ``ResetNeeded``.
    The mode is in ``autoreset_mode`` and ``metadata["autoreset_mode"]``, as in gymnasium's own
    vector envs.

    **Speed.** Each ``step`` is one numba kernel over all games on ``num_threads`` threads
    (default 1, which involves no threading layer: a busy machine cannot slow it down; pass
    more to use more cores). ``copy=True`` (default, as gymnasium's own vector envs) returns fresh
    arrays that the caller owns. ``copy=False`` is an opt-in for loops that copy what they keep
    (a rollout buffer's ``buf[t] = obs`` does): it returns read-only views of the env's own
    buffers (observations, rewards, flags and every ``infos`` array), which the next ``step``
    overwrites, so wrappers that keep references (TorchRL's ``GymWrapper``, gymnasium's
    ``RecordEpisodeStatistics``) would see one buffer for every step: use the default with them.
    ``sample_legal_actions()`` draws a uniformly random legal action per game.
    ``illegal_action="raise"`` checks every action first and raises ``IllegalMoveError`` naming
    the game, leaving all games unchanged.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int,
        size: int = 10,
        illegal_action: str = "lose",
        copy: bool = True,
        render_mode: Optional[str] = None,
        *,
        opponent: Any = None,
        learner_color: Union[str, int] = "white",
        num_threads: int = 1,
        obs_mode: str = "planes",
        action_encoding: str = "flat",
        mask_dtype: str = "int8",
        autoreset_mode: Union[str, AutoresetMode] = AutoresetMode.NEXT_STEP,
    ) -> None:
        # what ``clone`` builds its twin from (then it copies the state in)
        self._arguments = {k: v for k, v in locals().items() if k not in ("self", "__class__")}
        self.num_envs = check_num_envs(num_envs)
        check_choice("illegal_action", illegal_action, ("lose", "raise"))
        if render_mode is not None:
            raise InvalidArgumentError(f"AmazonsVectorEnv does not render (render_mode={describe(render_mode)})")
        if not isinstance(copy, bool):
            raise InvalidArgumentError(f"copy={describe(copy)} must be True or False")
        self.num_threads = check_num_threads(num_threads)
        self._autoreset_mode = check_autoreset_mode(autoreset_mode)
        self._refuses_ended = self._autoreset_mode is AutoresetMode.DISABLED  # one test per step
        # per instance, as gymnasium's SyncVectorEnv keeps it: the class's dict holds the default
        self.metadata = {**type(self).metadata, "autoreset_mode": self._autoreset_mode}
        self.size = n = check_size(size)
        self.illegal_action = illegal_action
        self.copy = copy
        self.render_mode = None
        self._codec = codec = ActionCodec(n, action_encoding, mask_dtype, obs_mode)
        self._learner_choice = parse_color(learner_color, allow_random=True)
        self._opponent, self._policy = vector_opponent(opponent, self.num_envs, n, self.num_threads)
        self.opponent = opponent
        b = self.num_envs
        nn = self._nn = n * n
        planes = spaces.Box(0, 1, (K.NUM_PLANES, n, n), np.int8)
        self.single_action_space = codec.action_space()
        self.single_observation_space = codec.observation_space(planes)
        self.action_space = spaces.MultiDiscrete(np.full(b, codec.n))
        self.observation_space = codec.observation_space(spaces.Box(0, 1, (b, K.NUM_PLANES, n, n), np.int8), (b,))
        self._pad = core.padded_index(n)
        self._pub = core.public_index(n)
        self._dirs = core.directions(n + 2)
        start = Board(n)
        self._init = (
            start.cells.copy(),
            start.queens.copy(),
            start.queen_counts.copy(),
            K.new_meta(start.cells, int(start.turn)),
        )
        self._cells = np.tile(self._init[0], (b, 1))
        self._queens = np.tile(self._init[1], (b, 1, 1))
        self._nq = np.tile(self._init[2], (b, 1))
        self._meta = np.tile(self._init[3], (b, 1))
        self._obs = np.zeros((b, K.NUM_PLANES * nn), np.int8)
        self._masks = np.zeros((b, nn * nn), np.int8)
        self._legal = np.zeros((b, K.max_legal(n)), np.int32)
        self._rewards = np.zeros(b, np.float64)
        self._player_rewards = np.zeros((b, 2), np.float64)
        self._terminated = np.zeros(b, np.bool_)
        self._truncated = np.zeros(b, np.bool_)
        self._illegal = np.zeros(b, np.bool_)
        self._winner = np.full(b, -1, np.int64)  # the info key: the winner of a game that has just ended
        self._learner = np.zeros(b, np.int64)
        self._opp_actions = np.zeros(b, np.int64)
        self._games = BatchGames(
            self._cells, self._queens, self._nq, self._meta, self._legal, n, self._dirs, self._pad, self._pub
        )
        # masks in the chosen encoding and dtype: the kernel's own buffer when that is flat
        self._out_masks = (self._masks if codec.flat else np.zeros((b, codec.n), np.int8)).view(codec.mask_dtype)
        views = {
            "obs": self._obs.reshape(b, K.NUM_PLANES, n, n)[...],
            "action_mask": self._out_masks[...],
            "rewards": self._rewards[...],
            "terminated": self._terminated[...],
            "truncated": self._truncated[...],
            "player_rewards": self._player_rewards[...],
            "player": (self._learner if self._has_opponent else self._meta[:, K.SIDE])[...],
            "phase": self._meta[:, K.PHASE],
            "move_number": self._meta[:, K.TURNS],
            "illegal_action": self._illegal[...],
            "winner": self._winner[...],
        }
        for view in views.values():  # copy=False hands these out: the env's state must not be edited
            view.flags.writeable = False
        self._views = views
        present = np.ones(b, np.bool_)
        present.flags.writeable = False
        self._info_keys = ("action_mask", "player", "phase", "move_number", "illegal_action", "winner", "rewards")
        self._present = present
        self._uniforms = np.empty(b)
        # the arguments of the kernels that move and observe some games, gathered once
        self._position = (
            *(self._cells, self._queens, self._nq, self._meta),
            self._dirs,
            self._pad,
            self._pub,
            self._nn,
            self._obs,
            self._masks,
            self._legal,
        )
        # step_batch's arguments around the actions, gathered once (a step's Python overhead counts)
        self._step_head = (self._cells, self._queens, self._nq, self._meta)
        self._step_tail = (
            *self._init,
            self._dirs,
            self._pad,
            self._pub,
            self._nn,
            self._obs,
            self._masks,
            self._legal,
            self._rewards,
            self._terminated,
            self._illegal,
            self._player_rewards,
        )
        self._started = False

    # -- gymnasium API -----------------------------------------------------------------------------

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        seed = check_seed(seed)
        which = np.ones(self.num_envs, np.bool_)
        if options is not None:
            if not isinstance(options, dict):
                raise InvalidArgumentError(f"reset options must be a dict, got {describe(options)}")
            unknown = sorted(map(describe, set(options) - {"reset_mask"}))
            if unknown:
                raise InvalidArgumentError(
                    f"unknown reset option(s) {', '.join(unknown)}; AmazonsVectorEnv accepts ['reset_mask']"
                )
            if "reset_mask" in options:
                which = np.asarray(options["reset_mask"])
                if which.dtype != np.bool_ or which.shape != (self.num_envs,):
                    raise InvalidArgumentError(
                        f"options['reset_mask'] must be a bool array of shape ({self.num_envs},)"
                    )
                which = np.ascontiguousarray(which)
                if not self._started and not which.all():
                    raise gymnasium.error.ResetNeeded("the first reset must reset every game")
        super().reset(seed=seed)  # after the checks: a refused reset changes nothing
        if seed is not None and self._opponent is not None:
            self._opponent.seed(int(self.np_random.integers(2**63)))
        B.reset_batch(
            self._cells,
            self._queens,
            self._nq,
            self._meta,
            which,
            *self._init,
            self._dirs,
            self._pad,
            self._pub,
            self._nn,
            self._obs,
            self._masks,
            self._legal,
        )
        self._illegal[which] = False
        self._player_rewards[which] = 0.0
        self._started = True
        if self._has_opponent:
            self._new_games(which)
            self._opponent_moves()
        return self._output(with_step=False)

    def step(self, actions):
        if not self._started:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        actions = self._check_actions(actions)
        if self._refuses_ended:
            ended = np.flatnonzero(self._meta[:, K.DONE])
            if len(ended):
                raise gymnasium.error.ResetNeeded(
                    f"game {int(ended[0])} has ended and autoreset_mode is Disabled: reset it first "
                    "(reset(options={'reset_mask': mask})); no game was changed"
                )
        flat = self._codec.to_flat_batch(actions)
        if self.illegal_action == "raise":
            bad = B.check_batch(self._meta, self._masks, flat)
            if bad >= 0:
                raise IllegalMoveError(
                    f"game {bad}: illegal action {self._describe(int(flat[bad]), int(actions[bad]))} "
                    f"({int(actions[bad])}); no game was changed"
                )
        was_done = self._meta[:, K.DONE] == 1 if self._has_opponent else None
        args = (*self._step_head, flat, *self._step_tail)
        if self.num_threads == 1:
            B.step_batch(*args)
        else:
            threads = numba.get_num_threads()
            numba.set_num_threads(self.num_threads)
            try:
                B.step_batch_parallel(*args, self.num_threads)
            finally:
                numba.set_num_threads(threads)
        if self._has_opponent:
            self._new_games(was_done)
            self._opponent_moves()
            self._learner_outcomes(was_done)
        return self._output(with_step=True)

    @property
    def autoreset_mode(self) -> AutoresetMode:
        """The autoreset mode, fixed at construction (as in ``metadata["autoreset_mode"]``)."""
        return self._autoreset_mode

    def sample_legal_actions(self) -> np.ndarray:
        """A uniformly random legal action for every game (from ``np_random``; 0 where a game has
        just ended: the autoreset step ignores it, so ``step(sample_legal_actions())`` plays on
        through game ends). It picks from the list of legal actions the step kernel writes
        beside the mask, so it costs far less than scanning the mask."""
        out = np.empty(self.num_envs, np.int64)
        B.sample_legal(self._meta, self._legal, self.np_random.random(out=self._uniforms), out)
        return self._codec.from_flat_batch(out)

    def action_masks(self) -> np.ndarray:
        """The masks of all games, ``[num_envs, A]`` in the env's encoding and dtype (a copy)."""
        return self._out_masks.copy()

    # -- state for planning ------------------------------------------------------------------------

    _STATE_ARRAYS = ("cells", "queens", "nq", "meta", "obs", "masks", "legal", "rewards", "player_rewards",
                     "terminated", "truncated", "illegal", "winner", "learner")  # fmt: skip

    def get_state(self) -> VectorEnvState:
        """The state of every game (``env_state``): ``set_state`` of it makes the next steps those
        that followed it, the batched opponent's replies included. A copy."""
        arrays = {name: frozen_copy(getattr(self, "_" + name)) for name in self._STATE_ARRAYS}
        mine = self._opponent.get_state() if self._opponent is not None else None
        return VectorEnvState(self.size, self.num_envs, self._started, arrays, generator_copy(self.np_random), mine)

    def set_state(self, state: VectorEnvState) -> None:
        """Put every game back to ``state`` (from ``get_state`` of an env of this size and
        ``num_envs``); copies it."""
        check_state(state, VectorEnvState, self.size, self.num_envs)
        for name in self._STATE_ARRAYS:
            np.copyto(getattr(self, "_" + name), state.arrays[name])
        self._started, self.np_random = state.started, generator_copy(state.np_random)
        if self._opponent is not None:
            self._opponent.set_state(state.opponent)
        self._refresh_masks()

    def clone(self) -> AmazonsVectorEnv:
        """A new env with this one's arguments, in its state. An opponent given as a spec is
        made again (the clone's own); one given as an object is shared (``env_state``)."""
        twin = type(self)(**self._arguments)
        twin.set_state(self.get_state())
        return twin

    # -- internals ---------------------------------------------------------------------------------

    @property
    def _has_opponent(self) -> bool:
        return self._opponent is not None or self._policy is not None

    def _check_actions(self, actions: Any) -> np.ndarray:
        """``actions`` as a contiguous ``int64`` array (the one layout the kernels are compiled
        for: any other would compile them again), validated."""
        try:
            array = np.asarray(actions)
        except (ValueError, TypeError, OverflowError, RecursionError):  # ragged or too deeply nested
            array = np.empty(0, object)
        if array.shape != (self.num_envs,) or array.dtype.kind not in "iu":
            raise InvalidMoveError(
                f"actions must be an integer array of shape ({self.num_envs},), "
                f"got {array.dtype} {array.shape}: {describe(actions)}"
            )
        if array.dtype.kind == "u" and array.size and array.max() > np.iinfo(np.int64).max:
            raise InvalidMoveError(f"actions hold {int(array.max())}, out of range (0 <= action < {self._codec.n})")
        array = np.ascontiguousarray(array, dtype=np.int64)
        bad = B.first_out_of_range(array, self._codec.n)
        if bad >= 0:
            raise InvalidMoveError(
                f"game {bad}: action {int(array[bad])} is out of range (0 <= action < {self._codec.n})"
            )
        return array

    def _describe(self, flat: int, action: int) -> str:
        if not self._codec.flat and self._codec.to_flat(action) < 0:
            return "a queen line that leaves the board"
        return action_to_str(flat, self.size)

    def _new_games(self, which: np.ndarray) -> None:
        """Colours and opponents of the games that (re)start."""
        count = np.count_nonzero(which)
        if not count:
            return
        choice = self._learner_choice
        self._learner[which] = self.np_random.integers(2, size=count) if choice == "random" else int(choice)
        if self._opponent is not None:
            self._opponent.new_games(which)

    def _opponent_moves(self) -> None:
        """Let the opponent play its turn (two half-turns) in every running game where it is to move."""
        meta, policy = self._meta, self._policy
        if isinstance(self._opponent, UniformRandom):  # a whole turn in one kernel call
            B.random_replies(self._learner, self._opponent.uniforms(2 * self.num_envs), *self._position)
            return
        for _ in range(2):
            games = np.flatnonzero((meta[:, K.DONE] == 0) & (meta[:, K.SIDE] != self._learner))
            if not len(games):
                return
            if policy is not None:
                self._opp_actions[games] = self._policy_actions(policy, games)
            else:
                assert self._opponent is not None  # called only when the env has an opponent
                self._opponent.act(self._games, games, self._opp_actions)
            B.step_some(
                games,
                self._cells,
                self._queens,
                self._nq,
                meta,
                self._opp_actions,
                self._dirs,
                self._pad,
                self._pub,
                self._nn,
                self._obs,
                self._masks,
                self._legal,
            )

    def _policy_actions(self, policy: BatchPolicy, games: np.ndarray) -> np.ndarray:
        self._refresh_masks()
        obs = self._obs.reshape(self.num_envs, K.NUM_PLANES, self.size, self.size)[games]
        chosen = np.asarray(policy(obs, self._out_masks[games]))
        if (
            chosen.shape != games.shape
            or chosen.dtype.kind not in "iu"
            or ((chosen < 0) | (chosen >= self._codec.n)).any()
        ):
            raise InvalidMoveError(
                f"opponent policy returned {chosen!r}: expected {len(games)} integer actions in 0..{self._codec.n - 1}"
            )
        flat = self._codec.to_flat_batch(chosen.astype(np.int64))
        legal = self._masks[games, flat] == 1
        if not legal.all():
            k = int(np.argmin(legal))
            raise IllegalMoveError(f"opponent policy chose illegal action {int(chosen[k])} in game {int(games[k])}")
        return flat

    def _learner_outcomes(self, was_done: np.ndarray) -> None:
        """Rewards, terminations and final observations from the learner's side, after the
        opponent's replies (which may have ended games)."""
        B.learner_outcomes(
            was_done, self._learner, *self._position, self._rewards, self._player_rewards, self._terminated
        )

    def _refresh_masks(self) -> None:
        if not self._codec.flat:
            self._codec.masks_from_legal(self._meta[:, K.NLEGAL], self._legal, self._out_masks)

    def _output(self, with_step: bool):
        self._refresh_masks()
        meta = self._meta
        # the winner of a game that is over (until its reset), as the single env's info says
        np.copyto(self._winner, np.where(meta[:, K.DONE] == 1, meta[:, K.WINNER], -1))
        views = self._views
        if self.copy:
            views = {k: v.copy() for k, v in views.items()}
        # a new dict every step (wrappers add keys to it), its flags fresh too when copying
        infos = self._infos_of(views, self._present.copy() if self.copy else self._present)
        obs = self._codec.observation(views["obs"], views["action_mask"])
        if not with_step:
            return obs, infos
        return obs, views["rewards"], views["terminated"], views["truncated"], infos

    def _infos_of(self, views: dict[str, np.ndarray], present: np.ndarray) -> dict[str, Any]:
        """The ``infos`` dict with gymnasium's ``_key`` flags (every game has every key)."""
        infos: dict[str, Any] = {}
        for key in self._info_keys:
            infos[key] = views["player_rewards" if key == "rewards" else key]
            infos["_" + key] = present
        return infos
