#!/usr/bin/env bash
# Side-by-side benchmark (issue 7, part 6): facedown's matrix-game solver against pygambit,
# the Python face of Gambit, the tool the Iron Triangle author used for his analyses.
#
# Installs pygambit from PyPI into bench/.venv-gambit (once), builds facedown in release, and
# times both on the same Iron Triangle move matrices (9×9 three-element moves and 13×13 all
# moves, under several fixed stances), checking the values agree to 1e-9.
#
#   bench/gambit.sh [--repeat N]
#
# Not part of CI: it needs the network (PyPI) the first time and a few minutes.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
venv="$here/.venv-gambit"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check pygambit
(cd "$root" && cargo build --release --quiet -p facedown)
exec "$venv/bin/python" "$here/gambit_compare.py" --facedown "$root/target/release/facedown" "$@"
