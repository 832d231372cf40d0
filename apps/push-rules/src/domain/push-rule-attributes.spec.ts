import { applyChanges, DEFAULT_SETTINGS, isEmptyChange, validateSettings } from './push-rule-attributes';
import { re2Message, re2SyntaxError } from '@glp/untrusted-regexp';

describe('push rule validation (PushRuleable, UntrustedRegexpValidator)', () => {
  it('accepts the defaults and valid RE2 patterns', () => {
    expect(validateSettings(DEFAULT_SETTINGS)).toEqual({});
    expect(validateSettings(applyChanges(DEFAULT_SETTINGS, { commit_message_regex: '^(fix|feat): ', branch_name_regex: '(feature|hotfix)\\/.*', max_file_size: 20 }))).toEqual({});
  });

  it('refuses patterns that are not RE2 with RE2\'s own message', () => {
    expect(validateSettings(applyChanges(DEFAULT_SETTINGS, { file_name_regex: '(' }))).toEqual({ file_name_regex: ['not valid RE2 syntax: missing ): ('] });
    // Perl look-around is not RE2
    expect(validateSettings(applyChanges(DEFAULT_SETTINGS, { commit_message_regex: '(?=x)' }))).toEqual({
      commit_message_regex: ['not valid RE2 syntax: invalid perl operator: (?='],
    });
    expect(re2SyntaxError('a**')).toBe('bad repetition operator: **');
    expect(re2SyntaxError('\\')).toBe('trailing \\');
    expect(re2Message('error parsing regexp: missing closing ]: `[a`')).toBe('missing ]: [a');
  });

  it('limits lengths (511, negative regex 2047) and max_file_size to 0..int4 max, keys in GitLab\'s order', () => {
    const errors = validateSettings(applyChanges(DEFAULT_SETTINGS, {
      branch_name_regex: 'a'.repeat(512), commit_message_negative_regex: 'b'.repeat(2047), commit_message_regex: 'c'.repeat(511),
      author_email_regex: '(', max_file_size: -1,
    }));
    expect(errors).toEqual({
      max_file_size: ['must be greater than or equal to 0'],
      author_email_regex: ['not valid RE2 syntax: missing ): ('],
      branch_name_regex: ['is too long (maximum is 511 characters)'],
    });
    expect(Object.keys(errors)).toEqual(['max_file_size', 'author_email_regex', 'branch_name_regex']);
    expect(validateSettings(applyChanges(DEFAULT_SETTINGS, { commit_message_negative_regex: 'b'.repeat(2048) }))).toEqual({
      commit_message_negative_regex: ['is too long (maximum is 2047 characters)'],
    });
    expect(validateSettings({ ...DEFAULT_SETTINGS, max_file_size: 2147483648 })).toEqual({ max_file_size: ['must be less than or equal to 2147483647'] });
  });

  it('applies only what was sent', () => {
    const current = applyChanges(DEFAULT_SETTINGS, { deny_delete_tag: true, commit_message_regex: 'x' });
    expect(applyChanges(current, { member_check: true })).toMatchObject({ deny_delete_tag: true, commit_message_regex: 'x', member_check: true });
    expect(applyChanges(current, { commit_message_regex: '' }).commit_message_regex).toBe('');
    expect(isEmptyChange({ deny_delete_tag: undefined })).toBe(true);
    expect(isEmptyChange({ deny_delete_tag: false })).toBe(false);
  });
});
