#!/usr/bin/env bash
# Run the env tests against the LOWEST gymnasium and pettingzoo that pyproject.toml allows (and,
# with --pins, against the versions RLlib and AgileRL pin; with --core, also at the lowest numpy,
# numba and tqdm), in a throw-away venv that borrows every other package from this interpreter.
#
#   bash benchmarks/install/check_min_versions.sh            # gymnasium 1.1.0 + pettingzoo 1.24.1
#   bash benchmarks/install/check_min_versions.sh --pins     # also gymnasium 1.2.2 (RLlib) + pettingzoo 1.26.1 (AgileRL)
#   bash benchmarks/install/check_min_versions.sh --core     # gymnasium 1.1.0 + pettingzoo 1.24.1 + numpy 1.24.4
#                                                    # + numba 0.59.1 (llvmlite 0.42.0) + tqdm 4.60.0
#
# (--core takes the last patch release of numpy's and numba's lowest minor versions.)
# Exit status: 0 when every combination passes. Needs network access to the package index.
set -euo pipefail
cd "$(dirname "$0")/../.."
PYTHON=${PYTHON:-python3}
lowest="gymnasium==1.1.0 pettingzoo==1.24.1"
combos=("$lowest")
case "${1:-}" in
    --pins) combos+=("gymnasium==1.2.2 pettingzoo==1.26.1") ;;
    --core) combos=("$lowest numpy==1.24.4 numba==0.59.1 llvmlite==0.42.0 tqdm==4.60.0") ;;
esac
tests=(tests/amazons_env/envs/test_env.py tests/amazons_env/envs/test_env_options.py
       tests/amazons_env/envs/test_env_vector.py tests/amazons_env/envs/test_env_pettingzoo.py
       tests/amazons_env/envs/test_pettingzoo_options.py tests/amazons_env/envs/test_env_selfplay.py)
status=0
for combo in "${combos[@]}"; do
    read -r -a pins <<<"$combo"
    venv=$(mktemp -d)
    trap 'rm -rf "$venv"' EXIT
    "$PYTHON" -m venv --system-site-packages "$venv"
    # --no-deps: only these change; everything else (torch...) comes from the system site-packages
    "$venv/bin/pip" install --quiet --no-deps "${pins[@]}"
    "$venv/bin/python" -c "import gymnasium, numba, numpy, pettingzoo, tqdm
print(*(f'{m.__name__} {m.__version__}' for m in (gymnasium, pettingzoo, numpy, numba, tqdm)))"
    cache=()  # another numba compiles into the venv: its caches must not replace the tree's
    [[ "$combo" == *numba==* ]] && cache=(NUMBA_CACHE_DIR="$venv/numba-cache")
    if env "${cache[@]}" "$venv/bin/python" -m pytest -q -p no:cacheprovider -p no:warnings "${tests[@]}"; then
        echo "PASS $combo"
    else
        echo "FAIL $combo"
        status=1
    fi
    rm -rf "$venv"
    trap - EXIT
done
exit $status
