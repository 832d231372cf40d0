import pino from 'pino';
import { REDACT_PATHS, redactUrl } from './redact';

describe('redactUrl', () => {
  it('replaces the value of every credential query parameter, case-insensitively', () => {
    expect(redactUrl('/api/v4/projects?private_token=glpat-abc&per_page=2')).toBe('/api/v4/projects?private_token=[REDACTED]&per_page=2');
    expect(redactUrl('/api/v4/user?per_page=2&access_token=xyz')).toBe('/api/v4/user?per_page=2&access_token=[REDACTED]');
    expect(redactUrl('/api/v4/jobs?JOB_TOKEN=t1;private_token=t2#frag')).toBe('/api/v4/jobs?JOB_TOKEN=[REDACTED];private_token=[REDACTED]#frag');
  });

  it('leaves other URLs and parameters alone', () => {
    expect(redactUrl('/api/v4/projects/1?statistics=true')).toBe('/api/v4/projects/1?statistics=true');
    expect(redactUrl('/api/v4/projects?search=tokenizer&order_by=id&sort=asc')).toBe('/api/v4/projects?search=tokenizer&order_by=id&sort=asc');
    expect(redactUrl('/api/v4/users?search=alice@example.com')).toBe('/api/v4/users?search=alice@example.com');
    expect(redactUrl('/api/v4/projects/group%2Fproject')).toBe('/api/v4/projects/group%2Fproject');
  });

  it('replaces the values of GitLab\'s filter_parameters by name: *token, *password*, *secret*, import_url, key, …', () => {
    expect(redactUrl('/api/v4/projects/1/hooks?url=http://h/x&token=HOOK-SECRET&push_events=true'))
      .toBe('/api/v4/projects/1/hooks?url=http://h/x&token=[REDACTED]&push_events=true');
    expect(redactUrl('/api/v4/users?username=bob&password=PW-SECRET&reset_password=false'))
      .toBe('/api/v4/users?username=bob&password=[REDACTED]&reset_password=[REDACTED]');
    expect(redactUrl('/api/v4/projects?name=p&import_url=https://github.com/a/b.git')).toBe('/api/v4/projects?name=p&import_url=[REDACTED]');
    expect(redactUrl('/x?user%5Bpassword%5D=S1&hook[token]=S2&client_secret=S3&runners_token=S4&key=S5&otp_attempt=S6'))
      .toBe('/x?user%5Bpassword%5D=[REDACTED]&hook[token]=[REDACTED]&client_secret=[REDACTED]&runners_token=[REDACTED]&key=[REDACTED]&otp_attempt=[REDACTED]');
    expect(redactUrl('/api/v4/users?%70assword=S7&PASSWORD=S8')).toBe('/api/v4/users?%70assword=[REDACTED]&PASSWORD=[REDACTED]');
  });

  it('censors URL userinfo anywhere: in the URL, in a query value plain or percent-encoded (once or twice)', () => {
    expect(redactUrl('https://user:PW-1@example.com/api/v4/projects')).toBe('https://[REDACTED]@example.com/api/v4/projects');
    expect(redactUrl('/api/v4/projects/1/hooks?url=https://u:PW-2@hooks.example/x')).toBe('/api/v4/projects/1/hooks?url=[REDACTED]');
    expect(redactUrl('/api/v4/projects/1/remote_mirrors?url=https%3A%2F%2Fu%3APW-3%40mirror.example%2Fr.git&enabled=true'))
      .toBe('/api/v4/projects/1/remote_mirrors?url=[REDACTED]&enabled=true');
    expect(redactUrl('/x?next=https%253A%252F%252Fu%253APW-4%2540h%252Fr')).toBe('/x?next=[REDACTED]');
    expect(redactUrl('/x/https:%2F%2Fu:PW-5%40h/y')).toBe('/x/https:%2F%2F[REDACTED]%40h/y');
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
