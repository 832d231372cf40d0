import type { AddressInfo } from 'node:net';
import express from 'express';
import { DomainError, projectMoved } from '@glp/service-kit';
import { urlBuilder } from '../presenters/urls';
import { errorHandler } from './errors';
import { movedPermanentlyText, movedProjectHandler, movedProjectId, urlWithProjectId } from './moved-project';

describe('urlWithProjectId (GitLab url_with_project_id)', () => {
  it('replaces the segment of the route’s :id, keeping the rest of the path and the query string as sent', () => {
    expect(urlWithProjectId('/projects/:id', '/projects/old%2Fpath', 7)).toBe('/projects/7');
    expect(urlWithProjectId('/projects/:id/members/:user_id', '/projects/grp%2Fsub%2Fapp/members/12?x=%2F&y=1', 7))
      .toBe('/projects/7/members/12?x=%2F&y=1');
    expect(urlWithProjectId('/projects/:id/members', '/projects/a%2Fb/members/', 7)).toBe('/projects/7/members/');
  });
  it('has nothing to replace without an :id', () => {
    expect(urlWithProjectId('/users/:user_id/projects', '/users/3/projects', 7)).toBeUndefined();
  });
});

describe('movedProjectId', () => {
  it('reads the project id of a moved error, in-process or relayed over gRPC', () => {
    expect(movedProjectId(projectMoved(42))).toBe(42);
    expect(movedProjectId({ kind: 'moved', movedToId: 5 })).toBe(5);
    expect(movedProjectId(new DomainError('moved', 'Project'))).toBeUndefined();
    expect(movedProjectId(new DomainError('not_found', 'Project'))).toBeUndefined();
    expect(movedProjectId(undefined)).toBeUndefined();
  });
});

describe('movedProjectHandler on the /api/v4 router', () => {
  let base = '';
  let close: () => void = () => undefined;
  const thrown: { err: unknown } = { err: undefined };

  beforeAll(async () => {
    const app = express();
    const api = express.Router();
    const fail = (_req: express.Request, _res: express.Response, next: express.NextFunction) => next(thrown.err);
    api.get('/projects/:id', fail);
    api.put('/projects/:id', fail);
    api.get('/projects/:id/members/:user_id', fail);
    api.get('/users/:user_id/projects', fail);
    api.use(movedProjectHandler(() => urlBuilder('https://gitlab.example.com')));
    app.use('/api/v4', api);
    app.use(errorHandler({ error: () => undefined }));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => server.close();
  });
  afterAll(() => close());

  it('answers GET with 301 to the same URL with the project id, from the external URL, as plain text', async () => {
    thrown.err = projectMoved(42);
    const res = await fetch(`${base}/api/v4/projects/grp%2Fold/members/9?per_page=5&q=a%2Fb`, { redirect: 'manual' });
    const location = 'https://gitlab.example.com/api/v4/projects/42/members/9?per_page=5&q=a%2Fb';
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe(location);
    expect(res.headers.get('content-type')).toBeNull();
    expect(await res.text()).toBe(movedPermanentlyText(location));
    expect(movedPermanentlyText(location)).toBe(`This resource has been moved permanently to ${location}`);
  });

  it('answers HEAD like GET, without a body', async () => {
    thrown.err = projectMoved(42);
    const res = await fetch(`${base}/api/v4/projects/grp%2Fold`, { method: 'HEAD', redirect: 'manual' });
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe('https://gitlab.example.com/api/v4/projects/42');
    expect(await res.text()).toBe('');
  });

  it('answers other methods with GitLab’s 405', async () => {
    thrown.err = projectMoved(42);
    const res = await fetch(`${base}/api/v4/projects/grp%2Fold`, { method: 'PUT', redirect: 'manual' });
    expect(res.status).toBe(405);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.json()).toEqual({ message: 'Non GET methods are not allowed for moved projects' });
  });

  it('leaves other errors, and a moved error on a route without :id, to the generic handler', async () => {
    thrown.err = new DomainError('not_found', 'Project');
    const missing = await fetch(`${base}/api/v4/projects/grp%2Fold`, { redirect: 'manual' });
    expect([missing.status, await missing.json()]).toEqual([404, { message: '404 Project Not Found' }]);
    thrown.err = projectMoved(42);
    const elsewhere = await fetch(`${base}/api/v4/users/3/projects`, { redirect: 'manual' });
    expect([elsewhere.status, await elsewhere.json()]).toEqual([404, { message: '404 Project Not Found' }]);
  });
});
