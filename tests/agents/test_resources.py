"""Options bounded by the machine: search threads by its cores, a tree by its memory, refused
with the reason before anything is allocated."""

import pytest

from amazons_env import Board

from agents import make, resources
from agents.options import OptionError
from agents.resources import ResourceError


def test_threads_above_what_the_cores_run_are_refused_naming_them(monkeypatch):
    monkeypatch.setattr(resources, "cores", lambda: 2)
    assert resources.most_threads() == 4
    make("uct:threads=4")
    with pytest.raises(OptionError, match=r"threads=1024: more than this machine can run at once \(2 cores"):
        make("uct:threads=1024")
    monkeypatch.setattr(resources, "cores", lambda: 16)
    assert resources.most_threads() == 32


def test_a_tree_larger_than_the_memory_available_is_refused_before_it_is_allocated(monkeypatch):
    agent = make("uct:sims=50,threads=2")
    monkeypatch.setattr(resources, "available_memory", lambda: 1 << 20)
    refused = r"uct's tree .* for each of 2 threads\) needs .* GiB of memory; 0.0 GiB"
    with pytest.raises(ResourceError, match=refused):
        agent.search(Board(6))  # the memory went since the agent was built
    with pytest.raises(ResourceError, match=refused):
        make("uct:sims=50,threads=2")  # built: refused before a match's first game
    monkeypatch.setattr(resources, "available_memory", lambda: None)  # a system that does not say
    assert agent.search(Board(6)).move is not None


@pytest.mark.parametrize(
    "spec, option",
    [
        ("pvmcts:threads=99", "threads"),
        ("uct-net:net_threads=99", "net_threads"),
        ("alphabeta:eval=value-net,threads=99", "threads"),
    ],
)
def test_net_threads_far_above_the_cores_are_refused_naming_the_option(spec, option, monkeypatch):
    pytest.importorskip("torch")
    monkeypatch.setattr(resources, "cores", lambda: 2)
    with pytest.raises(ValueError, match=rf"^{option}=99: more than this machine can run at once \(2 cores; at most 4"):
        make(spec)
