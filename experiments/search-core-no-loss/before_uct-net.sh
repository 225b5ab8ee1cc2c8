#!/bin/bash
cd /tmp/before38 && PYTHONPATH=/tmp/before38 NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 exec python3 -c "import sys; from amazons_cli.main import command; sys.exit(command())" engine --agent uct-net "$@"
