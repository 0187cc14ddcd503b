// The rule over the real src/ tree is `npm run lint`'s part of `npm test`: the same eslint.config.js,
// every rule on every file (the Svelte components among them), failing on any error; a change to the
// table or to the rule makes ESLint's cache lint every file again (see eslint.layer-rule.js). This file
// proves the rule itself, on imports written for it, and never lints the tree a second time.
import { fileURLToPath } from 'node:url';
import { ESLint, type Linter } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const RULE = 'parley/layers';
// The project's own eslint.config.js, running the layer rule alone.
const onlyLayers = (overrideConfig?: Linter.Config) =>
  new ESLint({ cwd: root, ruleFilter: ({ ruleId }) => ruleId === RULE, ...(overrideConfig && { overrideConfig }) });
const project = onlyLayers();

/** The layer rule's messages for `code` as if it were the file at `filePath` (which need not exist). */
async function layerMessages(filePath: string, code: string, eslint = project): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  expect(result?.messages.filter((m) => m.ruleId !== RULE)).toEqual([]);
  return result?.messages.map((m) => m.message) ?? [];
}

describe('the layer rule', () => {
  it.each([
    ['src/agents/x.ts', "import { createRng } from '../engine/rng';"],
    ['src/storage/deep/x.ts', "import { makeAgent } from '../../games/bilateral/registry';\nimport { ok } from '../../engine/result';"],
    ['src/worker/x.ts', "export { openDb } from '../storage/db';\nexport * from '../training/sft';"],
    [
      'src/ui/pages/X.svelte',
      "<script lang=\"ts\">\n  import { sim } from '../state/sim';\n  import type { RunRow } from '../../storage/schema';\n  const load = () => import('../../worker/client');\n</script>",
    ],
    ['src/engine/x.ts', "import { z } from 'zod';\nimport { mean } from './stats';"],
    ['src/games/market/x.ts', "import { ok } from '../../engine/result';\nimport { clip } from '../../agents/llm/json-text';"],
    ['src/main.ts', "import App from './ui/App.svelte';\nimport { parse } from './cli/args';"],
  ])('lets %s import downwards', async (file, code) => {
    expect(await layerMessages(file, code)).toEqual([]);
  });

  it.each([
    ['src/engine/x.ts', "import { clip } from '../agents/llm/json-text';", 'engine may not import agents'],
    ['src/agents/llm/x.ts', "import type { HumanPrompt } from '../../games/bilateral/human';", 'agents may not import games/bilateral'],
    ['src/games/market/x.ts', "import { llmAgent } from '../bilateral/llm/agent';", 'games/market may not import games/bilateral'],
    ['src/engine/x.ts', "type Api = typeof import('../worker/client');", 'engine may not import worker'],
    ['src/engine/x.ts', "import Dexie from 'dexie';", "engine may not import the package 'dexie'"],
    ['src/engine/x.ts', "import { readFile } from 'node:fs/promises';", "engine may not import the package 'node:fs/promises'"],
    ['src/agents/llm/x.ts', "export * from '../../storage';", 'agents may not import storage'],
    ['src/storage/x.ts', "import { toSft } from '../training/sft';", 'storage may not import training'],
    ['src/storage/a/b/c/x.ts', "import { sim } from '../../../../ui/state/sim';", 'storage may not import ui'],
    ['src/worker/x.ts', "const cli = await import('../cli/main');", 'worker may not import cli'],
    ['src/cli/x.ts', "import { SimClient } from '../worker/client';", 'cli may not import worker'],
    ['src/ui/pages/X.svelte', '<script lang="ts">\n  import { parse } from \'../../cli/args\';\n</script>', 'ui may not import cli'],
    ['src/ui/x.ts', "import '../main';", 'which is in no layer'],
    ['src/store/x.ts', "import { ok } from '../engine/result';", 'src/store is in no layer: add it to eslint.layers.js'],
    ['src/ui/x.ts', "import { fakeEngine } from '../../test/support/e2e-engine';", 'src/ may not import test code'],
  ])('reports %s importing upwards or sideways (%s)', async (file, code, message) => {
    const messages = await layerMessages(file, code);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain(message);
  });

  it('reads its layers from the table, folders with a wildcard included', async () => {
    const layers = { engine: { imports: [] }, 'games/*': { imports: ['engine'] }, store: { imports: ['engine', 'games/*'] } };
    const options = { src: `${root}src`, test: `${root}test`, layers };
    const renamed = onlyLayers({ files: ['src/**/*.{ts,svelte}'], rules: { [RULE]: ['error', options] } });
    expect(await layerMessages('src/games/market/x.ts', "import { run } from '../../engine/run';\nimport { seat } from './seat';", renamed)).toEqual([]);
    expect(await layerMessages('src/store/x.ts', "import { market } from '../games/market';", renamed)).toEqual([]);
    expect(await layerMessages('src/games/market/x.ts', "import { bilateral } from '../bilateral';", renamed)).toEqual([
      "games/market may not import games/bilateral ('../bilateral'); games/market imports only engine",
    ]);
    expect(await layerMessages('src/engine/x.ts', "import { writer } from '../store/writer';", renamed)).toEqual([
      "engine may not import store ('../store/writer'); engine imports only its own folder",
    ]);
  });
});
