#!/usr/bin/env bash
# The virtualenv of one requirements file, linked where the Makefile wants it:
#   dev/venv.sh python/requirements-4.1.txt .venv-4.1
# It lives under the user's cache, named by a hash of the file, so an edited file gets a fresh one and
# checkouts share it; the link is replaced when it points elsewhere. PYTHON picks the interpreter.
set -euo pipefail
requirements=$1 link=$2 python=${PYTHON:-python3}

if [ ! -f "$requirements" ]; then
  echo "error: no $requirements: the lines with a test virtualenv are those with a python/requirements-<line>.txt" >&2
  exit 1
fi
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
  echo "error: $python is Python $("$python" -c 'import platform; print(platform.python_version())'); the pinned test tools need 3.11 or newer. Run with PYTHON=python3.11 (or newer)." >&2
  exit 1
}
home="$HOME/.cache/spark-lance/venvs/$("$python" -c 'import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest()[:16])' "$requirements")"
if [ ! -f "$home/.installed" ]; then
  echo "creating the virtualenv of $requirements in $home"
  test -x "$home/bin/python" || "$python" -m venv "$home"
  "$home/bin/python" -m pip install -q -r "$requirements"
  touch "$home/.installed"
fi
[ "$(readlink "$link" || true)" = "$home" ] || { rm -rf "$link" && ln -s "$home" "$link"; }
