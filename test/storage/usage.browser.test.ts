import { describe, expect, test } from 'vitest';
import { formatBytes, storageUsage } from '../../src/storage/usage';
import { freshDb, storedTournament } from './helpers';

describe('storage usage', () => {
  test('storageUsage reports the origin usage and quota, and grows with what is stored', async () => {
    const before = await storageUsage();
    expect(before).not.toBeNull();
    expect(before!.quota).toBeGreaterThan(0);
    const db = freshDb();
    await storedTournament(db);
    const after = await storageUsage();
    expect(after!.usage).toBeGreaterThan(before!.usage);
  });

  test.each([
    [0, '0 B'],
    [999, '999 B'],
    [1023, '1023 B'],
    [1024, '1 KB'],
    [1536, '1.5 KB'],
    [10 * 1024 + 300, '10 KB'],
    [5 * 1024 ** 2, '5 MB'],
    [1.25 * 1024 ** 3, '1.3 GB'],
    [3 * 1024 ** 4, '3 TB'],
    [-1, '—'],
    [Number.NaN, '—'],
  ])('formatBytes(%d) is %s', (n, text) => {
    expect(formatBytes(n)).toBe(text);
  });
});
