"""The base install (no extra): the env, the classical agents and every command line work; what needs
an extra says how to install it. Each check runs in a fresh interpreter whose imports of the extras'
modules (torch, safetensors, ONNX Runtime, pygame, Ray, matplotlib, scipy) fail, as on a machine
where they are not installed."""

from __future__ import annotations

import subprocess
import sys
import textwrap

BLOCK = textwrap.dedent("""
    import sys

    HEAVY = ("torch", "safetensors", "onnxruntime", "onnx", "pygame", "ray", "matplotlib", "scipy")

    class NoTorch:
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in HEAVY:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, NoTorch())
""")


def run_without_torch(code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", BLOCK + textwrap.dedent(code)], capture_output=True, text=True, timeout=300
    )


def test_blocker_hides_torch():
    done = run_without_torch("import torch")
    assert done.returncode != 0 and "No module named 'torch'" in done.stderr


def test_env_and_classical_agents_play_without_torch():
    done = run_without_torch("""
        import amazons_env, agents
        from agents import available, make
        from amazons_env import Board
        board = Board(6)
        for spec in ("random", "alphabeta:depth=1", "two-iteration:depth=1,eval=territory",
                     "classic:depth=1,eval=improved", "mcts"):
            agent = make(spec, seed=0, **({"time": 0.05} if spec == "mcts" else {}))
            move = agent.select_move(board)
            assert board.is_legal(move), (spec, move)
        assert "uct-net" in available()
        assert "torch" not in sys.modules and "safetensors" not in sys.modules
        print("ok")
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_the_learned_agent_names_the_extra():
    done = run_without_torch("""
        from agents import make
        from agents.nets import TorchMissingError
        try:
            make("uct-net")
        except TorchMissingError as error:
            assert isinstance(error, ValueError) and isinstance(error, ImportError)
            print(error)
    """)
    assert done.returncode == 0, done.stderr
    line = done.stdout.strip()
    assert "\n" not in line and 'pip install "amazons[nn]"' in line and "torch" in line


def test_command_line_without_torch(tmp_path):
    done = run_without_torch(f"""
        from amazons_cli.main import main
        assert main(["perft", "3", "--size", "6"]) == 0
        assert main(["selfplay", {str(tmp_path / "data")!r}, "--games", "1", "--size", "6", "--workers", "1",
                     "--agent", "two-iteration:depth=1,eval=improved"]) == 0
        assert "torch" not in sys.modules
        assert main(["train", {str(tmp_path)!r}, "--out", {str(tmp_path / "out")!r}]) == 2
    """)
    assert done.returncode == 0, done.stderr
    assert "amazons train: error: amazons train needs torch" in done.stderr
    assert 'pip install "amazons[nn]"' in done.stderr


def test_every_command_help_on_the_base_install():
    """``amazons``, ``amazons --help`` and each ``amazons COMMAND --help`` exit with 0 and import no extra."""
    done = run_without_torch("""
        from amazons_cli.main import COMMANDS, main
        assert main([]) == 0
        for argv in [["--help"], ["-h"]] + [[name, "--help"] for name in COMMANDS]:
            try:
                main(argv)
            except SystemExit as stop:
                assert stop.code == 0, (argv, stop.code)
            else:
                raise AssertionError(f"{argv}: no help")
        assert not [m for m in sys.modules if m.partition(".")[0] in HEAVY], sorted(sys.modules)
        print("ok")
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("ok")


def test_commands_that_need_no_extra_run_on_the_base_install(tmp_path):
    game = tmp_path / "game.txt"
    game.write_text("b1-b3/b4\n")
    done = run_without_torch(f"""
        import io
        from amazons_cli.main import main
        sys.stdin = io.StringIO("resign\\n")
        assert main(["play", "random", "--size", "5", "--seed", "1"]) == 0
        assert main(["agents"]) == 0 and main(["agents", "uct"]) == 0
        assert main(["watch", "random", "random", "--size", "5", "--delay", "0"]) == 0
        assert main(["match", "random", "random", "--games", "2", "--size", "5", "--workers", "1"]) == 0
        assert main(["tournament", "random", "random:seed=1", "--games", "2", "--size", "5", "--workers", "1"]) == 0
        assert main(["replay", {str(game)!r}, "--size", "5", "--all"]) == 0
        sys.stdin = io.StringIO("uci\\nquit\\n")
        assert main(["engine", "--agent", "random"]) == 0
        assert not [m for m in sys.modules if m.partition(".")[0] in HEAVY]
        print("ok")
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("ok")
    assert "uct-net" in done.stdout and "[2nd strongest; the default opponent]" in done.stdout


def test_commands_that_need_an_extra_say_which(tmp_path):
    """Exit code 2 and one line with the install command, before any work."""
    out = str(tmp_path / "out")
    done = run_without_torch(f"""
        from amazons_cli.main import main
        for argv in (
            ["train", {out!r}, "--out", {out!r}],
            ["train-loop", {out!r}, "--size", "5"],
            ["train-policy", {out!r}, "--out", {out!r}, "--size", "5"],
            ["tune-eval", {out!r}, "--size", "5"],
            ["play", "random", "--gui"],
            ["match", "random", "random", "--backend", "ray"],
            ["selfplay", {out!r}, "--games", "1", "--backend", "ray"],
        ):
            assert main(argv) == 2, argv
        print("ok")
    """)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if ": error: " in line]  # not a first run's compile notice
    assert len(lines) == 7 and all('pip install "amazons[' in line for line in lines), done.stderr
