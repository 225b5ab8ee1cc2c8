#!/usr/bin/env bash
# Run the env tests against the LOWEST gymnasium and pettingzoo that pyproject.toml allows (and,
# with --pins, against the versions RLlib and AgileRL pin), in a throw-away venv that borrows
# every other package from this interpreter.
#
#   bash benchmarks/check_min_versions.sh            # gymnasium 1.1.0 + pettingzoo 1.24.0
#   bash benchmarks/check_min_versions.sh --pins     # also gymnasium 1.2.2 (RLlib) + pettingzoo 1.26.1 (AgileRL)
#
# Exit status: 0 when every combination passes. Needs network access to the package index.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
combos=("1.1.0 1.24.0")
if [[ "${1:-}" == "--pins" ]]; then
    combos+=("1.2.2 1.26.1")
fi
tests=(tests/test_env.py tests/test_env_options.py tests/test_env_vector.py tests/test_env_pettingzoo.py
       tests/test_pettingzoo_options.py tests/test_env_selfplay.py)
status=0
for combo in "${combos[@]}"; do
    read -r gym pz <<<"$combo"
    venv=$(mktemp -d)
    trap 'rm -rf "$venv"' EXIT
    "$PYTHON" -m venv --system-site-packages "$venv"
    # --no-deps: only these two change; numpy, numba, torch... come from the system site-packages
    "$venv/bin/pip" install --quiet --no-deps "gymnasium==$gym" "pettingzoo==$pz"
    "$venv/bin/python" -c "import gymnasium, pettingzoo; print('gymnasium', gymnasium.__version__, \
'pettingzoo', pettingzoo.__version__)"
    if "$venv/bin/python" -m pytest -q -p no:cacheprovider -p no:warnings "${tests[@]}"; then
        echo "PASS gymnasium==$gym pettingzoo==$pz"
    else
        echo "FAIL gymnasium==$gym pettingzoo==$pz"
        status=1
    fi
    rm -rf "$venv"
    trap - EXIT
done
exit $status
