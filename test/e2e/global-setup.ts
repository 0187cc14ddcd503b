import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildAndServe } from './harness';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    /** Where the e2e build was written, for the tests that read the build itself. */
    buildDir: string;
  }
}

/**
 * Builds the app once and serves it for every browser test file. The build goes to a folder of
 * its own, so two test runs at once never empty each other's.
 */
export default async function setup(project: TestProject) {
  const outDir = await mkdtemp(join(tmpdir(), 'parley-e2e-build-'));
  const served = await buildAndServe(outDir, 'e2e');
  project.provide('baseUrl', served.url);
  project.provide('buildDir', outDir);
  return async () => {
    await served.close();
    await rm(outDir, { recursive: true, force: true });
  };
}
