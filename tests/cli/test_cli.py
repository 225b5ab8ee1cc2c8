import pytest

from amazons_cli.main import COMMANDS, main


def test_top_level_help_lists_every_command(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for name in COMMANDS:
        assert name in out


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_command_has_help(name, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([name, "--help"])
    assert exit_info.value.code == 0
    assert name in capsys.readouterr().out


def test_errors_are_reported_without_traceback(capsys):
    assert main(["perft", "1", "--size", "3"]) == 2
    assert "size" in capsys.readouterr().err


def test_match_defaults_to_the_strongest_agent():
    from agents import DEFAULT_OPPONENT, available

    from amazons_cli.main import build_parser

    assert DEFAULT_OPPONENT in available()
    args = build_parser(["match"]).parse_args(["match", "random"])
    assert args.b == DEFAULT_OPPONENT


def test_agents_lists_every_agent_and_evaluator_with_their_options(capsys):
    from agents.evaluation.evaluator import EVALUATORS
    from agents.registry import AGENTS

    assert main(["agents"]) == 0
    out = capsys.readouterr().out
    for registry in (AGENTS, EVALUATORS):
        for name in registry.available():
            assert f"\n{name}  " in out
            for option in registry.schema(name).options.values():
                assert option.help in out
    assert main(["agents", "alphabeta", "basic"]) == 0
    out = capsys.readouterr().out
    assert "\nalphabeta  " in out and "\nbasic  " in out and "\nclassic  " not in out
    assert main(["agents", "nosuch"]) == 2 and "unknown agent or evaluator 'nosuch'" in capsys.readouterr().err


def test_help_texts_are_not_escaped_twice(capsys):
    with pytest.raises(SystemExit):
        main(["match", "--help"])
    out = capsys.readouterr().out
    assert "95% CI" in out and "%%" not in out


@pytest.mark.parametrize("value", ["0", "-1", "inf", "nan", "x"])
def test_match_refuses_a_bad_time(value, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["match", "random", "random", "--time", value])
    assert exit_info.value.code == 2 and "--time" in capsys.readouterr().err


def test_ctrl_c_exits_130_with_one_line(monkeypatch, capsys):
    import amazons_cli.list_agents

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(amazons_cli.list_agents, "run", interrupted)
    assert main(["agents"]) == 130
    captured = capsys.readouterr()
    assert captured.err.strip() == "amazons agents: interrupted" and "Traceback" not in captured.err


def test_the_list_of_commands_imports_no_command(fresh_python):
    """``amazons --help`` builds the list from ``COMMANDS`` alone: no numba, no torch (well under a second)."""
    code = (
        "import sys\nfrom amazons_cli.main import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit as stop:\n    assert stop.code == 0\n"
        "print(sorted(m for m in sys.modules if m.partition('.')[0] in "
        "('numba', 'torch', 'amazons_env', 'agents', 'training', 'onnxruntime', 'ray', 'pygame', 'scipy')))"
    )
    assert fresh_python(code, timeout=60).endswith("[]")


def test_a_misspelt_command_or_agent_gets_a_suggestion(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["plya"])
    assert exit_info.value.code == 2
    assert "unknown command 'plya'; did you mean 'play'?" in capsys.readouterr().err
    assert main(["agents", "uctt"]) == 2
    assert "unknown agent or evaluator 'uctt' (did you mean 'uct'?)" in capsys.readouterr().err


def test_agents_marks_the_strongest_and_the_default(capsys):
    from agents.registry import DEFAULT_OPPONENT, STRONGEST, installed

    assert [name for name, _, _ in STRONGEST][:2] == ["uct-net", "uct"]
    pytest.importorskip("torch")  # the base install's marks: tests/test_no_torch.py
    assert installed("safetensors") and DEFAULT_OPPONENT == "uct-net"
    assert main(["agents"]) == 0
    out = capsys.readouterr().out
    assert "\nuct-net  [strongest; the default opponent]  " in out and "\nuct  [2nd strongest]  " in out
    assert "Default opponent (play, match, engine): uct-net" in out


def test_the_first_run_says_that_kernels_compile_and_the_second_is_quiet(tmp_path):
    """An empty numba cache (``NUMBA_CACHE_DIR``): the command says why it waits and what it compiled."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), NUMBA_NUM_THREADS="1")
    command = [sys.executable, "-m", "amazons_cli", "perft", "1", "--size", "5"]
    first, second = (subprocess.run(command, capture_output=True, text=True, env=env, timeout=600) for _ in "12")
    assert first.returncode == second.returncode == 0, first.stderr
    assert first.stderr.startswith("First run: numba compiles the kernels this command uses to machine code, once")
    assert "\nCompiled " in first.stderr and "numba kernels in" in first.stderr
    assert second.stderr == "" and second.stdout.split()[0] == first.stdout.split()[0] == "260"
