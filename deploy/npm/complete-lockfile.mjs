#!/usr/bin/env node
// Adds lock entries for optional platform packages (esbuild/swc/nx-style native binaries for
// other OSes/CPUs) that package-lock.json lists as optionalDependencies but has no entry for.
// npm leaves them out when the registry it reached does not serve them, and `npm ci` then
// refuses the lock ("Missing: @swc/core-darwin-arm64@ from lock file"). An entry with the
// package's os/cpu lets `npm ci` accept the lock and skip the package on this platform.
// Run after changing dependencies: node deploy/npm/complete-lockfile.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const OS = ['darwin', 'linux', 'win32', 'freebsd', 'openbsd', 'netbsd', 'android', 'sunos', 'aix', 'openharmony'];
const CPU = [['x64', 'x64'], ['arm64', 'arm64'], ['armv7', 'arm'], ['arm', 'arm'], ['ia32', 'ia32'], ['ppc64', 'ppc64'],
  ['s390x', 's390x'], ['riscv64', 'riscv64'], ['loong64', 'loong64'], ['wasm32', 'wasm32']];

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OS.includes(p));
  const cpuToken = parts.find((p) => CPU.some(([t]) => t === p));
  if (!os || !cpuToken) return undefined;
  const entry = { os: [os], cpu: [CPU.find(([t]) => t === cpuToken)[1]] };
  if (os === 'linux') {
    if (parts.some((p) => p.startsWith('musl'))) entry.libc = ['musl'];
    else if (parts.some((p) => p.startsWith('gnu'))) entry.libc = ['glibc'];
  }
  return entry;
}

let added = 0;
for (const [key, pkg] of Object.entries(lock.packages)) {
  for (const [dep, version] of Object.entries(pkg.optionalDependencies ?? {})) {
    const nested = key ? `${key}/node_modules/${dep}` : `node_modules/${dep}`;
    if (lock.packages[nested] || lock.packages[`node_modules/${dep}`]) continue;
    const platform = platformOf(dep);
    if (!platform || !/^\d+\.\d+\.\d+/.test(version)) {
      console.error(`skipping ${dep}@${version}: cannot tell its platform`);
      continue;
    }
    lock.packages[`node_modules/${dep}`] = { version, ...platform, optional: true };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: ${added} platform entries added`);
