"""``python -m amazons_cli``: the ``amazons`` command."""

from amazons_cli.main import command

if __name__ == "__main__":  # spawned worker processes import this module again: they must not run the command
    command()
