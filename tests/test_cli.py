import pytest

from amazons_env.cli import COMMANDS, main


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
    from amazons_env.cli import build_parser

    assert DEFAULT_OPPONENT in available()
    args = build_parser(["match"]).parse_args(["match", "random"])
    assert args.b == DEFAULT_OPPONENT
