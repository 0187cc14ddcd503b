import type { TestProject } from 'vitest/node';
import { buildAndServe } from './harness';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
  }
}

/** Builds the app once and serves it for every browser test file. */
export default async function setup(project: TestProject) {
  const served = await buildAndServe('dist-test', 'e2e');
  project.provide('baseUrl', served.url);
  return () => served.close();
}
