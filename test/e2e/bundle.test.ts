/**
 * What the builds hold: WebLLM (about 6 MB) in exactly one file, the engine worker's, so the page
 * and the simulation worker never load it a second time; the e2e build's fake engine only in the
 * e2e build; no app code that imports test code; and a first page (Home, opened cold) of at most
 * 100 KiB of gzipped JavaScript, every file of which the measure counts. The e2e build is the one
 * global setup made; the production build (`npm run build`) is made here, into a folder of its own.
 */
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildForProduction, describeFirstPage, FIRST_PAGE_GOAL_BYTES, firstPageScripts } from '../../src/cli/bench-bundle';
import { launch, serve } from './harness';

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
  return Promise.all(names.map(async (file) => ({ file, bytes: (await stat(join(assets, file))).size, text: await readFile(join(assets, file), 'utf8') })));
}

const holding = (files: readonly Built[], marker: string) => files.filter((f) => f.text.includes(marker)).map((f) => f.file);

describe('the production build (npm run build)', () => {
  let outDir = '';
  let files: Built[] = [];
  beforeAll(async () => {
    outDir = await mkdtemp(join(tmpdir(), 'parley-prod-build-'));
    await buildForProduction(outDir);
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

  it('loads at most 100 KiB of gzipped JavaScript on the first page', async () => {
    const page = await firstPageScripts(outDir);
    console.log(describeFirstPage(page));
    expect(page.files[0]?.file).toMatch(/^assets\/index-[\w-]+\.js$/);
    expect(page.gzipBytes).toBeLessThanOrEqual(FIRST_PAGE_GOAL_BYTES);
    // None of what only other pages need (each found by a string of its own that minifying keeps):
    // Chart.js, Dexie, zod, the QR encoder. Each is in the build, so the check is not empty.
    const firstPage = files.filter((f) => page.files.some((p) => p.file === `assets/${f.file}`));
    for (const marker of ['Canvas is already in use', 'DexieError', 'ZodError', 'Expected number [1..40]']) {
      expect(holding(files, marker), marker).not.toEqual([]);
      expect(holding(firstPage, marker), marker).toEqual([]);
    }
  });

  it('opens Home in Chromium with no script but those the measure counts, and no worker', async () => {
    const counted = (await firstPageScripts(outDir)).files.map((f) => f.file);
    const served = await serve(outDir);
    const browser = await launch({ serviceWorkers: 'allow' });
    try {
      const page = await browser.context.newPage();
      const scripts: string[] = [];
      const workers: string[] = [];
      page.on('request', (r) => {
        if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname.slice(1));
      });
      page.on('worker', (w) => workers.push(w.url()));
      await page.goto(served.url);
      await page.getByRole('heading', { level: 1, name: 'Parley' }).waitFor();
      // The service worker registered (the last thing the first page starts), then nothing more is asked for.
      await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
      await page.waitForLoadState('networkidle');
      expect(workers).toEqual([]);
      expect(scripts.sort()).toEqual([...counted].sort());
    } finally {
      await browser.close();
      await served.close();
    }
  });
});

describe('the e2e build (vite build --mode e2e)', () => {
  it('has WebLLM in exactly one file too, and the fake engine in the simulation worker alone', async () => {
    const files = await scripts(inject('buildDir'));
    expect(holding(files, WEBLLM)).toEqual([expect.stringMatching(/^engine\.worker-[\w-]+\.js$/)]);
    expect(holding(files, FAKE_ENGINE)).toEqual([expect.stringMatching(/^sim\.worker-[\w-]+\.js$/)]);
  });

  it('is a production build, as users get: none of Svelte’s development checks, which name each component’s file', async () => {
    const files = await scripts(inject('buildDir'));
    expect(holding(files, 'src/ui/App.svelte')).toEqual([]);
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
