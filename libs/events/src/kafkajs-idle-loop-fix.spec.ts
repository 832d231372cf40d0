import { fixKafkajsIdleLoop, kafkajsRequestQueue, KAFKAJS_LOOP_VERSION } from './kafkajs-idle-loop-fix';

interface Queue {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  scheduleCheckPendingRequests(): void;
  checkPendingRequests(): void;
  destroy(): void;
}

const { version, RequestQueue } = kafkajsRequestQueue();
const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
const newQueue = () => new (RequestQueue as unknown as new (o: object) => Queue)({
  maxInFlightRequests: null, requestTimeout: 1000, enforceRequestTimeout: false, clientId: 'spec', broker: 'b:9092', logger: silent,
});

describe('kafkajs idle loop fix', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('is installed for the kafkajs the lock file pins (a kafkajs upgrade fails here: check whether it still loops)', () => {
    expect(version).toBe(KAFKAJS_LOOP_VERSION);
    expect(fixKafkajsIdleLoop()).toBe(true);
  });

  it('arms no timer on an idle queue, so an answered request does not start a 1 ms loop', () => {
    const q = newQueue();
    const check = jest.spyOn(q, 'checkPendingRequests');
    q.checkPendingRequests(); // what every response runs (fulfillRequest)
    expect(q.throttleCheckTimeoutId).toBeNull();
    jest.advanceTimersByTime(1000);
    expect(check).toHaveBeenCalledTimes(1);
    q.destroy();
  });

  it('still checks a queue that has requests waiting, every 10 ms, and stops once it is empty', () => {
    const q = newQueue();
    q.pending.push({});
    const check = jest.spyOn(q, 'checkPendingRequests').mockImplementation(function (this: Queue) {
      // As kafkajs does once the request may go: send it, then schedule again.
      this.pending.shift();
      this.scheduleCheckPendingRequests();
    });
    q.scheduleCheckPendingRequests();
    expect(q.throttleCheckTimeoutId).not.toBeNull();
    jest.advanceTimersByTime(9);
    expect(check).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(check).toHaveBeenCalledTimes(1);
    jest.advanceTimersByTime(1000);
    expect(check).toHaveBeenCalledTimes(1);
    expect(q.throttleCheckTimeoutId).toBeNull();
    q.destroy();
  });

  it('waits out a broker throttle before checking, pending or not', () => {
    const q = newQueue();
    const check = jest.spyOn(q, 'checkPendingRequests').mockImplementation(() => undefined);
    q.throttledUntil = Date.now() + 250;
    q.scheduleCheckPendingRequests();
    jest.advanceTimersByTime(249);
    expect(check).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(check).toHaveBeenCalledTimes(1);
    q.destroy();
  });
});
