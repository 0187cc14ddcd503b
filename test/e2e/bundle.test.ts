/**
 * What the builds hold: WebLLM (about 6 MB) in exactly one file, the engine worker's, so the page
 * and the simulation worker never load it a second time; the e2e build's fake engine only in the
 * e2e build; and no app code that imports test code. The e2e build is the one global setup made;
 * the production build (`npm run build`) is made here, into a folder of its own.
 */
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { build } from 'vite';

/** A string literal of WebLLM's own (an error message of its engine), which minifying keeps. */
const WEBLLM = 'Cannot find model record in appConfig';
/** The progress text of test/support/e2e-engine.ts. */
const FAKE_ENGINE = '(fake engine)';

interface Built {
  file: string;
  bytes: number;
  text: string;
}

async function scripts(dir: string): Promise<Built[]> {
  const assets = join(dir, 'assets');
  const names = (await readdir(assets)).filter((n) => n.endsWith('.js'));
  return Promise.all(
    names.map(async (file) => ({ file, bytes: (await stat(join(assets, file))).size, text: await readFile(join(assets, file), 'utf8') })),
  );
}

const holding = (files: readonly Built[], marker: string) => files.filter((f) => f.text.includes(marker)).map((f) => f.file);

describe('the production build (npm run build)', () => {
  let outDir = '';
  let files: Built[] = [];
  beforeAll(async () => {
    outDir = await mkdtemp(join(tmpdir(), 'parley-prod-build-'));
    await build({ mode: 'production', logLevel: 'warn', build: { outDir, emptyOutDir: true } });
    files = await scripts(outDir);
  });
  afterAll(async () => {
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  it('has WebLLM in exactly one file, the engine worker’s', () => {
    const withWebLlm = holding(files, WEBLLM);
    expect(withWebLlm).toHaveLength(1);
    expect(withWebLlm[0]).toMatch(/^engine\.worker-[\w-]+\.js$/);
    // The rest of the app together is far smaller than WebLLM alone.
    const rest = files.filter((f) => f.file !== withWebLlm[0]).reduce((sum, f) => sum + f.bytes, 0);
    expect(rest).toBeLessThan(2 * 2 ** 20);
  });

  it('holds none of the e2e build’s fake engine', () => {
    expect(holding(files, FAKE_ENGINE)).toEqual([]);
  });
});

describe('the e2e build (vite build --mode e2e)', () => {
  it('has WebLLM in exactly one file too, and the fake engine in the simulation worker alone', async () => {
    const files = await scripts(inject('buildDir'));
    expect(holding(files, WEBLLM)).toEqual([expect.stringMatching(/^engine\.worker-[\w-]+\.js$/)]);
    expect(holding(files, FAKE_ENGINE)).toEqual([expect.stringMatching(/^sim\.worker-[\w-]+\.js$/)]);
  });
});

describe('the app’s source', () => {
  it('imports nothing from test/', async () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const src = join(root, 'src');
    const found: string[] = [];
    for (const entry of await readdir(src, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !/\.(ts|svelte)$/.test(entry.name)) continue;
      const file = join(entry.parentPath, entry.name);
      const text = await readFile(file, 'utf8');
      for (const [, specifier] of text.matchAll(/(?:from\s+|import\s*\(\s*)['"]([^'"]+)['"]/g)) {
        if (!specifier?.startsWith('.')) continue;
        const target = relative(root, resolve(dirname(file), specifier));
        if (target === 'test' || target.startsWith('test/')) found.push(`${relative(root, file)} → ${specifier}`);
      }
    }
    expect(found).toEqual([]);
  });
});
