// Shared by the browser tests and `npm run bench:browser`: build, serve on 127.0.0.1, drive Debian's Chromium.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { preview, type PreviewServer } from 'vite';
import { buildForProduction } from '../../src/cli/bench-bundle';
import { CHROMIUM, CHROMIUM_ARGS } from '../chromium';

export interface Served {
  url: string;
  close: () => Promise<void>;
}

/**
 * Builds the app for production into `outDir` and serves it on a free loopback port. Mode `e2e`
 * builds the app with the fake WebLLM engine (test/support/e2e-engine.ts) in place of the real one.
 */
export async function buildAndServe(outDir = 'dist', mode: 'production' | 'e2e' = 'production'): Promise<Served> {
  await buildForProduction(outDir, { mode });
  return serve(outDir);
}

/**
 * Serves a build on a free loopback port under `base` (`/parley/` serves it as a project page
 * would be), as `npx vite preview --base /parley/` does; `allowedHosts` are names besides the
 * address it may be asked for by.
 */
export async function serve(outDir: string, base = '/', allowedHosts: string[] = []): Promise<Served> {
  const server: PreviewServer = await preview({
    logLevel: 'warn',
    base,
    build: { outDir },
    // Vite answers 403 to a Host it was not told of (`allowedHosts`), as a guard against DNS rebinding.
    preview: { host: '127.0.0.1', port: 0, strictPort: false, open: false, allowedHosts },
  });
  const address = server.httpServer.address();
  if (address === null || typeof address === 'string') throw new Error('preview server has no port');
  return {
    url: `http://127.0.0.1:${address.port}${base}`,
    close: () => new Promise<void>((resolve, reject) => server.httpServer.close((e) => (e ? reject(e) : resolve()))),
  };
}

export interface Browser {
  context: BrowserContext;
  close: () => Promise<void>;
}

/**
 * A fresh persistent profile each time, so IndexedDB starts empty and survives reloads. The app's
 * service worker is blocked unless asked for (`serviceWorkers: 'allow'`): a test that does not
 * test it then sees the network as it is, and no precaching competes with its storage quota.
 */
export async function launch(options: { serviceWorkers?: 'allow' | 'block'; args?: string[] } = {}): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), 'parley-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [...CHROMIUM_ARGS, ...(options.args ?? [])],
    viewport: { width: 1280, height: 900 },
    serviceWorkers: options.serviceWorkers ?? 'block',
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
