#!/usr/bin/env bash
# npm run migrate: apply every service's migrations (local infrastructure unless DATABASE_URL is set), then exit.
set -euo pipefail
cd "$(dirname "$0")/../.."
export NODE_ENV=${NODE_ENV:-development}   # allows the built-in ACTOR_SECRET, as npm start does
if [ -z "${DATABASE_URL:-}" ]; then
  while IFS='=' read -r key value; do [ -n "$key" ] && [ -z "${!key:-}" ] && export "$key=$value"; done < <(bash deploy/local/infra.sh up pg)
fi
for app in identity projects access-requests repo-admin hooks webhook-dispatcher push-rules; do
  [ -f "apps/$app/dist/main.js" ] || { echo "apps/$app is not built: npm run build" >&2; exit 1; }
  node "apps/$app/dist/main.js" migrate --post
done
