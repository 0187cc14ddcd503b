/**
 * The xgrammar that WebLLM 0.2.86 bundles, loaded in Node, with Qwen3's real vocabulary: the
 * bench's own (src/cli/xgrammar.ts), so the tests and `npm run bench` compile the same way.
 */
export { compileResponseFormat, grammarCompiler, loadXgrammar, qwen3TokenizerInfo, qwen3Vocabulary, xgrammarVersions } from '../../../../src/cli/xgrammar';
