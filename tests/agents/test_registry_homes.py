"""``AGENT_HOMES``: building an agent imports its module alone, so a first run compiles the numba
kernels of the agents it uses and no others. Each check runs in a fresh interpreter (the suite's own
has imported every agent already)."""

from __future__ import annotations


def test_every_agent_has_the_home_that_registers_it(fresh_python):
    """Importing a name's home registers the name; every registered name has a home."""
    assert (
        fresh_python("""
        import importlib
        from agents.registry import AGENT_HOMES, AGENTS
        for name, module in AGENT_HOMES.items():
            importlib.import_module(module)
            assert name in AGENTS.factories, (name, module)
        assert sorted(AGENT_HOMES) == AGENTS.available()
        print("ok")
    """)
        == "ok"
    )


def test_making_an_agent_imports_its_module_and_no_other_search(fresh_python):
    out = fresh_python("""
        import sys
        import agents
        from amazons_env import Board
        agents.make("random").select_move(Board(6))
        print(sorted(m for m in sys.modules if m.startswith(("agents.search", "agents.evaluation"))))
        agents.make("uct:sims=10").select_move(Board(6))
        print("agents.search.alphabeta" in sys.modules, "agents.search.study" in sys.modules)
        print(len(agents.available()), "agents.search.study" in sys.modules)
    """)
    assert out.splitlines() == ["[]", "False False", f"{out.splitlines()[2].split()[0]} True"]
