import type { ServiceDefinition } from '@grpc/grpc-js';

/** The serialized bytes each received request message was decoded from (what the caller's actor signature covers). */
const received = new WeakMap<object, Uint8Array>();

/**
 * The definition with each request message's deserializer keeping the bytes it decoded, so the server checks the actor
 * signature over the very bytes the client signed (never a re-encoding, which could differ: unknown fields of a newer
 * client are dropped when decoding). A client stream's signature covers its first message.
 */
export function keepingRequestBytes(definition: ServiceDefinition): ServiceDefinition {
  const out: Record<string, ServiceDefinition[string]> = {};
  for (const [name, method] of Object.entries(definition)) {
    const decode = method.requestDeserialize;
    out[name] = {
      ...method,
      requestDeserialize: (bytes: Buffer) => {
        const message = decode(bytes);
        if (typeof message === 'object' && message !== null) received.set(message, bytes);
        return message;
      },
    };
  }
  return out as ServiceDefinition;
}

/** The bytes a request message was decoded from, when it came through a definition of keepingRequestBytes. */
export function requestBytesOf(message: unknown): Uint8Array | undefined {
  return typeof message === 'object' && message !== null ? received.get(message) : undefined;
}
