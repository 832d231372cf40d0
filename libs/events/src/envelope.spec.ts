import { eventsV1, projectEventsV1 } from '@glp/proto';
import {
  buildEnvelope,
  decodeEnvelope,
  encodeEnvelope,
  EventTypes,
  knownPayloadType,
  payloadType,
  typeNameFromUrl,
  unpackPayload,
} from './envelope';
import { outboxChannel } from './outbox';

const project = projectEventsV1.ProjectCreated.fromPartial({
  projectId: 42,
  name: 'Hello',
  path: 'hello',
  pathWithNamespace: 'alice/hello',
  namespaceId: 7,
  creatorId: 3,
  visibility: 'private',
  createdAt: new Date('2024-05-01T10:00:00.000Z'),
});

describe('event envelope', () => {
  it('round-trips through protobuf bytes', () => {
    const occurredAt = new Date('2024-05-01T10:00:01.250Z');
    const env = buildEnvelope({
      aggregateType: 'project',
      aggregateKey: 'project:42',
      payloadType: EventTypes.ProjectCreated,
      payload: project,
      actor: { id: 3, username: 'alice' },
      occurredAt,
    });
    expect(env.eventId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(env.eventType).toBe('gitlab.events.v1.ProjectCreated');
    expect(env.payload?.typeUrl).toBe('type.googleapis.com/gitlab.events.v1.ProjectCreated');

    const decoded = decodeEnvelope(encodeEnvelope(env));
    expect(decoded).toEqual(env);
    expect(decoded.occurredAt).toEqual(occurredAt);
    expect(decoded.actor).toEqual({ userId: 3, username: 'alice' });
    expect(unpackPayload(decoded, EventTypes.ProjectCreated)).toEqual(project);
  });

  it('gives every event a fresh id', () => {
    const input = { aggregateType: 'project', aggregateKey: 'project:1', payloadType: EventTypes.ProjectCreated, payload: project };
    expect(buildEnvelope(input).eventId).not.toBe(buildEnvelope(input).eventId);
  });

  it('refuses to unpack a payload of another type', () => {
    const env = buildEnvelope({
      aggregateType: 'user',
      aggregateKey: 'user:1',
      payloadType: EventTypes.UserCreated,
      payload: { user: { id: 1, username: 'u', name: 'U', state: 'active', avatarUrl: '', isAdmin: false } },
    });
    expect(() => unpackPayload(env, EventTypes.ProjectCreated)).toThrow(/UserCreated, not gitlab.events.v1.ProjectCreated/);
    expect(unpackPayload(env, EventTypes.UserCreated).user?.username).toBe('u');
  });

  it('rejects bytes without an event id or type', () => {
    const noId = Buffer.from(eventsV1.EventEnvelope.encode(eventsV1.EventEnvelope.fromPartial({ eventType: 'x.y.Z' })).finish());
    expect(() => decodeEnvelope(noId)).toThrow(/event_id/);
    const noType = Buffer.from(
      eventsV1.EventEnvelope.encode(eventsV1.EventEnvelope.fromPartial({ eventId: '7d444840-9dc0-11d1-b245-5ffdce74fad2' })).finish(),
    );
    expect(() => decodeEnvelope(noType)).toThrow(/event_type/);
  });

  it('knows the platform payload types and validates custom ones', () => {
    expect(knownPayloadType('type.googleapis.com/gitlab.events.v1.NamespaceChanged')).toBe(EventTypes.NamespaceChanged);
    expect(knownPayloadType('gitlab.events.v1.UserCreated')).toBe(EventTypes.UserCreated);
    expect(knownPayloadType('gitlab.events.v1.Nope')).toBeUndefined();
    expect(typeNameFromUrl('a/b/c.D')).toBe('c.D');
    expect(() => payloadType('NoPackage', projectEventsV1.ProjectCreated)).toThrow(/invalid protobuf type name/);
  });

  it('names the outbox channel after the schema', () => {
    expect(outboxChannel('projects')).toBe('projects_outbox');
    expect(() => outboxChannel('Bad-Name')).toThrow(/invalid SQL identifier/);
  });
});
