#!/usr/bin/env bash
# Vendors the optional PostgreSQL, Redis and Kafka subcharts (Bitnami's, pinned) into
# charts/gitlab-projects/charts/*.tgz, so `helm template` / `helm install` work offline.
#
# Source: Bitnami's chart sources (github.com/bitnami/charts) at one commit, fetched through the Go module
# proxy, the one place this machine reaches that serves that repository (no chart registry is reachable:
# registry-1.docker.io and charts.bitnami.com do not resolve). The module zip is checked against its hash in
# Go's checksum database (sum.golang.org, which pins a module version's content for everyone), so the files
# are exactly Bitnami's at that commit. Each chart is packaged with the `common` library chart of the same
# commit (what `helm dependency build` would fetch from oci://registry-1.docker.io/bitnamicharts).
#
# Run it only to change the pinned versions (the tgz files are committed); it is idempotent.
set -euo pipefail
cd "$(dirname "$0")/../.."

MODULE=github.com/bitnami/charts
# The commit c0703daaf78e of 2026-09-07: postgresql 17.1.1, redis 23.1.1, kafka 32.4.4, common 2.31.10.
VERSION=v0.0.0-20260907150927-c0703daaf78e
# `go.sum` hash of the module zip, as sum.golang.org records it.
H1=h1:68EPXIo1ixa5DpWiY+3J97oIktp4QFXjACbpR/4saBQ=
CHARTS="postgresql:17.1.1 redis:23.1.1 kafka:32.4.4"
PROXY=${GOPROXY_URL:-https://proxy.golang.org}
OUT=charts/gitlab-projects/charts

HELM=$(bash deploy/local/helm.sh)
command -v unzip >/dev/null || { echo "[vendor] unzip is required (apt-get install unzip)" >&2; exit 1; }

want_files() { for c in $CHARTS; do echo "$OUT/${c%%:*}-${c#*:}.tgz"; done; }
if [ "${1:-}" != "--force" ] && [ -z "$(for f in $(want_files); do [ -f "$f" ] || echo missing; done)" ]; then
  echo "[vendor] $(want_files | xargs -n1 basename | tr '\n' ' ')already vendored (--force to fetch again)"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "[vendor] fetching $MODULE@$VERSION from $PROXY" >&2
curl -fsSL --retry 3 -o "$work/module.zip" "$PROXY/$MODULE/@v/$VERSION.zip"
(cd "$work" && unzip -q module.zip -d tree)

# Go's dirhash "h1": SHA-256 over the lines "<sha256 of file>  <path in the zip>\n" of every file, sorted by path.
got="h1:$(cd "$work/tree" && find . -type f | sed 's|^\./||' | LC_ALL=C sort | while IFS= read -r f; do
  printf '%s  %s\n' "$(sha256sum "$f" | cut -d' ' -f1)" "$f"; done | sha256sum | cut -d' ' -f1 | xxd -r -p | base64)"
[ "$got" = "$H1" ] || { echo "[vendor] $MODULE@$VERSION: hash $got, want $H1" >&2; exit 1; }
# The checksum database agrees (through the proxy; skipped when it cannot be reached).
if sumdb=$(curl -fsS --max-time 20 "$PROXY/sumdb/sum.golang.org/lookup/$MODULE@$VERSION" 2>/dev/null); then
  grep -qxF "$MODULE $VERSION $H1" <<<"$sumdb" || { echo "[vendor] sum.golang.org does not list $H1" >&2; exit 1; }
  echo "[vendor] $H1 matches sum.golang.org" >&2
fi

src="$work/tree/$MODULE@$VERSION/bitnami"
mkdir -p "$OUT"
for c in $CHARTS; do
  name=${c%%:*} version=${c#*:}
  grep -qx "version: $version" "$src/$name/Chart.yaml" || { echo "[vendor] $name is not $version at $VERSION" >&2; exit 1; }
  mkdir -p "$src/$name/charts"
  cp -r "$src/common" "$src/$name/charts/common"
  rm -f "$OUT/$name"-*.tgz
  "$HELM" package "$src/$name" --destination "$OUT" >/dev/null
  echo "[vendor] $OUT/$name-$version.tgz (with common $(sed -n 's/^version: //p' "$src/common/Chart.yaml"))" >&2
done
