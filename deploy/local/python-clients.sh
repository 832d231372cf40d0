#!/usr/bin/env bash
# Installs the Python GitLab clients the e2e tests drive (python-gitlab) and the chart tests'
# manifest validator (kubernetes-validate) into <repo>/.venv.
# Idempotent: a no-op when .venv already has the pinned requirements.
set -euo pipefail
cd "$(dirname "$0")/../.."
REQ=apps/gateway/test/e2e/python/requirements.txt
REQ_K8S=deploy/local/k8s-validate.requirements.txt
STAMP=.venv/.requirements.sha256
want=$(cat "$REQ" "$REQ_K8S" | sha256sum | cut -d' ' -f1)
if [ -x .venv/bin/python ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$want" ]; then exit 0; fi
echo "[python] installing $(cat "$REQ" "$REQ_K8S" | grep -v '^#' | xargs) into .venv" >&2
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r "$REQ" -r "$REQ_K8S" >&2
echo "$want" >"$STAMP"
