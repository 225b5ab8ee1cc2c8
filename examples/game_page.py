"""Play one game between two engines and write it as a web page that opens in any browser.

    python3 examples/game_page.py                                 # alphabeta vs uct on 10x10, 0.2 s a move
    python3 examples/game_page.py --white uct --black random --size 8 --out my_game.html

The page (``amazons_env.drawing.html``) is one file with no outside references: the board, the move
list, stepping with the arrow keys, and the curve of the engines' values (for White) per move. From
the command line the same pages come from ``amazons match A B --html DIR`` (one per game) and
``amazons replay GAME.sgf --html game.html`` (a record you already have).
"""

from __future__ import annotations

import argparse
from dataclasses import asdict

from amazons_env import Board
from amazons_env.drawing.html import save_game_page

from agents import make
from agents.arena.files import result_record
from agents.arena.matches import play_game
from agents.time.limit import Limit


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--white", default="alphabeta", help="White's agent spec (default alphabeta)")
    parser.add_argument("--black", default="uct", help="Black's agent spec (default uct)")
    parser.add_argument("--size", type=int, default=10, help="board size (default 10)")
    parser.add_argument("--time", type=float, default=0.2, help="seconds per move of agents that take a time")
    parser.add_argument("--out", default="game.html", help="the page to write (default game.html)")
    args = parser.parse_args()
    # every move's limit, as the arena's --time: agents that search within a time take it
    white, black = make(args.white), make(args.black)
    result = play_game(white, black, Board(args.size), limit=Limit(time=args.time))
    save_game_page(result_record(asdict(result)), args.out)
    winner = ("White", "Black")[result.winner]
    print(f"{args.out}: {result.white} vs {result.black}, {result.plies} plies, {winner} won")


if __name__ == "__main__":
    main()
