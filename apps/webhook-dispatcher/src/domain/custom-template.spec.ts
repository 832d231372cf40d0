import { CustomTemplateError, renderCustomTemplate } from './custom-template';

const payload = { object_kind: 'push', ref: 'refs/heads/main', total_commits_count: 2, project: { name: 'say "hi"', id: 7 }, commits: [{ id: 'a' }] };

describe('custom webhook template', () => {
  it('fills placeholders with JSON values, strings escaped inside quotes', () => {
    expect(renderCustomTemplate('{"kind":"{{object_kind}}","n":{{total_commits_count}},"p":"{{project.name}}","project":{{project}}}', payload)).toEqual({
      kind: 'push', n: 2, p: 'say "hi"', project: { name: 'say "hi"', id: 7 },
    });
  });

  it('renders a missing field as null', () => {
    expect(renderCustomTemplate('{"x":{{nope.deeper}}}', payload)).toEqual({ x: null });
  });

  it('fails with GitLab message when the result is not JSON, or an array is dug into', () => {
    expect(() => renderCustomTemplate('{"x": {{object_kind}}}', payload)).toThrow(CustomTemplateError);
    expect(() => renderCustomTemplate('not json', payload)).toThrow(/^Error while parsing rendered custom webhook template: /);
    expect(() => renderCustomTemplate('{"x":"{{commits.0.id}}"}', payload)).toThrow(
      'Error while parsing rendered custom webhook template: You may be trying to access an array value, which is not supported.',
    );
  });
});
