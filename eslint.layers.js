/**
 * The layers of src/ (docs/architecture.md), lowest first, read by the `parley/layers` lint rule.
 * Each key is a folder under src/; it may hold slashes and a `*` segment for any one folder, so
 * 'games/*' makes each game a layer of its own (one game imports another only if 'games/*' lists
 * itself). `imports`: the layers its files may import besides their own folder. `packages`, where
 * given: the only packages (node: modules included) it may import. Files directly in src/ (main.ts)
 * stand above every layer; a file in a folder missing here is reported. Nothing in src/ imports test/.
 */
export const layers = {
  engine: { imports: [], packages: ['zod'] },
  agents: { imports: ['engine'] },
  'games/*': { imports: ['agents', 'engine'] },
  storage: { imports: ['games/*', 'agents', 'engine'] },
  training: { imports: ['games/*', 'agents', 'engine'] },
  runs: { imports: ['storage', 'training', 'games/*', 'agents', 'engine'] },
  worker: { imports: ['runs', 'storage', 'training', 'games/*', 'agents', 'engine'] },
  cli: { imports: ['runs', 'storage', 'training', 'games/*', 'agents', 'engine'] },
  ui: { imports: ['worker', 'storage', 'training', 'games/*', 'agents', 'engine'] },
};
