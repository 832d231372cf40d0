import fs from 'node:fs';
import net from 'node:net';

/** True when a Docker engine answers `GET /_ping` with 200 (never trust `which docker`). */
export function dockerReachable(timeoutMs = 1000): Promise<boolean> {
  const host = process.env.DOCKER_HOST || 'unix:///var/run/docker.sock';
  let opts: net.NetConnectOpts;
  if (host.startsWith('unix://')) {
    const path = host.slice('unix://'.length);
    if (!fs.existsSync(path)) return Promise.resolve(false);
    opts = { path };
  } else if (host.startsWith('tcp://')) {
    const u = new URL(`http://${host.slice('tcp://'.length)}`);
    opts = { host: u.hostname, port: Number(u.port || 2375) };
  } else {
    return Promise.resolve(false);
  }
  return new Promise((resolve) => {
    const socket = net.connect(opts);
    const done = (v: boolean) => {
      socket.destroy();
      resolve(v);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('GET /_ping HTTP/1.0\r\nHost: docker\r\n\r\n'));
    socket.on('data', (b) => done(/^HTTP\/1\.[01] 200/.test(b.toString('latin1'))));
  });
}
