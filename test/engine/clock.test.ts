import { describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../src/engine/clock';

const tick = () => new Promise<void>((r) => setTimeout(r, 0));

describe('SimulatedClock', () => {
  it('starts at 0 and moves only when advanced', () => {
    const clock = new SimulatedClock();
    expect(clock.now()).toBe(0);
    clock.advance(250);
    clock.advance(50);
    expect(clock.now()).toBe(300);
  });

  it('wakes a sleeper once its time has come, and not before', async () => {
    const clock = new SimulatedClock();
    const woke: string[] = [];
    void clock.sleep(100).then(() => woke.push('a'));
    void clock.sleep(300).then(() => woke.push('b'));
    clock.advance(99);
    await tick();
    expect(woke).toEqual([]);
    clock.advance(1);
    await tick();
    expect(woke).toEqual(['a']);
    clock.advance(1000);
    await tick();
    expect(woke).toEqual(['a', 'b']);
  });

  it('measures a sleep from when it started', async () => {
    const clock = new SimulatedClock();
    clock.advance(1000);
    let done = false;
    void clock.sleep(10).then(() => (done = true));
    clock.advance(9);
    await tick();
    expect(done).toBe(false);
    clock.advance(1);
    await tick();
    expect(done).toBe(true);
  });

  it('rejects with the signal’s reason when aborted, before or during the sleep', async () => {
    const clock = new SimulatedClock();
    const before = new AbortController();
    before.abort(new Error('already'));
    await expect(clock.sleep(10, before.signal)).rejects.toThrow('already');
    const during = new AbortController();
    const p = clock.sleep(10, during.signal);
    during.abort(new Error('stop'));
    await expect(p).rejects.toThrow('stop');
    // A later advance does not resurrect it.
    clock.advance(100);
  });
});
