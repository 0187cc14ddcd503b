/**
 * Run before each file of the chromium project, which shares one page between its files
 * (`isolate: false` in vite.config.ts): every file starts from the page a fresh tab would give it
 * (pristine-page.ts), whatever the file before it mounted, resized, navigated to, stubbed or spied on.
 *
 * What is not reset here, and why:
 * - localStorage, IndexedDB, storage buckets, service workers and caches belong to the origin, which
 *   isolated files shared as well (and which other pages of a parallel run share): each file removes
 *   what it stores, as before.
 * - Module state: the app's page-wide singletons (the simulation worker's client, the database, the
 *   custom models read once, presentation mode, the player's name, the market sessions) live as long
 *   as the page, as in the app. A file that changes one puts it back (presentation mode and the
 *   player's name are set back, a test that swaps the worker's client restores the page's own), and
 *   a file that needs one to see a change goes through it (the custom models are added through
 *   `customModels`, not written behind its back).
 */
import { resetPage } from './pristine-page';

await resetPage();
