#!/bin/sh
# uct of 48675dc (before the restructuring), as a UCI engine
cd /tmp/old && exec python3 -m amazons_env.cli engine --protocol uci --agent uct
