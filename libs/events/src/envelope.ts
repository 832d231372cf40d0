import { randomUUID } from 'node:crypto';
import { accessRequestEventsV1, Any, eventsV1, hookEventsV1, identityEventsV1, projectEventsV1, repositoryEventsV1 } from '@glp/proto';

export type EventEnvelope = eventsV1.EventEnvelope;

export const TYPE_URL_PREFIX = 'type.googleapis.com/';

/** The protobuf functions of a generated ts-proto message that events need. */
export interface MessageCodec<T> {
  encode(message: T): { finish(): Uint8Array };
  decode(input: Uint8Array): T;
}

/** A payload message type: its fully-qualified name (the envelope's event_type), type URL and codec. */
export interface PayloadType<T> extends MessageCodec<T> {
  /** e.g. "gitlab.events.v1.ProjectCreated" */
  readonly typeName: string;
  /** e.g. "type.googleapis.com/gitlab.events.v1.ProjectCreated" */
  readonly typeUrl: string;
}

/** Describes a generated message as an event payload type: payloadType('gitlab.events.v1.ProjectCreated', projectEventsV1.ProjectCreated). */
export function payloadType<T>(typeName: string, codec: MessageCodec<T>): PayloadType<T> {
  if (!/^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)+$/.test(typeName)) throw new Error(`invalid protobuf type name: ${typeName}`);
  return Object.freeze({
    typeName,
    typeUrl: `${TYPE_URL_PREFIX}${typeName}`,
    encode: (m: T) => codec.encode(m),
    decode: (b: Uint8Array) => codec.decode(b),
  });
}

/** The domain events of this platform (proto/gitlab/events/v1). */
export const EventTypes = Object.freeze({
  ProjectCreated: payloadType(`${projectEventsV1.protobufPackage}.ProjectCreated`, projectEventsV1.ProjectCreated),
  ProjectMembershipChanged: payloadType(`${projectEventsV1.protobufPackage}.ProjectMembershipChanged`, projectEventsV1.ProjectMembershipChanged),
  ProjectUpdated: payloadType(`${projectEventsV1.protobufPackage}.ProjectUpdated`, projectEventsV1.ProjectUpdated),
  ProjectStarred: payloadType(`${projectEventsV1.protobufPackage}.ProjectStarred`, projectEventsV1.ProjectStarred),
  ProjectDeleted: payloadType(`${projectEventsV1.protobufPackage}.ProjectDeleted`, projectEventsV1.ProjectDeleted),
  ProjectShared: payloadType(`${projectEventsV1.protobufPackage}.ProjectShared`, projectEventsV1.ProjectShared),
  ProjectUnshared: payloadType(`${projectEventsV1.protobufPackage}.ProjectUnshared`, projectEventsV1.ProjectUnshared),
  ProjectForked: payloadType(`${projectEventsV1.protobufPackage}.ProjectForked`, projectEventsV1.ProjectForked),
  ProjectForkRemoved: payloadType(`${projectEventsV1.protobufPackage}.ProjectForkRemoved`, projectEventsV1.ProjectForkRemoved),
  RepositoryImportStateChanged: payloadType(`${repositoryEventsV1.protobufPackage}.RepositoryImportStateChanged`, repositoryEventsV1.RepositoryImportStateChanged),
  Push: payloadType(`${repositoryEventsV1.protobufPackage}.Push`, repositoryEventsV1.Push),
  TagPush: payloadType(`${repositoryEventsV1.protobufPackage}.TagPush`, repositoryEventsV1.TagPush),
  RepositoryChanged: payloadType(`${repositoryEventsV1.protobufPackage}.RepositoryChanged`, repositoryEventsV1.RepositoryChanged),
  RepositoryStatisticsChanged: payloadType(`${repositoryEventsV1.protobufPackage}.RepositoryStatisticsChanged`, repositoryEventsV1.RepositoryStatisticsChanged),
  UserCreated: payloadType(`${identityEventsV1.protobufPackage}.UserCreated`, identityEventsV1.UserCreated),
  UserChanged: payloadType(`${identityEventsV1.protobufPackage}.UserChanged`, identityEventsV1.UserChanged),
  UserDeleted: payloadType(`${identityEventsV1.protobufPackage}.UserDeleted`, identityEventsV1.UserDeleted),
  NamespaceChanged: payloadType(`${identityEventsV1.protobufPackage}.NamespaceChanged`, identityEventsV1.NamespaceChanged),
  NamespaceDeleted: payloadType(`${identityEventsV1.protobufPackage}.NamespaceDeleted`, identityEventsV1.NamespaceDeleted),
  GroupMembershipChanged: payloadType(`${identityEventsV1.protobufPackage}.GroupMembershipChanged`, identityEventsV1.GroupMembershipChanged),
  ApplicationSettingsChanged: payloadType(`${identityEventsV1.protobufPackage}.ApplicationSettingsChanged`, identityEventsV1.ApplicationSettingsChanged),
  HookUpdated: payloadType(`${hookEventsV1.protobufPackage}.HookUpdated`, hookEventsV1.HookUpdated),
  HookDeleted: payloadType(`${hookEventsV1.protobufPackage}.HookDeleted`, hookEventsV1.HookDeleted),
  HookHealthChanged: payloadType(`${hookEventsV1.protobufPackage}.HookHealthChanged`, hookEventsV1.HookHealthChanged),
  AccessRequested: payloadType(`${accessRequestEventsV1.protobufPackage}.AccessRequested`, accessRequestEventsV1.AccessRequested),
  AccessRequestApproved: payloadType(`${accessRequestEventsV1.protobufPackage}.AccessRequestApproved`, accessRequestEventsV1.AccessRequestApproved),
  AccessRequestDenied: payloadType(`${accessRequestEventsV1.protobufPackage}.AccessRequestDenied`, accessRequestEventsV1.AccessRequestDenied),
});

