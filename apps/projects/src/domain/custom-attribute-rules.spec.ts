import type { Actor } from '@glp/service-kit';
import { customAttributeErrors, customAttributesFilter, mayManageCustomAttributes, showsCustomAttributes } from './custom-attribute-rules';

const user: Actor = { kind: 'user', id: 7, username: 'u', admin: false, scopes: ['api'] };
const admin: Actor = { ...user, admin: true };
const anonymous: Actor = { kind: 'anonymous', id: 0, username: '', admin: false, scopes: [] };

describe('custom attribute rules', () => {
  it('are for administrators only', () => {
    expect(mayManageCustomAttributes(admin)).toBe(true);
    expect(mayManageCustomAttributes(user)).toBe(false);
    expect(mayManageCustomAttributes(anonymous)).toBe(false);
  });

  it("require a key and a value that are not blank (Rails' presence)", () => {
    expect(customAttributeErrors('color', 'blue')).toBeUndefined();
    expect(customAttributeErrors('color', ' x ')).toBeUndefined();
    expect(customAttributeErrors('color', '')).toEqual({ value: ["can't be blank"] });
    expect(customAttributeErrors('color', ' \t\n')).toEqual({ value: ["can't be blank"] });
    expect(customAttributeErrors(' ', '\u00a0')).toEqual({ key: ["can't be blank"], value: ["can't be blank"] });
  });

  it('apply the listing filter for administrators and ignore it for everyone else', () => {
    const pairs = [{ key: 'a', value: '1' }, { key: 'b', value: '2' }];
    expect(customAttributesFilter(admin, pairs)).toEqual(pairs);
    expect(customAttributesFilter(user, pairs)).toEqual([]);
    expect(customAttributesFilter(anonymous, pairs)).toEqual([]);
  });

  it('show the attributes only when asked for by an administrator', () => {
    expect(showsCustomAttributes(admin, true)).toBe(true);
    expect(showsCustomAttributes(admin, false)).toBe(false);
    expect(showsCustomAttributes(user, true)).toBe(false);
  });
});
