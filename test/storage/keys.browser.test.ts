import { describe, expect, test } from 'vitest';
import { deleteKey, getKeys, putKey } from '../../src/storage/keys';
import { exportRunJson, exportRunJsonl } from '../../src/storage/transfer';
import { freshDb, storedTournament } from './helpers';

const KEY = 'sk-test-never-exported-7f3a9c';

describe('remembered keys', () => {
  test('put, get and delete by provider', async () => {
    const db = freshDb();
    expect(await getKeys(db)).toEqual([]);
    await putKey(db, { provider: 'openai', apiKey: KEY, baseUrl: '' });
    await putKey(db, { provider: 'vllm', apiKey: '', baseUrl: 'http://127.0.0.1:8000/v1' });
    await putKey(db, { provider: 'openai', apiKey: `${KEY}-2`, baseUrl: '' });
    expect(await getKeys(db)).toEqual([
      { provider: 'openai', apiKey: `${KEY}-2`, baseUrl: '' },
      { provider: 'vllm', apiKey: '', baseUrl: 'http://127.0.0.1:8000/v1' },
    ]);
    await deleteKey(db, 'openai');
    expect((await getKeys(db)).map((k) => k.provider)).toEqual(['vllm']);
  });

  test('a row that does not parse is skipped', async () => {
    const db = freshDb();
    await db.keys.put({ provider: 'gemini', apiKey: 42 } as never);
    await putKey(db, { provider: 'groq', apiKey: KEY, baseUrl: '' });
    expect((await getKeys(db)).map((k) => k.provider)).toEqual(['groq']);
  });

  test('an exported run file does not contain a stored key', async () => {
    const db = freshDb();
    const { run } = await storedTournament(db);
    await putKey(db, { provider: 'openai', apiKey: KEY, baseUrl: 'http://127.0.0.1:9/v1' });
    const json = await exportRunJson(db, run.id);
    const jsonl = await exportRunJsonl(db, run.id);
    expect(json.length).toBeGreaterThan(1000);
    for (const text of [json, jsonl]) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain('127.0.0.1:9');
    }
  });
});
