import { ANONYMOUS, systemActor } from '@glp/service-kit';
import { gitClientKey, GitProcessSlots } from './git-http-limits';

describe('git over HTTP limits', () => {
  it('counts a signed-in user as one client wherever they come from, anonymous callers by address', () => {
    expect(gitClientKey({ kind: 'user', id: 7, username: 'alice' }, '10.0.0.1')).toBe('user:7');
    expect(gitClientKey(ANONYMOUS, '203.0.113.5')).toBe('address:203.0.113.5');
    expect(gitClientKey(ANONYMOUS, undefined)).toBe('address:unknown');
    expect(gitClientKey(systemActor('repo-admin'), undefined)).toBe('system:repo-admin');
  });

  it('admits below both limits: 429 beyond the client’s, 503 beyond the storage’s; a slot comes back once', () => {
    const slots = new GitProcessSlots({ storageConcurrency: 3, clientConcurrency: 2 });
    const a1 = slots.admit('a');
    const a2 = slots.admit('a');
    expect([a1.ok, a2.ok]).toEqual([true, true]);
    expect(slots.admit('a')).toEqual({ ok: false, status: 429 });
    const b1 = slots.admit('b');
    expect(b1.ok).toBe(true);
    expect(slots.admit('c')).toEqual({ ok: false, status: 503 });
    // Over both: the client's own limit answers.
    expect(slots.admit('a')).toEqual({ ok: false, status: 429 });
    if (a1.ok) {
      a1.release();
      a1.release();
    }
    expect(slots.running).toBe(2);
    expect(slots.admit('c').ok).toBe(true);
    expect(slots.admit('d')).toEqual({ ok: false, status: 503 });
  });
});
