// Docker HEALTHCHECK for every service of the image (Kubernetes uses the chart's probes instead).
//   gateway        GET http://127.0.0.1:$PORT/-/readiness → 200
//   gRPC services  grpc.health.v1.Health/Check (service "") on 127.0.0.1:$GRPC_PORT → SERVING
// Exit 0 healthy, 1 not. Modules come from the image's /app/node_modules.
'use strict';
const { createRequire } = require('node:module');

const appRequire = createRequire(process.env.HEALTHCHECK_APP_DIR ? `${process.env.HEALTHCHECK_APP_DIR}/package.json` : '/app/package.json');
const GRPC_PORTS = {
  identity: 50051, projects: 50052, 'access-requests': 50053, 'repo-admin': 50054,
  hooks: 50055, 'webhook-dispatcher': 50056, 'push-rules': 50057,
};
const TIMEOUT_MS = Number(process.env.HEALTHCHECK_TIMEOUT_MS || 3000);
const service = process.env.SERVICE || '';

function done(ok, detail) {
  if (!ok) console.error(`healthcheck ${service}: ${detail}`);
  process.exit(ok ? 0 : 1);
}

if (service === 'gateway') {
  const http = require('node:http');
  const req = http.get({ host: '127.0.0.1', port: Number(process.env.PORT || 8080), path: '/-/readiness', timeout: TIMEOUT_MS }, (res) => {
    res.resume();
    done(res.statusCode === 200, `GET /-/readiness answered ${res.statusCode}`);
  });
  req.on('timeout', () => req.destroy(new Error('timeout')));
  req.on('error', (err) => done(false, err.message));
} else if (GRPC_PORTS[service]) {
  const grpc = appRequire('@grpc/grpc-js');
  const { service: healthService } = appRequire('grpc-health-check');
  const port = Number(process.env.GRPC_PORT || GRPC_PORTS[service]);
  const Health = grpc.makeGenericClientConstructor(healthService, 'grpc.health.v1.Health');
  const client = new Health(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  client.check({ service: '' }, { deadline: Date.now() + TIMEOUT_MS }, (err, res) => {
    client.close();
    if (err) return done(false, err.message);
    done(res.status === 'SERVING' || res.status === 1, `status ${res.status}`);
  });
} else {
  done(false, `unknown SERVICE '${service}'`);
}
