import { CoalescingWriter } from './coalescing-writer';

describe('CoalescingWriter', () => {
  const setup = () => {
    const messages: number[][] = [];
    const pending: (() => void)[] = [];
    let idle = 0;
    const writer = new CoalescingWriter<number, number[]>((m, done) => {
      messages.push(m);
      pending.push(done);
    }, (items) => items, () => idle++);
    return { writer, messages, finishWrite: () => pending.shift()!(), idleCalls: () => idle };
  };

  it('writes an item at once when the stream is free', () => {
    const { writer, messages } = setup();
    writer.push(1);
    expect(messages).toEqual([[1]]);
    expect(writer.idle).toBe(false);
  });

  it('gathers the items that come while a message is being written into the next one, in order', () => {
    const { writer, messages, finishWrite, idleCalls } = setup();
    writer.push(1);
    writer.push(2);
    writer.push(3);
    expect(messages).toEqual([[1]]);
    finishWrite();
    expect(messages).toEqual([[1], [2, 3]]);
    writer.push(4);
    expect(messages).toEqual([[1], [2, 3]]);
    finishWrite();
    expect(messages).toEqual([[1], [2, 3], [4]]);
    expect(idleCalls()).toBe(0);
    finishWrite();
    expect(writer.idle).toBe(true);
    expect(idleCalls()).toBe(1);
    writer.push(5);
    expect(messages).toEqual([[1], [2, 3], [4], [5]]);
  });
});
