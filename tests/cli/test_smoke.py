from amazons_env import Board
from amazons_env.perft import perft


def test_perft_start_10x10_depth_2():
    assert perft(Board(10), 1) == 2176
    assert perft(Board(10), 2) == 4_307_152
