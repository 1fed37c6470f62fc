#!/usr/bin/env bash
# Build build/venvs/NAME: the pins of thirdparty/NAME.txt, then the suite (editable) beside them.
#   usage: thirdparty/venv.sh NAME PYTHON
# The suite must move none of the implementation's packages: `uv pip freeze` before and after
# must agree on every package that was there before, or the build fails naming what moved.
# Prints one line: the time it took and how many packages each step installed.
set -euo pipefail
NAME=${1:?usage: venv.sh NAME PYTHON}; PYTHON=${2:?usage: venv.sh NAME PYTHON}
UV=${UV:-$(command -v uv || echo "$HOME/.local/bin/uv")}
cd "$(dirname "$0")/.."
venv=build/venvs/$NAME; py=$venv/bin/python; SECONDS=0
rm -rf "$venv"
"$UV" venv --quiet --no-config --python "$PYTHON" "$venv"
"$UV" pip install --quiet --no-config --python "$py" -r "thirdparty/$NAME.txt"
"$UV" pip freeze --quiet --no-config --python "$py" >"$venv/freeze-before.txt"
"$UV" pip install --quiet --no-config --python "$py" -e .
"$UV" pip freeze --quiet --no-config --python "$py" >"$venv/freeze-after.txt"
moved=$(comm -23 <(sort "$venv/freeze-before.txt") <(sort "$venv/freeze-after.txt"))
if [ -n "$moved" ]; then
  echo "venv $NAME: installing the suite moved the implementation's packages:" >&2
  echo "$moved" | sed 's/^/  was /' >&2
  exit 1
fi
before=$(wc -l <"$venv/freeze-before.txt"); after=$(wc -l <"$venv/freeze-after.txt")
printf 'venv %s: %s packages pinned, %s added by the suite, none moved (%d s)\n' \
  "$NAME" "$before" "$((after - before))" "$SECONDS"
touch "$venv/.built"
