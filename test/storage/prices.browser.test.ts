import { describe, expect, test } from 'vitest';
import { deletePrice, getPrices, putPrice } from '../../src/storage/prices';
import { exportRunJson } from '../../src/storage/transfer';
import { freshDb, storedTournament } from './helpers';

describe('prices in the settings table', () => {
  test('put, get and delete by model spec, in real IndexedDB', async () => {
    const db = freshDb();
    expect(await getPrices(db)).toEqual(new Map());
    await putPrice(db, 'openai:gpt-4o-mini', { inputPerMTok: 0.15, outputPerMTok: 0.6 });
    await putPrice(db, 'ollama:qwen3:8b', { inputPerMTok: 0, outputPerMTok: 0 });
    await putPrice(db, 'openai:gpt-4o-mini', { inputPerMTok: 0.2, outputPerMTok: 0.8 });
    expect(await getPrices(db)).toEqual(
      new Map([
        ['ollama:qwen3:8b', { inputPerMTok: 0, outputPerMTok: 0 }],
        ['openai:gpt-4o-mini', { inputPerMTok: 0.2, outputPerMTok: 0.8 }],
      ]),
    );
    // A reopened database (a reload) reads the same.
    db.close();
    await db.open();
    expect([...(await getPrices(db)).keys()]).toEqual(['ollama:qwen3:8b', 'openai:gpt-4o-mini']);
    await deletePrice(db, 'openai:gpt-4o-mini');
    expect([...(await getPrices(db)).keys()]).toEqual(['ollama:qwen3:8b']);
    expect(await db.settings.toArray()).toEqual([{ key: 'price:ollama:qwen3:8b', value: { inputPerMTok: 0, outputPerMTok: 0 } }]);
  });

  test('a stored row that does not parse is skipped, and other settings are left alone', async () => {
    const db = freshDb();
    await db.settings.bulkPut([
      { key: 'price:openai:bad-negative', value: { inputPerMTok: -1, outputPerMTok: 1 } },
      { key: 'price:openai:bad-text', value: { inputPerMTok: '0.15', outputPerMTok: 0.6 } },
      { key: 'price:openai:bad-missing', value: { inputPerMTok: 1 } },
      { key: 'price:openai:bad-null', value: null },
      { key: 'price:', value: { inputPerMTok: 1, outputPerMTok: 1 } },
      { key: 'theme', value: 'dark' },
    ]);
    await putPrice(db, 'groq:llama', { inputPerMTok: 0.05, outputPerMTok: 0.08 });
    expect(await getPrices(db)).toEqual(new Map([['groq:llama', { inputPerMTok: 0.05, outputPerMTok: 0.08 }]]));
    expect(await db.settings.get('theme')).toEqual({ key: 'theme', value: 'dark' });
  });

  test('an invalid price is refused before anything is written', async () => {
    const db = freshDb();
    await expect(putPrice(db, 'openai:x', { inputPerMTok: Number.NaN, outputPerMTok: 1 })).rejects.toThrow();
    await expect(putPrice(db, '', { inputPerMTok: 1, outputPerMTok: 1 })).rejects.toThrow();
    expect(await db.settings.count()).toBe(0);
  });

  test('prices are not part of an exported run', async () => {
    const db = freshDb();
    const { run } = await storedTournament(db);
    await putPrice(db, 'openai:gpt-4o-mini', { inputPerMTok: 0.123456, outputPerMTok: 0.654321 });
    const json = await exportRunJson(db, run.id);
    expect(json).not.toContain('0.123456');
    expect(json).not.toContain('price:');
  });
});
