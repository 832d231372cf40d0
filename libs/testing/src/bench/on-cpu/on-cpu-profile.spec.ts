import { nodeCategory, onCpuProfile, onCpuTable, parsePerfScript } from './on-cpu-profile';

// Four samples as `perf script -F comm,pid,tid,ip,sym` prints them: the gateway's JS thread in grpc-js (under a
// builtin), its V8 worker scavenging, a PostgreSQL backend, the idle task.
const script = [
  'MainThread 100/100',
  '\t     16d8d0 Builtins_LoadIC',
  '\t     2a0000 JS:*makeUnaryRequest /srv/app/node_modules/@grpc/grpc-js/build/src/client.js:123',
  '\t     2b0000 JS:+listProjectsPage /srv/app/apps/gateway/dist/routes/project-routes.js:124',
  '',
  'V8Worker 100/104',
  '\t     bc67cb v8::internal::Scavenger::ScavengeObject<v8::internal::FullHeapObjectSlot>',
  '\t     be5d3e v8::internal::ScavengerCollector::JobTask::Run',
  '',
  'postgres 200/200',
  '\t     5f0000 ExecScan',
  '',
  'swapper 0/0',
  '\t     ffff00 [k] pv_native_safe_halt',
  '',
].join('\n');

describe('on-CPU profile', () => {
  it('parses samples with their process, thread and frames, leaf first', () => {
    const samples = parsePerfScript(script);
    expect(samples.map((s) => [s.comm, s.pid, s.tid, s.frames.length])).toEqual([['MainThread', 100, 100, 3], ['V8Worker', 100, 104, 2], ['postgres', 200, 200, 1], ['swapper', 0, 0, 1]]);
    expect(samples[0]!.frames[1]).toBe('JS:*makeUnaryRequest /srv/app/node_modules/@grpc/grpc-js/build/src/client.js:123');
  });

  it('puts a Node sample in the category of its nearest JS frame, GC and workers apart', () => {
    const [gateway, worker] = parsePerfScript(script);
    expect(nodeCategory(gateway!.frames, true)).toBe('gRPC: grpc-js, node:http2, protobuf');
    expect(nodeCategory(worker!.frames, false)).toBe('garbage collection');
    expect(nodeCategory(['JS:*next /srv/app/node_modules/router/index.js:189'], true)).toBe('Express routing');
    expect(nodeCategory(['Builtins_StringAdd', 'JS:*paginationHeaders /srv/app/apps/gateway/dist/http/pagination.js:57'], true)).toBe('our code');
    expect(nodeCategory(['JS:*parseDataRowMessage /srv/app/node_modules/pg-protocol/dist/parser.js:227'], true)).toBe('PostgreSQL client (pg)');
    expect(nodeCategory(['JS:*writeGeneric node:internal/stream_base_commons:150'], true)).toBe('HTTP, sockets, streams, Buffer');
    expect(nodeCategory(['nghttp2_session_mem_recv2', 'uv__read'], true)).toBe('gRPC: grpc-js, node:http2, protobuf');
    expect(nodeCategory(['epoll_pwait', 'uv_run'], true)).toBe('native: libuv, kernel, other');
    expect(nodeCategory(['v8::internal::compiler::PipelineCompilationJob::ExecuteJobImpl'], false)).toBe('V8 workers, other (compiler)');
  });

  it('counts samples by process and category, and states them per request', () => {
    const profile = onCpuProfile(parsePerfScript(script), new Map([[100, 'gateway']]), new Set([100]));
    expect(profile).toEqual({
      samples: 4,
      processes: [
        { name: 'gateway', samples: 2, categories: [{ name: 'gRPC: grpc-js, node:http2, protobuf', samples: 1 }, { name: 'garbage collection', samples: 1 }] },
        { name: 'postgres', samples: 1, categories: [] },
        { name: 'idle', samples: 1, categories: [] },
      ],
    });
    // 2 samples at 1,000 Hz are 2 ms of CPU; over 4 requests, 0.5 ms each.
    const table = onCpuTable(profile, 1000, 4);
    expect(table).toContain('| **gateway** | 50.0% | 0.500 |');
    expect(table).toContain('| &nbsp;&nbsp;garbage collection | 25.0% | 0.250 |');
    expect(table).toContain('| **idle** | 25.0% | 0.250 |');
    // Processes under the threshold share one row.
    const merged = onCpuTable(profile, 1000, 4, 0.3);
    expect(merged).not.toContain('**idle**');
    expect(merged).toContain('| **2 other processes and threads, each under 30.0%** | 50.0% | 0.500 |');
  });
});
