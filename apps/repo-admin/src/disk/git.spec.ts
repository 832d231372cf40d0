import { runGit } from './git';

describe('runGit', () => {
  it('runs every git command with fsync of objects, refs and their metadata (core.fsync)', async () => {
    const out = await runGit('git', ['config', '--get-all', 'core.fsync'], { timeoutMs: 10_000 });
    expect(out.toString().trim()).toBe('committed,derived-metadata');
    const method = await runGit('git', ['config', '--get', 'core.fsyncmethod'], { timeoutMs: 10_000 });
    expect(method.toString().trim()).toBe('fsync');
  });

  it('keeps the durability settings when a caller adds its own configuration through the environment', async () => {
    const env = { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'http.lowSpeedLimit', GIT_CONFIG_VALUE_0: '1' };
    const out = await runGit('git', ['config', '--get', 'core.fsync'], { timeoutMs: 10_000, env });
    expect(out.toString().trim()).toBe('committed,derived-metadata');
  });
});
