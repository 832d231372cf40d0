// kafkajs 2.2.4's RequestQueue re-armed a 1 ms timer forever after every response (kafkajs-idle-loop-fix.ts): an idle
// producer and consumer connected to the real broker here called checkPendingRequests about a thousand times a second.
// With the fix, an idle client's queues are only checked when a response arrives (the consumer's long-poll fetches,
// the heartbeats).
import { kafkajsRequestQueue } from '../../src/kafkajs-idle-loop-fix';
import { ensureTopics } from '../../src';
import { setUpHarness, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await setUpHarness('idle_timers');
});
afterAll(async () => {
  await h.close();
});

it('an idle connected producer and consumer do not spin on timers', async () => {
  await ensureTopics(h.kafka, [h.topic]);
  const producer = h.kafka.producer();
  const consumer = h.kafka.consumer({ groupId: h.name('idle'), maxWaitTimeInMs: 500 });
  await producer.connect();
  await producer.send({ topic: h.topic, messages: [{ value: 'one' }] });
  await consumer.connect();
  await consumer.subscribe({ topics: [h.topic], fromBeginning: true });
  let received = 0;
  await consumer.run({ eachMessage: async () => { received += 1; } });
  try {
    const deadline = Date.now() + 30_000;
    while (received < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(received).toBe(1);
    const proto = kafkajsRequestQueue().RequestQueue.prototype;
    const original = proto.checkPendingRequests;
    let checks = 0;
    proto.checkPendingRequests = function (this: typeof proto) {
      checks += 1;
      return original.call(this);
    };
    try {
      await new Promise((r) => setTimeout(r, 2000));
    } finally {
      proto.checkPendingRequests = original;
    }
    // Fetch long-polls of 500 ms on a few connections and heartbeats: a few dozen at most. The loop made ~2,000 per
    // connection in these 2 s.
    expect(checks).toBeLessThan(100);
  } finally {
    await consumer.disconnect();
    await producer.disconnect();
  }
});
