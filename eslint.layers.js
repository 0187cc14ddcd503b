/**
 * The layers of src/ (docs/architecture.md), lowest first, read by the `parley/layers` lint rule.
 * Each key is a folder under src/; it may hold slashes and a `*` segment for any one folder, so
 * 'games/*' makes each game a layer of its own (one game imports another only if 'games/*' lists
 * itself). `imports`: the layers its files may import besides their own folder. `packages`, where
 * given: the only packages (node: modules included) it may import. Files directly in src/ (main.ts)
 * stand above every layer; a file in a folder missing here is reported. Nothing in src/ imports test/.
 */
export const layers = {
  core: { imports: [], packages: ['zod'] },
  agents: { imports: ['core'] },
  storage: { imports: ['agents', 'core'] },
  training: { imports: ['agents', 'core'] },
  runs: { imports: ['storage', 'training', 'agents', 'core'] },
  worker: { imports: ['runs', 'storage', 'training', 'agents', 'core'] },
  cli: { imports: ['runs', 'storage', 'training', 'agents', 'core'] },
  ui: { imports: ['worker', 'storage', 'training', 'agents', 'core'] },
};
