import { afterEach, describe, expect, test, vi } from 'vitest';
import { randomId } from '../../src/engine/id';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('randomId', () => {
  afterEach(() => vi.unstubAllGlobals());

  test('is crypto.randomUUID where the context has it', () => {
    const spy = vi.spyOn(crypto, 'randomUUID');
    expect(randomId()).toMatch(V4);
    expect(spy).toHaveBeenCalledOnce();
    spy.mockRestore();
  });

  test('without crypto.randomUUID (plain http to another host) is a version-4 UUID from getRandomValues', () => {
    const fixed = new Uint8Array(16).fill(0xff);
    vi.stubGlobal('crypto', { getRandomValues: (a: Uint8Array) => (a.set(fixed), a) });
    // Version nibble forced to 4, variant bits to 10.
    expect(randomId()).toBe('ffffffff-ffff-4fff-bfff-ffffffffffff');
    vi.stubGlobal('crypto', { getRandomValues: (a: Uint8Array) => (a.fill(0), a) });
    expect(randomId()).toBe('00000000-0000-4000-8000-000000000000');
    vi.unstubAllGlobals();
    vi.stubGlobal('crypto', { getRandomValues: (a: Uint8Array<ArrayBuffer>) => realCrypto.getRandomValues(a) });
    const ids = new Set(Array.from({ length: 1000 }, () => randomId()));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(V4);
  });
});

const realCrypto = globalThis.crypto;
