#!/usr/bin/env bash
# npm run backup / npm run restore <backup> [--force]: the backup CLI (apps/backup) against the local stack (local
# infrastructure unless DATABASE_URL is set; repo-admin at REPO_ADMIN_GRPC_ADDR, npm start's by default).
set -euo pipefail
cd "$(dirname "$0")/../.."
export NODE_ENV=${NODE_ENV:-development}   # allows the built-in ACTOR_SECRET, as npm start does
if [ -z "${DATABASE_URL:-}" ]; then
  while IFS='=' read -r key value; do [ -n "$key" ] && [ -z "${!key:-}" ] && export "$key=$value"; done < <(bash deploy/local/infra.sh up pg)
fi
[ -f apps/backup/dist/main.js ] || { echo "apps/backup is not built: npm run build" >&2; exit 1; }
exec node apps/backup/dist/main.js "$@"
