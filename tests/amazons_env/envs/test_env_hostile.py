"""Hostile input to the environments: every refusal is a ``ValueError`` that names the input
(no RecursionError from a deeply nested list, no "Exceeds the limit (4300 digits)" from a huge int,
no numpy ambiguous-truth error, no gymnasium or PettingZoo error that is not a ``ValueError``),
and a refused call leaves the env as it was. One test per class of failure found by
``fuzz/fuzz.py``; plus the arena's check for scripts without a ``__main__`` guard."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from amazons_env.envs.gym_env import AmazonsEnv
from amazons_env.envs.pettingzoo_env import env as pettingzoo_env
from amazons_env.envs.vector_env import MAX_ENVS, AmazonsVectorEnv
from amazons_env.errors import InvalidArgumentError, InvalidMoveError, describe


def _nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


DEEP = _nested(3000)  # its repr raises RecursionError
HUGE = 10**5000  # its str raises ValueError (more than 4,300 digits)
LIST, BIG = "<list object>", "<int of 16610 bits>"  # how messages name them (``errors.describe``)


def _id(value: object) -> str:
    """Test ids pytest can print (its own ``str`` of ``HUGE`` raises)."""
    return describe(value, 12)


def _state(env: AmazonsEnv) -> tuple:
    return env.board.text(), env.phase, env.move_number, env.action_masks().tobytes()


@pytest.mark.parametrize("value, shown", [(DEEP, LIST), (HUGE, BIG), (-HUGE, BIG)], ids=_id)
@pytest.mark.parametrize(
    "keyword", ["learner_color", "illegal_action", "render_mode", "obs_mode", "action_encoding", "mask_dtype"], ids=_id
)
def test_env_constructor_names_unprintable_values(keyword, value, shown):
    with pytest.raises(ValueError, match=keyword) as error:
        AmazonsEnv(6, **{keyword: value})
    assert shown in str(error.value)


@pytest.mark.parametrize(
    "keyword", ["illegal_action", "render_mode", "obs_mode", "action_encoding", "mask_dtype"], ids=_id
)
def test_env_choices_refuse_arrays(keyword):
    """``array in ("lose", "raise")`` compares element-wise: checked by type first."""
    with pytest.raises(InvalidArgumentError, match=rf"{keyword}=array\(\[0, 1\]\)"):
        AmazonsEnv(6, **{keyword: np.array([0, 1])})


@pytest.mark.parametrize(
    "action, shown",
    [(DEEP, LIST), (HUGE, BIG), (-HUGE, BIG), (True, "True"), (np.array([0, 1]), "array([0, 1])"), (1.5, "1.5")],
    ids=_id,
)
def test_env_step_names_bad_actions_and_changes_nothing(action, shown):
    env = AmazonsEnv(6)
    env.reset(seed=0)
    env.step(int(env.legal_actions()[0]))
    before = _state(env)
    with pytest.raises(InvalidMoveError) as error:
        env.step(action)
    assert shown in str(error.value)
    assert _state(env) == before


@pytest.mark.parametrize("seed", [-1, "", 1.5, float("nan"), True, np.array([1, 2]), -HUGE, DEEP], ids=_id)
def test_env_reset_refuses_bad_seeds_and_changes_nothing(seed):
    env = AmazonsEnv(6)
    env.reset(seed=3)
    env.step(int(env.legal_actions()[0]))
    before, draw = _state(env), env.np_random.bit_generator.state
    with pytest.raises(InvalidArgumentError, match="seed="):
        env.reset(seed=seed)
    assert _state(env) == before and env.np_random.bit_generator.state == draw


def test_env_reset_takes_numpy_and_big_seeds():
    env = AmazonsEnv(6)
    env.reset(seed=np.int64(5))
    first = env.np_random.integers(10**9)
    env.reset(seed=5)
    assert env.np_random.integers(10**9) == first
    env.reset(seed=HUGE)  # numpy's SeedSequence takes any non-negative int


@pytest.mark.parametrize(
    "options, shown",
    [(DEEP, LIST), (HUGE, BIG), ({"position": DEEP}, LIST), ({HUGE: 1, "x": 2}, BIG), ({1: 0, "a": 0}, "'a'")],
    ids=_id,
)
def test_env_reset_names_bad_options(options, shown):
    env = AmazonsEnv(6)
    with pytest.raises(ValueError) as error:
        env.reset(options=options)
    assert shown in str(error.value)


# -- the vector env ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "keyword, value, shown",
    [
        ("num_envs", HUGE, BIG),
        ("num_envs", DEEP, LIST),
        ("num_envs", MAX_ENVS + 1, str(MAX_ENVS + 1)),
        ("num_envs", 10**20, str(10**20)),
        ("illegal_action", np.array([0, 1]), "array([0, 1])"),
        ("illegal_action", DEEP, LIST),
        ("copy", HUGE, BIG),
        ("num_threads", DEEP, LIST),
        ("learner_color", HUGE, BIG),
        ("opponent", DEEP, LIST),
        ("opponent", HUGE, BIG),
        ("render_mode", DEEP, LIST),
    ],
    ids=_id,
)
def test_vector_constructor_names_bad_values(keyword, value, shown):
    kwargs = {"num_envs": 2, "size": 4, keyword: value}
    with pytest.raises(ValueError, match=keyword) as error:
        AmazonsVectorEnv(**kwargs)
    assert shown in str(error.value)


@pytest.mark.parametrize("seed", [-1, "", 1.5, True, -HUGE], ids=_id)
def test_vector_reset_refuses_bad_seeds_and_changes_nothing(seed):
    envs = AmazonsVectorEnv(2, 4)
    envs.reset(seed=1)
    envs.step(envs.sample_legal_actions())
    before, draw = envs.action_masks().tobytes(), envs.np_random.bit_generator.state
    with pytest.raises(InvalidArgumentError, match="seed="):
        envs.reset(seed=seed)
    assert envs.action_masks().tobytes() == before and envs.np_random.bit_generator.state == draw


@pytest.mark.parametrize("options, shown", [(DEEP, LIST), (HUGE, BIG), ({HUGE: 1}, BIG)], ids=_id)
def test_vector_reset_names_bad_options(options, shown):
    with pytest.raises(InvalidArgumentError) as error:
        AmazonsVectorEnv(2, 4).reset(seed=0, options=options)
    assert shown in str(error.value)


@pytest.mark.parametrize(
    "actions, shown",
    [(1, "got int64 (): 1"), (DEEP, LIST), (_nested(70), "[[[["), ([[0], [0, 1]], "[[0], [0, 1]]"), (HUGE, BIG)],
    ids=_id,
)
def test_vector_step_names_bad_actions_and_changes_nothing(actions, shown):
    envs = AmazonsVectorEnv(2, 4)
    envs.reset(seed=0)
    before = envs.action_masks().tobytes()
    with pytest.raises(InvalidMoveError) as error:
        envs.step(actions)
    assert shown in str(error.value)
    assert envs.action_masks().tobytes() == before


# -- PettingZoo ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "action, shown",
    [
        (-5, "-5"),
        (6**4, "1296"),
        (True, "True"),
        (None, "None"),
        (np.array([0, 1]), "array([0, 1])"),
        (DEEP, LIST),
        (HUGE, BIG),
        (1.5, "1.5"),
    ],
    ids=_id,
)
def test_pettingzoo_step_refuses_bad_actions_before_the_standard_wrappers(action, shown):
    """Not pettingzoo's bare ``AssertionError`` nor ``TerminateIllegalWrapper``'s numpy error: an
    ``InvalidMoveError`` naming the action, and the game goes on."""
    game = pettingzoo_env(size=6)
    game.reset(seed=1)
    mask = game.observe("player_0")["action_mask"].copy()
    with pytest.raises(InvalidMoveError) as error:
        game.step(action)
    assert shown in str(error.value)
    assert game.agent_selection == "player_0" and not any(game.terminations.values())
    assert (game.observe("player_0")["action_mask"] == mask).all()
    game.step(int(mask.argmax()))  # a legal action still plays


def test_pettingzoo_illegal_in_range_action_still_ends_the_game():
    """What TerminateIllegalWrapper is for is kept: an action in range but illegal costs -1."""
    game = pettingzoo_env(size=6)
    game.reset(seed=1)
    illegal = int(np.flatnonzero(game.observe("player_0")["action_mask"] == 0)[0])
    game.step(illegal)
    assert all(game.terminations.values()) and game.rewards["player_0"] == -1


@pytest.mark.parametrize(
    "seed, options", [(-1, None), ("", None), (-HUGE, None), (1, DEEP), (1, HUGE), (1, "x")], ids=_id
)
def test_pettingzoo_reset_names_bad_seeds_and_options(seed, options):
    with pytest.raises(InvalidArgumentError):
        pettingzoo_env(size=6).reset(seed=seed, options=options)


# -- the arena's check for scripts that start workers without a __main__ guard ---------------------------

ARENA_CALL = 'run_games([("random", "random:seed=1")], 2, size=4, workers=2, progress=False)'


def _run_script(folder: Path, text: str) -> subprocess.CompletedProcess:
    script = folder / "script.py"
    script.write_text(textwrap.dedent(text))
    return subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=str(Path(__file__).resolve().parents[3]),  # the repository
    )


def test_arena_runs_from_a_forked_worker_of_a_guarded_script(tmp_path):
    """A forked child shares the guarded script's frames: it may start the arena's workers."""
    result = _run_script(
        tmp_path,
        f"""
        import multiprocessing
        from agents.arena import run_games

        def child():
            print(len({ARENA_CALL}), "games")

        if __name__ == "__main__":
            process = multiprocessing.get_context("fork").Process(target=child)
            process.start()
            process.join()
            print("exit", process.exitcode)
        """,
    )
    assert result.stdout.split() == ["2", "games", "exit", "0"], result.stderr
    assert "playing in this process" not in result.stderr


def test_arena_plays_in_a_forked_worker_of_an_unguarded_script(tmp_path):
    """A forked child does not import the script again: not refused (it plays in-process, as the
    unguarded script itself does, since the arena's spawned workers would import it again)."""
    result = _run_script(
        tmp_path,
        f"""
        import multiprocessing
        from agents.arena import run_games

        def child():
            print(len({ARENA_CALL}), "games")

        process = multiprocessing.get_context("fork").Process(target=child)
        process.start()
        process.join()
        print("exit", process.exitcode)
        """,
    )
    assert result.stdout.split() == ["2", "games", "exit", "0"], result.stderr
    assert "playing in this process" in result.stderr and "RuntimeError" not in result.stderr


def test_arena_refuses_only_a_spawned_worker_reimporting_an_unguarded_script(tmp_path):
    """Unguarded: the script itself plays in-process (warning); a spawned worker that imports the
    script again (as ``__mp_main__``) is refused with the advice, instead of starting workers again."""
    result = _run_script(
        tmp_path,
        f"""
        import multiprocessing
        from agents.arena import run_games

        def noop():
            pass

        print(len({ARENA_CALL}), "games", multiprocessing.current_process().name)
        if __name__ == "__main__":
            process = multiprocessing.get_context("spawn").Process(target=noop)
            process.start()
            process.join()
            print("exit", process.exitcode)
        """,
    )
    assert result.stdout.split() == ["2", "games", "MainProcess", "exit", "1"], result.stderr
    assert "playing in this process" in result.stderr
    assert "RuntimeError" in result.stderr and '__name__ == "__main__"' in result.stderr


# -- agent options whose value could never finish ---------------------------------------------------


@pytest.mark.parametrize(
    "spec", ["move-then-arrow:depth=111", "classic:depth=7", "two-iteration:depth=7,time=1"], ids=_id
)
def test_study_searches_refuse_a_depth_that_could_never_finish(spec):
    """Full-width searches: a fixed depth over ``MAX_DEPTH`` is refused by name, not searched forever."""
    from agents import make
    from agents.search.study.agent import MAX_DEPTH

    with pytest.raises(ValueError, match=rf"depth={spec.split('depth=')[1].split(',')[0]}: must be <= {MAX_DEPTH}"):
        make(spec)
    assert make(f"{spec.split(':')[0]}:depth={MAX_DEPTH}").limit.depth == MAX_DEPTH
