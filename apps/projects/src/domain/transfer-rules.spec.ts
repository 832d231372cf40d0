import { transferFailure, visibilityAfterTransfer } from './transfer-rules';

describe('transfer rules', () => {
  it("words failures as GitLab's transfer service does", () => {
    expect(transferFailure('Project is already in this namespace.')).toBe('Failed to transfer project {:new_namespace=>["Project is already in this namespace."]}');
  });

  it('lowers the visibility to the target group, never raises it', () => {
    expect(visibilityAfterTransfer('public', 'internal')).toBe('internal');
    expect(visibilityAfterTransfer('private', 'public')).toBe('private');
    expect(visibilityAfterTransfer('public')).toBe('public');
  });
});
