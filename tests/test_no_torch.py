"""Without torch: the env, the classical agents and the command line work; the CNN parts say how to
install the ``nn`` extra. Each check runs in a fresh interpreter whose imports of torch and
safetensors fail, as on a machine where they are not installed."""

from __future__ import annotations

import subprocess
import sys
import textwrap

BLOCK = textwrap.dedent("""
    import sys

    class NoTorch:
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in ("torch", "safetensors"):
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
        assert "cnn" in available()
        assert "torch" not in sys.modules and "safetensors" not in sys.modules
        print("ok")
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_cnn_agent_names_the_extra():
    done = run_without_torch("""
        from agents import make
        from agents.nets import TorchMissingError
        try:
            make("cnn")
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
