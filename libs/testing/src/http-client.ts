import type { RunningStack } from './stack';

/** `fetch` against the stack's API as root (JSON), and the check of an answer's status that returns its parsed body. */
export function rootApi(stack: () => RunningStack) {
  const api = (p: string, init: RequestInit = {}) =>
    fetch(`${stack().apiUrl}${p}`, { ...init, headers: { 'PRIVATE-TOKEN': stack().rootToken, 'Content-Type': 'application/json', ...init.headers } });
  return { api, expectJson };
}

/** The answer's body parsed, once its status is the one expected (else an error naming both and the body). */
export async function expectJson(res: Response, status: number): Promise<any> {
  const text = await res.text();
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}
