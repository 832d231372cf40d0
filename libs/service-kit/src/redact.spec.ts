import pino from 'pino';
import { REDACT_PATHS, redactUrl } from './redact';

describe('redactUrl', () => {
  it('replaces the value of every credential query parameter, case-insensitively', () => {
    expect(redactUrl('/api/v4/projects?private_token=glpat-abc&per_page=2')).toBe('/api/v4/projects?private_token=[REDACTED]&per_page=2');
    expect(redactUrl('/api/v4/user?per_page=2&access_token=xyz')).toBe('/api/v4/user?per_page=2&access_token=[REDACTED]');
    expect(redactUrl('/api/v4/jobs?JOB_TOKEN=t1;private_token=t2#frag')).toBe('/api/v4/jobs?JOB_TOKEN=[REDACTED];private_token=[REDACTED]#frag');
  });

  it('leaves other URLs and look-alike parameter names alone', () => {
    expect(redactUrl('/api/v4/projects/1?statistics=true')).toBe('/api/v4/projects/1?statistics=true');
    expect(redactUrl('/api/v4/x?my_private_token=keep')).toBe('/api/v4/x?my_private_token=keep');
  });
});

describe('REDACT_PATHS with pino', () => {
  it('censors credential headers and secret keys in logged objects', () => {
    const lines: string[] = [];
    const logger = pino({ redact: { paths: REDACT_PATHS, censor: '[REDACTED]' } }, { write: (s: string) => void lines.push(s) });
    logger.info({
      req: { headers: { authorization: 'Bearer SECRET-1', 'private-token': 'SECRET-2', 'job-token': 'SECRET-3', cookie: 'c=SECRET-4', sudo: 'alice' } },
      params: { private_token: 'SECRET-5', name: 'demo' },
      token: 'SECRET-6',
      err: { message: 'bad', body: 'private_token=SECRET-7' },
      runners_token: 'SECRET-8',
      project: { id: 1, runners_token: 'SECRET-9', runnersToken: 'SECRET-10' },
    });
    const out = lines.join('');
    expect(out).not.toContain('SECRET-');
    expect(out).toContain('"sudo":"alice"');
    expect(out).toContain('"name":"demo"');
  });
});
