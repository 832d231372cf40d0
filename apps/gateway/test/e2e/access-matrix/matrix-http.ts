/** The HTTP side the access-matrix files share: one request as a caller, and setup requests that must succeed. */

export interface Req {
  method: string;
  path: string;
  json?: Record<string, unknown>;
  /** A multipart body: one file field `file`. */
  file?: { name: string; content: string; type: string };
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
}

/**
 * `call(as, req)`: the request as the caller whose token is `tokens[as]` (null: anonymous), answered with its status,
 * headers, text and parsed JSON (the text when it is not JSON). `must(...)`: a setup request that fails loudly unless
 * it is answered `want`. `apiUrl` is read per request (the stack starts in beforeAll).
 */
export function matrixHttp(apiUrl: () => string, tokens: Partial<Record<string, string>>) {
  const call = async (as: string | null, req: Req): Promise<Answer> => {
    const headers = new Headers();
    const token = as === null ? undefined : tokens[as];
    if (as !== null && !token) throw new Error(`no token for ${as}`);
    if (token) headers.set('PRIVATE-TOKEN', token);
    let body: string | FormData | undefined;
    if (req.json) {
      headers.set('Content-Type', 'application/json');
      body = JSON.stringify(req.json);
    } else if (req.file) {
      body = new FormData();
      body.append('file', new Blob([req.file.content], { type: req.file.type }), req.file.name);
    }
    const res = await fetch(`${apiUrl()}${req.path}`, { method: req.method, headers, body });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    return { status: res.status, headers: res.headers, text, body: parsed };
  };
  const must = async (as: string, method: string, path: string, want: number, json?: Record<string, unknown>) => {
    const a = await call(as, { method, path, json });
    if (a.status !== want) throw new Error(`setup ${method} ${path} as ${as}: expected ${want}, got ${a.status}: ${a.text}`);
    return a.body as any; // eslint-disable-line @typescript-eslint/no-explicit-any -- setup answers of many shapes
  };
  return { call, must };
}
