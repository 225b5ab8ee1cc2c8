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

from amazons_env.board import Board
from amazons_env.envs.actions import ActionCodec, action_to_str
from amazons_env.envs.arguments import check_choice, check_seed, parse_color
from amazons_env.envs.batch_opponents import BatchPolicy
from amazons_env.envs.env_state import VectorEnvState, check_state, frozen_copy, generator_copy
from amazons_env.envs.kernels import batch as B
from amazons_env.envs.kernels import game as K
from amazons_env.envs.opponents import vector_opponent
from amazons_env.envs.planes import NUM_PLANES
from amazons_env.envs.vector_arguments import (
    MAX_ENVS,
    check_autoreset_mode,
    check_num_envs,
    check_num_threads,
    games_to_reset,
)
from amazons_env.envs.vector_replies import Replies
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
    in a new dict every step. As in ``AmazonsEnv``, a finished game's mask shows every action until
    its reset (pgx's convention; its ``action_masks()`` row shows none).

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
        choice = parse_color(learner_color, allow_random=True)
        opponent_choice = vector_opponent(opponent, self.num_envs, n, self.num_threads)
        self.opponent = opponent
        b = self.num_envs
        planes = spaces.Box(0, 1, (NUM_PLANES, n, n), np.int8)
        self.single_action_space = codec.action_space()
        self.single_observation_space = codec.observation_space(planes)
        self.action_space = spaces.MultiDiscrete(np.full(b, codec.n))
        self.observation_space = codec.observation_space(spaces.Box(0, 1, (b, NUM_PLANES, n, n), np.int8), (b,))
        # the kernels' bundles (``kernels.game``, ``kernels.batch``): every game's arrays in one row
        self._geometry = K.Geometry.of(n)
        start = Board(n)
        self._start = K.start_positions(start, 1)
        self._games = K.start_positions(start, b)
        self._out = K.new_observations(n, b)
        self._outcomes = B.new_outcomes(b)
        self._truncated = np.zeros(b, np.bool_)
        self._winner = np.full(b, -1, np.int64)  # the info key: the winner of a game that has just ended
        self._learner = np.zeros(b, np.int64)
        bundles = (self._games, self._geometry, self._out, self._outcomes)
        self._replies = None
        if opponent is not None:
            self._replies = Replies(*opponent_choice, choice, self._learner, bundles, codec, self._policy_inputs)
        # each step calls the step kernel compiled for these arrays (``kernels.batch.compiled``)
        actions = np.zeros(b, np.int64)
        if self.num_threads == 1:
            self._step_kernel = K.compiled(B.step_batch, self._games, actions, self._start, *bundles[1:])
        else:
            step = K.compiled(B.step_batch_parallel, self._games, actions, self._start, *bundles[1:], self.num_threads)
            self._step_kernel = self._threaded(step)
        # masks in the chosen encoding and dtype: the kernel's own buffer when that is flat
        masks = self._out.masks
        self._out_masks = (masks if codec.flat else np.zeros((b, codec.n), np.int8)).view(codec.mask_dtype)
        meta = self._games.meta
        views = {
            "obs": self._out.obs.reshape(b, NUM_PLANES, n, n)[...],
            "action_mask": self._out_masks[...],
            "rewards": self._outcomes.rewards[...],
            "terminated": self._outcomes.terminated[...],
            "truncated": self._truncated[...],
            "player_rewards": self._outcomes.player_rewards[...],
            "player": (self._learner if self._replies is not None else meta[:, K.SIDE])[...],
            "phase": meta[:, K.PHASE],
            "move_number": meta[:, K.TURNS],
            "illegal_action": self._outcomes.illegal[...],
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
        self._started = False

    # -- gymnasium API -----------------------------------------------------------------------------

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        seed = check_seed(seed)
        which = games_to_reset(options, self.num_envs, self._started)
        super().reset(seed=seed)  # after the checks: a refused reset changes nothing
        replies = self._replies
        if seed is not None and replies is not None:
            replies.seed(self.np_random)
        B.reset_batch(self._games, which, self._start, self._geometry, self._out)
        self._outcomes.illegal[which] = False
        self._outcomes.player_rewards[which] = 0.0
        self._started = True
        if replies is not None:
            replies.new_games(which, self.np_random)
            replies.play()
        return self._output(with_step=False)

    def step(self, actions):
        if not self._started:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        actions = self._check_actions(actions)
        meta = self._games.meta
        if self._refuses_ended:
            ended = np.flatnonzero(meta[:, K.DONE])
            if len(ended):
                raise gymnasium.error.ResetNeeded(
                    f"game {int(ended[0])} has ended and autoreset_mode is Disabled: reset it first "
                    "(reset(options={'reset_mask': mask})); no game was changed"
                )
        flat = self._codec.to_flat_batch(actions)
        if self.illegal_action == "raise":
            bad = B.check_batch(meta, self._out.masks, flat)
            if bad >= 0:
                raise IllegalMoveError(
                    f"game {bad}: illegal action {self._describe(int(flat[bad]), int(actions[bad]))} "
                    f"({int(actions[bad])}); no game was changed"
                )
        replies = self._replies
        was_done = meta[:, K.DONE] == 1 if replies is not None else None
        self._step_kernel(self._games, flat, self._start, self._geometry, self._out, self._outcomes)
        if replies is not None:
            replies.new_games(was_done, self.np_random)
            replies.play()
            replies.outcomes(was_done)
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
        B.sample_legal(self._games.meta, self._out.legal, self.np_random.random(out=self._uniforms), out)
        return self._codec.from_flat_batch(out)

    def action_masks(self) -> np.ndarray:
        """The masks of all games, ``[num_envs, A]`` in the env's encoding and dtype (a copy)."""
        masks = self._out_masks.copy()
        masks[self._games.meta[:, K.DONE] == 1] = 0  # a finished game has no legal action
        return masks

    # -- state for planning ------------------------------------------------------------------------

    def _state_arrays(self) -> dict[str, np.ndarray]:
        """The env's per-game arrays by name: what its state holds."""
        arrays = {**self._games._asdict(), **self._out._asdict(), **self._outcomes._asdict()}
        return {**arrays, "truncated": self._truncated, "winner": self._winner, "learner": self._learner}

    def get_state(self) -> VectorEnvState:
        """The state of every game (``env_state``): ``set_state`` of it makes the next steps those
        that followed it, the batched opponent's replies included. A copy."""
        arrays = {name: frozen_copy(array) for name, array in self._state_arrays().items()}
        mine = self._replies.get_state() if self._replies is not None else None
        return VectorEnvState(self.size, self.num_envs, self._started, arrays, generator_copy(self.np_random), mine)

    def set_state(self, state: VectorEnvState) -> None:
        """Put every game back to ``state`` (from ``get_state`` of an env of this size and
        ``num_envs``); copies it."""
        check_state(state, VectorEnvState, self.size, self.num_envs)
        for name, array in self._state_arrays().items():
            np.copyto(array, state.arrays[name])
        self._started, self.np_random = state.started, generator_copy(state.np_random)
        if self._replies is not None:
            self._replies.set_state(state.opponent)
        self._refresh_masks()

    def clone(self) -> AmazonsVectorEnv:
        """A new env with this one's arguments, in its state. An opponent given as a spec is
        made again (the clone's own); one given as an object is shared (``env_state``)."""
        twin = type(self)(**self._arguments)
        twin.set_state(self.get_state())
        return twin

    # -- internals ---------------------------------------------------------------------------------

    def _threaded(self, step: Any) -> Any:
        """``step`` (``step_batch_parallel`` compiled) on ``num_threads`` threads, as ``step_batch``."""
        threads = self.num_threads

        def run(*args: Any) -> None:
            before = numba.get_num_threads()
            numba.set_num_threads(threads)
            try:
                step(*args, threads)
            finally:
                numba.set_num_threads(before)

        return run

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

    def _policy_inputs(self, games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The planes and masks (in this env's encoding) of the games ``games``, for a batched policy."""
        self._refresh_masks()
        obs = self._out.obs.reshape(self.num_envs, NUM_PLANES, self.size, self.size)[games]
        return obs, self._out_masks[games]

    def _refresh_masks(self) -> None:
        """The masks in a line encoding from the kernels' legal lists. A finished game's row shows
        every action until its reset (``AmazonsEnv``'s "Mask": pgx's convention): the kernels
        write it so in the flat masks, the codec in the others."""
        if not self._codec.flat:
            meta = self._games.meta
            self._codec.masks_from_legal(meta[:, K.NLEGAL], meta[:, K.DONE], self._out.legal, self._out_masks)

    def _output(self, with_step: bool):
        self._refresh_masks()
        meta = self._games.meta
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
