#!/bin/sh
# uct of 90849f6 (the restructured layout), as a UCI engine
cd /tmp/new && exec python3 -m amazons_cli engine --protocol uci --agent uct
