import { deriveNameAndPath, nameErrors, parameterize, pathErrors } from './project-path';

describe('project name and path', () => {
  it('uses a valid name as the path verbatim', () => {
    expect(deriveNameAndPath({ name: 'demo' })).toEqual({ name: 'demo', path: 'demo' });
    expect(deriveNameAndPath({ name: 'MyProj' })).toEqual({ name: 'MyProj', path: 'MyProj' });
  });

  it('parameterizes a name that is not a valid path', () => {
    expect(deriveNameAndPath({ name: 'Foo Project' })).toEqual({ name: 'Foo Project', path: 'foo-project' });
    expect(parameterize('Ünïcödé  & Friends!')).toBe('unicode-friends');
    expect(parameterize('--a  b--')).toBe('a-b');
  });

  it('uses the path as the name when only a path is given, and keeps both when both are given', () => {
    expect(deriveNameAndPath({ path: 'only-path' })).toEqual({ name: 'only-path', path: 'only-path' });
    expect(deriveNameAndPath({ name: 'Foo', path: 'path-project-Foo' })).toEqual({ name: 'Foo', path: 'path-project-Foo' });
  });

  it('validates names like GitLab', () => {
    expect(nameErrors('Project 1 + more_stuff. - ok')).toEqual([]);
    expect(nameErrors('emoji 🚀 ok')).toEqual([]);
    expect(nameErrors('-starts-with-dash')).toHaveLength(1);
    expect(nameErrors('has/slash')).toHaveLength(1);
    expect(nameErrors('')).toEqual(["can't be blank"]);
    expect(nameErrors('x'.repeat(256))).toContain('is too long (maximum is 255 characters)');
  });

  it('validates paths like GitLab', () => {
    expect(pathErrors('ok_path-1.2')).toEqual([]);
    expect(pathErrors('-bad')).toHaveLength(1);
    expect(pathErrors('bad.')).toHaveLength(1);
    expect(pathErrors('repo.git')).toHaveLength(1);
    expect(pathErrors('tree')).toEqual(['tree is a reserved name']);
  });
});
