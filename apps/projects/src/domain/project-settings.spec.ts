import {
  containerPolicyNextRunAt, containerPolicyNextRunsAt, effectiveSettings, settingsErrors, touchesContainerPolicy, withContainerPolicySchedule,
} from './project-settings';

describe('container expiration policy and the other kept 4.4 settings', () => {
  it("defaults to GitLab's policy of a new project and enabled model feature levels", () => {
    expect(effectiveSettings({}, 'private')).toMatchObject({
      containerExpirationPolicyCadence: '1d', containerExpirationPolicyEnabled: false, containerExpirationPolicyKeepN: 10,
      containerExpirationPolicyOlderThan: '90d', containerExpirationPolicyNameRegex: '.*', containerExpirationPolicyNameRegexKeep: '',
      modelExperimentsAccessLevel: 'enabled', modelRegistryAccessLevel: 'enabled', showDefaultAwardEmojis: true,
    });
  });

  it('validates the policy like ContainerExpirationPolicy (keys as Rails names the nested errors)', () => {
    expect(settingsErrors({ containerExpirationPolicyCadence: '7d', containerExpirationPolicyOlderThan: '14d', containerExpirationPolicyKeepN: 25 })).toEqual({});
    expect(settingsErrors({ containerExpirationPolicyCadence: '2d', containerExpirationPolicyOlderThan: '1y', containerExpirationPolicyKeepN: 7 })).toEqual({
      'container_expiration_policy.cadence': ['is not included in the list'],
      'container_expiration_policy.older_than': ['is not included in the list'],
      'container_expiration_policy.keep_n': ['is not included in the list'],
    });
    expect(settingsErrors({ containerExpirationPolicyCadence: '' })).toEqual({ 'container_expiration_policy.cadence': ["can't be blank", 'is not included in the list'] });
    // null (empty / 0) older_than and keep_n are allowed; -1 stands for a value that fits no option
    expect(settingsErrors({ containerExpirationPolicyOlderThan: '', containerExpirationPolicyKeepN: 0 })).toEqual({});
    expect(settingsErrors({ containerExpirationPolicyKeepN: -1 })).toEqual({ 'container_expiration_policy.keep_n': ['is not included in the list'] });
  });

  it('checks the regexes only when the policy is enabled', () => {
    expect(settingsErrors({ containerExpirationPolicyNameRegex: '(' })).toEqual({});
    expect(settingsErrors({ containerExpirationPolicyEnabled: true, containerExpirationPolicyNameRegex: '' }))
      .toEqual({ 'container_expiration_policy.name_regex': ["can't be blank"] });
    const bad = settingsErrors({ containerExpirationPolicyEnabled: true, containerExpirationPolicyNameRegex: '(', containerExpirationPolicyNameRegexKeep: '[' });
    expect(bad['container_expiration_policy.name_regex']).toEqual([expect.stringMatching(/^not valid RE2 syntax: /)]);
    expect(bad['container_expiration_policy.name_regex_keep']).toEqual([expect.stringMatching(/^not valid RE2 syntax: /)]);
    expect(settingsErrors({ containerExpirationPolicyEnabled: true })).toEqual({}); // name_regex not sent: its default '.*'
  });

  it('checks the regexes as RE2 (what runs them), not JavaScript: backreferences and lookarounds are refused', () => {
    expect(settingsErrors({ containerExpirationPolicyEnabled: true, containerExpirationPolicyNameRegex: '(a)\\1', containerExpirationPolicyNameRegexKeep: 'x(?!y)' })).toEqual({
      'container_expiration_policy.name_regex': ['not valid RE2 syntax: invalid escape sequence: \\1'],
      'container_expiration_policy.name_regex_keep': ['not valid RE2 syntax: invalid perl operator: (?!'],
    });
  });

  it('schedules the next run one cadence after a save (months of 30 days), or after creation when never saved', () => {
    const at = new Date('2030-01-31T10:00:00.000Z');
    expect(containerPolicyNextRunAt('1d', at)).toBe('2030-02-01T10:00:00.000Z');
    expect(containerPolicyNextRunAt('14d', at)).toBe('2030-02-14T10:00:00.000Z');
    expect(containerPolicyNextRunAt('1month', at)).toBe('2030-03-02T10:00:00.000Z');
    expect(containerPolicyNextRunsAt(at)['3month']).toBe('2030-05-01T10:00:00.000Z');
    expect(withContainerPolicySchedule(effectiveSettings({ containerExpirationPolicyCadence: '7d' }, 'public'), at).containerExpirationPolicyNextRunAt)
      .toBe('2030-02-07T10:00:00.000Z');
    const saved = effectiveSettings({ containerExpirationPolicyNextRunAt: '2031-01-01T00:00:00.000Z' }, 'public');
    expect(withContainerPolicySchedule(saved, at).containerExpirationPolicyNextRunAt).toBe('2031-01-01T00:00:00.000Z');
  });

  it('tells whether settings touch the policy (its next run alone does not)', () => {
    expect(touchesContainerPolicy({ containerExpirationPolicyKeepN: 5 })).toBe(true);
    expect(touchesContainerPolicy({ containerExpirationPolicyEnabled: false })).toBe(true);
    expect(touchesContainerPolicy({ containerExpirationPolicyNextRunAt: 'x', mergeMethod: 'ff' })).toBe(false);
  });
});
