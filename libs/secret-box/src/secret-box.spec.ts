import { SecretBox } from './secret-box';

describe('SecretBox', () => {
  it('round-trips, never stores the plain text, and refuses a wrong key or a tampered box', () => {
    const box = new SecretBox('k1');
    const sealed = box.seal('https://oauth2:s3cret@example.com/x.git');
    expect(sealed.toString('latin1')).not.toContain('s3cret');
    expect(box.open(sealed)).toBe('https://oauth2:s3cret@example.com/x.git');
    expect(box.seal('a').equals(box.seal('a'))).toBe(false); // a fresh nonce each time
    expect(() => new SecretBox('k2').open(sealed)).toThrow();
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1] ^= 1;
    expect(() => box.open(tampered)).toThrow();
  });
});
