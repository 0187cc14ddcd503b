/**
 * The xgrammar that WebLLM 0.2.86 bundles (`@mlc-ai/web-xgrammar` 0.1.27, the same version, with
 * its wasm inlined), loaded in Node. Its bundle is a UMD script under a package marked as an ES
 * module, so Node's import cannot run it; it is run here as the CommonJS script it is.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { compileFunction, constants } from 'node:vm';
import type * as Xgrammar from '@mlc-ai/web-xgrammar';

const require = createRequire(import.meta.url);

export function loadXgrammar(): typeof Xgrammar {
  const file = require.resolve('@mlc-ai/web-xgrammar');
  const module = { exports: {} as typeof Xgrammar };
  // Its Node branch imports `module` dynamically, so the script gets Node's own loader for that.
  const run = compileFunction(readFileSync(file, 'utf8'), ['exports', 'module', 'require', '__filename', '__dirname'], {
    filename: file,
    importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  run(module.exports, module, require, file, dirname(file));
  return module.exports;
}

/** The versions of xgrammar installed here and the one WebLLM was built with. */
export function xgrammarVersions(): { installed: string; webllmBuiltWith: string | undefined } {
  const read = (name: string) => JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')) as Record<string, unknown>;
  const webllm = read('@mlc-ai/web-llm') as { devDependencies?: Record<string, string> };
  return { installed: String(read('@mlc-ai/web-xgrammar').version), webllmBuiltWith: webllm.devDependencies?.['@mlc-ai/web-xgrammar'] };
}
