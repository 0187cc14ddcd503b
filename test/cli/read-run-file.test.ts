/**
 * Files read from disk for the command line, as the app reads a chosen file: each refusal a problem
 * with its code (the system's error code kept as `reason`), a size refusal the size check's own.
 */
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FILE_READ_PROBLEMS, readRunFileText, readTextFile } from '../../src/cli/read-run-file';
import { MAX_IMPORT_BYTES } from '../../src/storage/run-file';

/** Read with no size limit: every refusal is the reader's own. */
const unlimited = (path: string) => readTextFile<never>(path, () => null);
const dir = mkdtempSync(join(tmpdir(), 'parley-read-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('readTextFile', () => {
  it('reads a file’s text and size, a byte-order mark dropped', async () => {
    const path = join(dir, 'text.txt');
    writeFileSync(path, '\ufeffhello é');
    expect(await unlimited(path)).toEqual({ ok: true, value: { text: 'hello é', size: 11 } });
  });

  it('refuses a folder and a missing file by code', async () => {
    expect(await unlimited(dir)).toEqual({ ok: false, error: { code: 'not-a-file', data: {}, message: 'not a file' } });
    const missing = await unlimited(join(dir, 'nowhere.txt'));
    expect(missing.ok ? null : { code: missing.error.code, data: missing.error.data }).toEqual({ code: 'cannot-read', data: { reason: 'ENOENT' } });
    expect(FILE_READ_PROBLEMS['cannot-read']({ reason: 'EACCES' })).toBe('cannot read it (EACCES)');
  });

  it('returns the size check’s own refusal, asked with the size before the file is read', async () => {
    const path = join(dir, 'sized.txt');
    writeFileSync(path, 'four');
    const sizes: number[] = [];
    const refusal = { code: 'over', message: 'too big' };
    const read = await readTextFile(path, (size) => (sizes.push(size), refusal));
    expect(read).toEqual({ ok: false, error: refusal });
    expect(sizes).toEqual([4]);
  });

  it('a run file over the import limit is refused by the import’s size check (a sparse file: no disk used)', async () => {
    const path = join(dir, 'big.jsonl');
    writeFileSync(path, '');
    truncateSync(path, MAX_IMPORT_BYTES + 1);
    expect(await readRunFileText(path)).toMatchObject({ ok: false, error: { kind: 'too-large' } });
  });
});
