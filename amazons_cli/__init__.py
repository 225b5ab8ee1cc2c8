"""The ``amazons`` command line: one module per subcommand, above everything it dispatches
(``amazons_env`` < ``agents`` < ``training`` < ``amazons_cli``). ``main`` builds the parser."""
