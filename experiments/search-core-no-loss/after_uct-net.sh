#!/bin/bash
cd /tmp/after38 && PYTHONPATH=/tmp/after38 NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 exec python3 -c "import sys; from amazons_cli.main import command; sys.exit(command())" engine --agent uct-net "$@"
