import { defineConfig } from 'vitest/config';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { playwright } from '@vitest/browser-playwright';
import { CHROMIUM, CHROMIUM_ARGS } from './test/chromium.ts';
import { pacedModelCommands } from './test/support/paced-commands.ts';
import { fileURLToPath } from 'node:url';

/**
 * The end-to-end build (`vite build --mode e2e`) plays WebLLM seats with the fake engine of
 * test/support/e2e-engine.ts, since no weights can be downloaded there: this alias swaps the
 * simulation worker's engine loader for it in that build alone. Nothing under src/ imports test code.
 */
const e2eEngine = (mode: string) =>
  mode === 'e2e' ? [{ find: /^.*\/backends\/webllm\/loader$/, replacement: fileURLToPath(new URL('./test/support/e2e-engine.ts', import.meta.url)) }] : [];

export default defineConfig(({ mode }) => ({
  plugins: [svelte()],
  resolve: { conditions: ['browser'], alias: e2eEngine(mode) },
  worker: { format: 'es' },
  // Pre-bundled up front so the browser tests never see a mid-run dependency reload.
  optimizeDeps: { include: ['chart.js', 'dexie', 'zod', '@mlc-ai/web-llm'] },
  build: { target: 'es2022' },
  test: {
    // A poll waits on the page, a worker or IndexedDB; on a busy machine that can take seconds.
    expect: { poll: { timeout: 10_000 } },
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.browser.test.ts', 'test/e2e/**'],
          environment: 'node',
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/e2e/global-setup.ts'],
          // One browser at a time on two cores; each file drives whole pages.
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'chromium',
          include: ['test/**/*.browser.test.ts'],
          browser: {
            enabled: true,
            headless: true,
            screenshotFailures: false,
            provider: playwright({ launchOptions: { executablePath: CHROMIUM, args: CHROMIUM_ARGS } }),
            instances: [{ browser: 'chromium' }],
            // A remote model the tests pace (test/support/paced-model.ts), served from Node.
            commands: pacedModelCommands,
          },
        },
      },
    ],
  },
}));
