#!/bin/sh
# uct of the restructured tree with the search core (the final commit of issue 26's session), as a UCI engine
cd /tmp/final && exec python3 -m amazons_cli engine --protocol uci --agent uct
