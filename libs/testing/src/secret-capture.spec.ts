import { secretsInFields, secretsInRequest, secretsInResponse } from './secret-capture';

describe('secret capture (suite-wide secrets-in-logs check)', () => {
  const pat = 'glpat-AbCdEfGhIjKlMnOpQrSt';

  it('finds tokens in headers, Basic and Bearer credentials, private_token queries and URL userinfo', () => {
    expect(secretsInRequest('http://h/api/v4/user', { headers: { 'PRIVATE-TOKEN': 'header-token-123' } })).toEqual(['header-token-123']);
    expect(secretsInRequest('http://h/api/v4/user', { headers: { Authorization: 'Bearer bearer-token-456' } })).toEqual(['bearer-token-456']);
    const basic = `Basic ${Buffer.from('root:basic-password-789').toString('base64')}`;
    expect(secretsInRequest(new URL('http://h/x.git/info/refs'), { headers: [['authorization', basic]] })).toEqual(['basic-password-789']);
    expect(secretsInRequest(`http://h/api/v4/user?private_token=${pat}`)).toEqual([pat]);
    expect(secretsInRequest('http://u:url-secret-000@h/api')).toEqual(['url-secret-000']);
    expect(secretsInRequest('http://h/api/v4/projects', { headers: { Accept: 'application/json' } })).toEqual([]);
  });

  it('finds secret fields in JSON, form and multipart bodies, and credentials inside URLs they carry', () => {
    const json = JSON.stringify({ username: 'u', password: 'json-password-1', hook: { token: 'hook-token-2' }, url: 'http://a:in-url-pass-3@h/hook', name: 'not secret' });
    expect(secretsInRequest('http://h/api/v4/users', { method: 'POST', body: json })).toEqual(['json-password-1', 'hook-token-2', 'in-url-pass-3']);
    expect(secretsInRequest('http://h/api/v4/projects', { method: 'POST', body: `name=p&private_token=${pat}` })).toEqual([pat]);
    const form = new FormData();
    form.set('password', 'multipart-password-4');
    form.set('name', 'x');
    expect(secretsInRequest('http://h/api/v4/users', { method: 'POST', body: form })).toEqual(['multipart-password-4']);
    expect(secretsInRequest('http://h/api/v4/users', { method: 'POST', body: new URLSearchParams({ new_password: 'form-password-5' }) })).toEqual(['form-password-5']);
  });

  it('finds tokens handed out in responses, and nothing in ordinary fields', () => {
    expect(secretsInResponse({ id: 1, name: 'ci', token: pat, scopes: ['api'] })).toEqual([pat]);
    expect(secretsInResponse([{ id: 1, username: 'root', web_url: 'http://h/root' }])).toEqual([]);
    expect(secretsInFields({ description: `mentions ${pat} in text` })).toEqual([pat]);
  });
});
