import { alertStatusNow } from './alert-status';

describe('alertStatusNow', () => {
  const now = new Date('2026-11-24T10:00:00Z');
  it('shows a back-off only while it lasts', () => {
    expect(alertStatusNow('temporarily_disabled', new Date('2026-11-24T10:01:00Z'), now)).toBe('temporarily_disabled');
    expect(alertStatusNow('temporarily_disabled', new Date('2026-11-24T09:59:00Z'), now)).toBe('executable');
    expect(alertStatusNow('temporarily_disabled', null, now)).toBe('executable');
  });
  it('keeps a permanent disable and an executable hook as they are', () => {
    expect(alertStatusNow('disabled', null, now)).toBe('disabled');
    expect(alertStatusNow('executable', null, now)).toBe('executable');
  });
});
