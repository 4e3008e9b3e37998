#!/usr/bin/env bash
# Builds the documentation (docs/, mkdocs.yml) strictly: any warning — a broken link, a
# docstring the API reference cannot render, a name that no longer resolves — fails the
# build. The site goes to a fresh temporary directory outside the repository, printed at the
# end. Needs the docs extra in .venv (`pip install -e '.[docs]'`, or the packages it lists);
# the API reference reads the package's source statically, so no build of the extension is
# needed. Extra arguments go to `mkdocs build`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ ! -x .venv/bin/mkdocs ]; then
  echo "scripts/docs.sh: .venv/bin/mkdocs not found; install the docs extra into .venv:" >&2
  echo "  .venv/bin/pip install 'mkdocs>=1.6' 'mkdocs-material>=9.5' 'mkdocstrings[python]>=0.26'" >&2
  exit 1
fi
site="$(mktemp -d "${TMPDIR:-/tmp}/ragchunk-docs.XXXXXX")"
# NO_MKDOCS_2_WARNING: mkdocs-material's banner about its own future, not about these docs.
NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --site-dir "$site" "$@"
echo "docs built in $site (open $site/index.html)"