const knownTypes = new Map<string, PayloadType<unknown>>(
  Object.values(EventTypes).map((t) => [t.typeName, t as PayloadType<unknown>]),
);

/** The registered payload type for a type name or type URL (undefined when unknown). */
export function knownPayloadType(typeNameOrUrl: string): PayloadType<unknown> | undefined {
  return knownTypes.get(typeNameFromUrl(typeNameOrUrl));
}

/** "type.googleapis.com/a.b.C" → "a.b.C" (everything after the last '/'). */
export function typeNameFromUrl(typeUrl: string): string {
  return typeUrl.slice(typeUrl.lastIndexOf('/') + 1);
}

/** Who caused the event; a service-kit Actor fits (id 0 = the system). */
export interface EventActorInput {
  id: number;
  username: string;
}

export interface BuildEnvelopeInput<T> {
  aggregateType: string;
  aggregateKey: string;
  payloadType: PayloadType<T>;
  payload: T;
  /** Defaults to payloadType.typeName. */
  eventType?: string;
  actor?: EventActorInput;
  /** Defaults to a fresh UUID v4. */
  eventId?: string;
  /** Defaults to now. */
  occurredAt?: Date;
}

export function buildEnvelope<T>(input: BuildEnvelopeInput<T>): EventEnvelope {
  if (!input.aggregateKey) throw new Error('aggregateKey is required');
  return eventsV1.EventEnvelope.fromPartial({
    eventId: input.eventId ?? randomUUID(),
    eventType: input.eventType ?? input.payloadType.typeName,
    occurredAt: input.occurredAt ?? new Date(),
    aggregateType: input.aggregateType,
    aggregateKey: input.aggregateKey,
    actor: input.actor ? { userId: input.actor.id, username: input.actor.username } : undefined,
    payload: Any.fromPartial({
      typeUrl: input.payloadType.typeUrl,
      value: Buffer.from(input.payloadType.encode(input.payload).finish()),
    }),
  });
}

export function encodeEnvelope(envelope: EventEnvelope): Buffer {
  return Buffer.from(eventsV1.EventEnvelope.encode(envelope).finish());
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Decodes a Kafka message value; throws on bytes that are not an envelope with a UUID event id and a type. */
export function decodeEnvelope(bytes: Uint8Array): EventEnvelope {
  const envelope = eventsV1.EventEnvelope.decode(bytes);
  if (!UUID_RE.test(envelope.eventId)) throw new Error(`envelope has no valid event_id (got ${JSON.stringify(envelope.eventId)})`);
  if (!envelope.eventType) throw new Error('envelope has no event_type');
  return envelope;
}

/** Decodes the envelope's payload as `type`; throws when the payload is missing or of another type. */
export function unpackPayload<T>(envelope: EventEnvelope, type: PayloadType<T>): T {
  const any = envelope.payload;
  if (!any) throw new Error(`event ${envelope.eventId} has no payload`);
  const name = typeNameFromUrl(any.typeUrl);
  if (name !== type.typeName) throw new Error(`event ${envelope.eventId}: payload is ${name}, not ${type.typeName}`);
  return type.decode(any.value);
}
