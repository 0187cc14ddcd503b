import { defineConfig } from 'vitest/config';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { VitePWA } from 'vite-plugin-pwa';
import { playwright } from '@vitest/browser-playwright';
import { CHROMIUM, CHROMIUM_ARGS } from './test/chromium.ts';
import { pacedModelCommands } from './test/support/paced-commands.ts';
import { chatServerCommands } from './test/support/chat-server-commands.ts';
import { fileURLToPath } from 'node:url';

/**
 * The end-to-end build (`vite build --mode e2e`) plays WebLLM seats with the fake engine of
 * test/support/e2e-engine.ts, since no weights can be downloaded there: this alias swaps the
 * simulation worker's engine loader for it in that build alone. Nothing under src/ imports test code.
 */
const e2eEngine = (mode: string) =>
  mode === 'e2e' ? [{ find: /^.*\/backends\/webllm\/loader$/, replacement: fileURLToPath(new URL('./test/support/e2e-engine.ts', import.meta.url)) }] : [];

/**
 * The service worker precaches every file of the build (the workers and WebLLM's 6 MB engine chunk
 * included), so that after one visit the app opens and plays with no network. It asks before it
 * takes over (`prompt`): an update waits for the user's "Update". Model weights stay in WebLLM's
 * own cache. In `vite` (dev) and in Vitest's browser tests no service worker is registered at all.
 */
const pwa = () =>
  VitePWA({
    registerType: 'prompt',
    injectRegister: false,
    includeAssets: ['favicon.svg'],
    manifest: {
      name: 'Parley — a bargaining lab in your browser',
      short_name: 'Parley',
      description: 'Language models, scripted strategies and you bargain over prices; every run is stored in this browser.',
      theme_color: '#2f6f5e',
      background_color: '#ffffff',
      display: 'standalone',
      // Relative to the manifest, so the app installs from whatever path it is served at.
      start_url: '.',
      scope: '.',
      icons: [
        { src: 'icon-192.png', sizes: '192x192', type: 'image/png' },
        { src: 'icon-512.png', sizes: '512x512', type: 'image/png' },
        { src: 'maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
        { src: 'favicon.svg', sizes: 'any', type: 'image/svg+xml' },
      ],
    },
    workbox: {
      globPatterns: ['**/*.{js,css,html,wasm}'],
      // WebLLM's engine worker is about 6 MB; without it no WebLLM model could play offline.
      maximumFileSizeToCacheInBytes: 16 * 2 ** 20,
      cleanupOutdatedCaches: true,
      // Every route is a hash of index.html, so a navigation offline is answered with it.
      navigateFallback: 'index.html',
    },
    devOptions: { enabled: false },
  });

export default defineConfig(({ mode }) => ({
  // Relative URLs throughout, so the build can be served from any path (`/`, `/parley/`, a file share).
  base: './',
  plugins: [svelte(), pwa()],
  resolve: { conditions: ['browser'], alias: e2eEngine(mode) },
  worker: { format: 'es' },
  // Pre-bundled up front so the browser tests never see a mid-run dependency reload.
  optimizeDeps: { include: ['chart.js', 'dexie', 'zod', '@mlc-ai/web-llm'] },
  build: {
    target: 'es2022',
    rolldownOptions: {
      // src/main.ts imports workbox-window, which the service worker's register imports dynamically, on
      // purpose (see there). Any other dynamic import that a static one defeats is still reported: it
      // would bring a page back into the first page's script.
      onLog(level, log, report) {
        if (log.code === 'INEFFECTIVE_DYNAMIC_IMPORT' && log.message.includes('/workbox-window/')) return;
        report(level, log);
      },
    },
  },
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
          // A ceiling against a hang, not a measure: beside another run on two cores a test that
          // takes 1.5 s alone took over 5 s (Vitest's default), and failed for the machine's pace.
          testTimeout: 60_000,
          // One module graph per worker instead of one per file: the Node tests mock no module and
          // restore every global they stub, and they pass in shuffled file orders, so isolation only
          // cost imports (the Node project took 106 s alone, 63 s without it, on two cores).
          isolate: false,
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
          // Every file in one worker process, which imports Vite and Playwright once: each file
          // launches a Chromium of its own on a fresh profile and closes what it starts, and no
          // module here holds state across files (the e2e project took 183-198 s of CPU, 155 s without).
          isolate: false,
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'chromium',
          include: ['test/**/*.browser.test.ts'],
          // One page for every file instead of an iframe each, which imported the test runtime and the
          // app's modules again and started the app's worker again per file. What a file leaves in the
          // page (mounted components, the hash, the viewport, <html>'s classes, stubs and spies) is reset
          // before the next by test/support/browser-setup.ts, which says what is not and why; the files
          // pass in shuffled orders. The chromium project took 148-159 s of CPU (Chromium's processes
          // counted), 130-142 s of wall time, on two cores; 88-90 s and 87-93 s without isolation (two
          // runs side by side: 219-223 s of wall time each, 132 s without).
          isolate: false,
          setupFiles: ['test/support/browser-setup.ts'],
          browser: {
            enabled: true,
            headless: true,
            screenshotFailures: false,
            provider: playwright({ launchOptions: { executablePath: CHROMIUM, args: CHROMIUM_ARGS } }),
            instances: [{ browser: 'chromium' }],
            // A remote model the tests pace (test/support/paced-model.ts), and scripted chat servers
            // (test/support/chat-server.ts), served from Node.
            commands: { ...pacedModelCommands, ...chatServerCommands },
          },
        },
      },
    ],
  },
}));
