# Sourced by start.sh and bench.sh (from the repository's root, with log() defined): what they do before they run
# anything. test.sh keeps its own steps (it installs only when nothing is installed and streams the build's output).

# npm ci when nothing is installed or the lock file is newer than the installed tree.
ensure_npm_deps() {
  if [ ! -x node_modules/.bin/nx ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    log "installing npm dependencies"
    npm ci --no-audit --no-fund --loglevel=error
  fi
}

# PostgreSQL/Redis/Kafka up (idempotent; a no-op when everything answers); their URLs exported, those already in the
# environment winning.
export_infra_env() {
  local key value
  while IFS='=' read -r key value; do
    [ -n "$key" ] && [ -z "${!key:-}" ] && export "$key=$value"
  done < <(bash deploy/local/infra.sh up)
}

# Every app and lib (Nx caches: a warm build is a cache replay); the output only when it fails (.nx-build.log).
build_quietly() {
  log "building"
  npx nx run-many -t build --outputStyle=static >/dev/null 2>"$PWD/.nx-build.log" || { cat "$PWD/.nx-build.log" >&2; return 1; }
}
