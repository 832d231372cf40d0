import type { RunningStack } from '../../stack';

/** The suite's signed-in non-administrator (`bench-member`) and a personal access token of theirs (scope api). */
export async function createMember(stack: RunningStack): Promise<{ id: number; token: string }> {
  const call = async (p: string, body: unknown) => {
    const res = await fetch(`${stack.apiUrl}${p}`, { method: 'POST', headers: { 'PRIVATE-TOKEN': stack.rootToken, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${p}: ${res.status} ${text.slice(0, 200)}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  const user = await call('/users', { username: 'bench-member', name: 'Bench Member', email: 'bench-member@example.com', password: 'bench-password-1' });
  const token = await call(`/users/${user.id as number}/personal_access_tokens`, { name: 'bench', scopes: ['api'] });
  return { id: user.id as number, token: token.token as string };
}
