"""Markers of the test suite: ``slow`` on the tests that take seconds to tens of seconds each
(worker processes, subprocess engines, Ray, kill-and-resume runs, long reference sweeps).

CI runs everything. While you work, ``python3 -m pytest -m "not slow"`` leaves them out. The list
below is kept here rather than as decorators so that one place says what is slow and why; a
name that no longer exists in its file is reported as a warning. (The root ``conftest.py``
skips modules whose optional extras are missing.)
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.helpers.game_page import browser  # noqa: F401  (a fixture: the game page in headless Chromium)

TESTS = Path(__file__).resolve().parent

# file (relative to tests/) -> test functions that are slow (parametrized cases included)
SLOW: dict[str, tuple[str, ...]] = {
    # worker processes: spawn, fork and Ctrl-C paths of the arena
    "agents/arena/test_arena.py": (
        "test_an_unguarded_script_plays_in_process_and_says_why",
        "test_ctrl_c_stops_the_workers_keeps_the_games_and_prints_one_line",
        "test_match_alternates_colours_and_reproduces",
        "test_two_workers",
    ),
    "agents/test_custom_agent.py": ("test_entered_into_a_tournament_from_python_and_the_command_line",),
    "cli/test_analyse.py": ("test_two_workers_give_the_same_review",),  # spawned evaluation workers
    "cli/test_analyse_outputs.py": (
        "test_two_workers_give_the_same_review_as_one_for_a_node_budget",
        "test_ctrl_c_with_workers_keeps_a_sealed_store_and_leaves_no_worker",
    ),
    "amazons_env/envs/test_env_hostile.py": (
        "test_arena_runs_from_a_forked_worker_of_a_guarded_script",
        "test_arena_refuses_only_a_spawned_worker_reimporting_an_unguarded_script",
    ),
    # engines in subprocesses, whole games through the protocols
    "agents/protocols/test_uci_engine.py": ("test_engine_subprocess_answers_a_scripted_session",),
    "agents/protocols/test_botzone.py": ("test_botzone_subprocess_answers_the_first_turn_and_keeps_running",),
    "agents/protocols/test_uci_client.py": (
        "test_uci_agent_from_a_spec_and_its_process_ends_on_garbage_collection",
        "test_uci_agent_plays_a_game_against_random_through_our_engine",
    ),
    "agents/protocols/test_engine_faults.py": (
        "test_a_handshake_that_never_ends_fails_by_its_deadline",
        "test_an_engine_that_dies_or_never_answers_a_move_fails_naming_it",
    ),
    "agents/arena/test_arena_clocks.py": ("test_a_uci_engine_is_given_the_clocks_and_ponders_on_its_opponents_time",),
    # searches run to their limits, exhaustive references
    "agents/search/test_search_budgets.py": (
        "test_batched_search_cut_after_its_first_root_move_keeps_the_best_so_far",
    ),
    "agents/search/test_uct.py": ("test_proven_results_match_an_exhaustive_solver",),
    "amazons_env/envs/test_vector_reference.py": ("test_vector_env_matches_board_reference",),
    # gymnasium's AsyncVectorEnv: worker processes that import the package
    "amazons_env/adapters/test_torchrl_client.py": ("test_gym_env_with_num_envs_runs_through_game_ends",),
    "amazons_env/test_core_reference.py": ("test_symmetries_preserve_counts_and_map_legal_moves",),
    # RL libraries' training loops through the adapters (amazons_env.adapters)
    "amazons_env/adapters/test_adapters_sb3.py": (
        "test_maskable_ppo_trains_with_the_queen_line_policy_and_never_takes_an_illegal_action",
    ),
    "amazons_env/adapters/test_adapters_tianshou.py": (
        "test_dqn_against_an_opponent_trains_masked_and_would_not_without_the_mask",
        "test_two_dqns_play_each_other_through_pettingzoo_without_an_illegal_move",
    ),
    "amazons_env/adapters/test_adapters_rllib.py": (
        "test_one_ppo_iteration_with_both_players_takes_only_legal_actions",
    ),
    "amazons_env/adapters/test_adapters_supersuit.py": (
        "test_maskable_ppo_trains_on_stacked_planes_with_legal_actions_only",
    ),
    "examples/test_maskable_ppo.py": ("test_a_toy_run_writes_its_curve_and_its_table",),
    "amazons_env/adapters/test_adapters_torchrl.py": (
        "test_ppo_from_torchrl_objects_trains_on_the_vector_env_with_legal_actions_only",
        "test_ppo_from_torchrl_objects_trains_on_gym_env_with_num_envs_through_game_ends",
        "test_a_masked_policy_gradient_loop_trains_both_agents_through_pettingzoo_wrapper",
    ),
    # killed and resumed runs
    "training/test_faults.py": (
        "test_killed_selfplay_leaves_no_worker_and_resumes_exactly",
        "test_killed_arena_leaves_no_worker",
    ),
    "training/loop/test_loop.py": (
        "test_loop_resumes_after_an_interruption",
        "test_the_command_prints_every_stage_and_gate_and_resumes",
        "test_ctrl_c_stops_the_command_in_one_line_and_a_rerun_completes_it",
    ),
}
# fixtures that make every test using them slow
SLOW_FIXTURES = {"ray_address", "ray_cluster"}  # start local Ray clusters (training/test_ray_*.py)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    checked = set()
    for item in items:
        if not isinstance(item, pytest.Function) or TESTS not in item.path.parents:
            continue
        relative = item.path.relative_to(TESTS).as_posix()
        names = SLOW.get(relative, ())
        if item.originalname in names or SLOW_FIXTURES.intersection(item.fixturenames):
            item.add_marker(pytest.mark.slow)
        if relative not in checked:
            checked.add(relative)
            stale = [name for name in names if not hasattr(item.module, name)]
            if stale:
                item.warn(pytest.PytestWarning(f"tests/conftest.py marks {stale} slow, not in tests/{relative}"))


@pytest.fixture
def fresh_python():
    """``fresh_python(code, timeout=300)``: ``code`` (dedented) run by a new interpreter, which must
    exit 0 (else the test fails with its stderr); its output, stripped. For what a first import
    does: this process has imported much already."""

    def run(code: str, timeout: float = 300) -> str:
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=timeout
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    return run


@pytest.fixture(scope="module")
def small_net():
    """A small random policy-value net (untrained, seed 0, eval mode), one per test module: for the
    tests of searches and self-play where any net will do."""
    import torch

    from agents.nets.policy_value import PolicyValueNet

    torch.manual_seed(0)
    return PolicyValueNet(channels=8, blocks=1, head=4, hidden=8).eval()
