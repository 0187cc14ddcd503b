// The first page's JavaScript, for `npm run bench` (src/cli/bench.ts) and test/e2e/bundle.test.ts:
// every script a cold visit to Home downloads, gzipped as a server would send it.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync, constants } from 'node:zlib';
import { build, parseAst, type LogLevel } from 'vite';

/** The most gzipped JavaScript the first page may load (issue #23). */
export const FIRST_PAGE_GOAL_BYTES = 100 * 1024;

export interface ScriptSize {
  /** The file's path in the build, as the page asks for it (`assets/index-….js`). */
  file: string;
  gzipBytes: number;
}

export interface FirstPageScripts {
  /** In the order the page finds them: index.html's, then what each imports. */
  files: ScriptSize[];
  gzipBytes: number;
}

// Paths are resolved as the browser resolves them, on a made-up origin whose root is the build.
const ORIGIN = 'http://build.invalid/';

/** The scripts index.html names itself: its script elements and its modulepreload links. */
function htmlScripts(html: string): string[] {
  const found: string[] = [];
  for (const [tag] of html.matchAll(/<(?:script|link)\b[^>]*>/g)) {
    const attr = (name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];
    const src = tag.startsWith('<script') ? attr('src') : attr('rel') === 'modulepreload' ? attr('href') : undefined;
    if (src) found.push(src);
  }
  return found;
}

/** What a module imports before it runs (`import … from`, `export … from`); never an `import()`. */
function staticImports(code: string, file: string): string[] {
  return parseAst(code, { lang: 'js' }, file).body.flatMap((node) =>
    (node.type === 'ImportDeclaration' || node.type === 'ExportAllDeclaration' || node.type === 'ExportNamedDeclaration') && node.source
      ? [String(node.source.value)]
      : [],
  );
}

/**
 * Every script the first page of a build loads: index.html's own and the modules they import
 * statically, recursively. Not the chunks a page imports when it is opened, nor the workers (the
 * page starts them with `new Worker`), nor the service worker. Sizes are gzip at level 9.
 */
export async function firstPageScripts(outDir: string): Promise<FirstPageScripts> {
  const html = await readFile(join(outDir, 'index.html'), 'utf8');
  const queue = htmlScripts(html).map((src) => new URL(src, ORIGIN));
  const files: ScriptSize[] = [];
  const seen = new Set<string>();
  for (let url = queue.shift(); url; url = queue.shift()) {
    const file = decodeURIComponent(url.pathname.slice(1));
    if (seen.has(file)) continue;
    seen.add(file);
    const bytes = await readFile(join(outDir, file));
    files.push({ file, gzipBytes: gzipSync(bytes, { level: constants.Z_BEST_COMPRESSION }).length });
    for (const specifier of staticImports(bytes.toString('utf8'), file)) queue.push(new URL(specifier, url));
  }
  return { files, gzipBytes: files.reduce((sum, f) => sum + f.gzipBytes, 0) };
}

const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;

/** One line for the bench: the total, the goal and each file. */
export function describeFirstPage(page: FirstPageScripts): string {
  const files = page.files.map((f) => `${f.file} ${kib(f.gzipBytes)}`).join(', ');
  return `first page: ${kib(page.gzipBytes)} of gzipped JavaScript (gzip -9; goal ${kib(FIRST_PAGE_GOAL_BYTES)}): ${files}`;
}

/**
 * Builds the app into `outDir` as `npm run build` does, under Vitest too: its NODE_ENV (`test`)
 * would make the build a development one, with Svelte's checks compiled in. Mode `e2e` is the same
 * production build with the fake WebLLM engine (test/support/e2e-engine.ts) in place of the real one.
 */
export async function buildForProduction(
  outDir: string,
  { mode = 'production', logLevel = 'warn' }: { mode?: 'production' | 'e2e'; logLevel?: LogLevel } = {},
): Promise<void> {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({ root, mode, logLevel, build: { outDir, emptyOutDir: true } });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
}

/** Builds the app for production into a folder of its own, measures its first page, and removes the folder. */
export async function measureFirstPage(): Promise<FirstPageScripts> {
  const outDir = await mkdtemp(join(tmpdir(), 'parley-bench-build-'));
  try {
    await buildForProduction(outDir, { logLevel: 'silent' });
    return await firstPageScripts(outDir);
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}
