import { prebuiltAppConfig, type ModelRecord } from '@mlc-ai/web-llm';
import { describe, expect, it } from 'vitest';
import {
  QWEN3_KV_SHAPE,
  kvCacheBytesPerToken,
  kvCacheMB,
  QUANTIZATIONS,
  estimateDownloadMB,
  QWEN3_SIZES,
  qwen3ModelId,
  qwen3Models,
} from '../../../../src/agents/backends/webllm/models';
import { WEBLLM_MODEL_IDS } from '../../../../src/agents/specs';

// The installed WebLLM's own list; importing the package in Node touches no WebGPU.
const modelList = prebuiltAppConfig.model_list;

describe('qwen3Models, against the prebuilt list of the installed WebLLM', () => {
  it('every WebLLM model an agent spec may name is in the list (specs are checked without loading WebLLM)', () => {
    const ids = new Set(modelList.map((r) => r.model_id));
    expect(WEBLLM_MODEL_IDS.filter((id) => !ids.has(id))).toEqual([]);
    const offered = [true, false].flatMap((shaderF16) => qwen3Models(modelList, { shaderF16 }).map((m) => m.id));
    expect(new Set(WEBLLM_MODEL_IDS)).toEqual(new Set(offered));
  });

  it('offers 0.6B, 1.7B, 4B and 8B as q4f16_1 where the adapter has shader-f16', () => {
    const models = qwen3Models(modelList, { shaderF16: true });
    expect(models.map((m) => m.id)).toEqual(['Qwen3-0.6B-q4f16_1-MLC', 'Qwen3-1.7B-q4f16_1-MLC', 'Qwen3-4B-q4f16_1-MLC', 'Qwen3-8B-q4f16_1-MLC']);
    expect(models.map((m) => m.label)).toEqual(['Qwen3 0.6B (q4f16)', 'Qwen3 1.7B (q4f16)', 'Qwen3 4B (q4f16)', 'Qwen3 8B (q4f16)']);
    expect(models.every((m) => m.quantization === 'q4f16_1')).toBe(true);
  });

  it('offers the q4f32_1 builds without shader-f16', () => {
    const models = qwen3Models(modelList, { shaderF16: false });
    expect(models.map((m) => m.id)).toEqual(['Qwen3-0.6B-q4f32_1-MLC', 'Qwen3-1.7B-q4f32_1-MLC', 'Qwen3-4B-q4f32_1-MLC', 'Qwen3-8B-q4f32_1-MLC']);
  });

  it("takes each model's memory need and low-resource mark from the list itself", () => {
    for (const shaderF16 of [true, false]) {
      for (const m of qwen3Models(modelList, { shaderF16 })) {
        const record = modelList.find((r) => r.model_id === m.id) as ModelRecord;
        expect(m.vramRequiredMB).toBe(record.vram_required_MB);
        expect(m.lowResource).toBe(record.low_resource_required ?? false);
        expect(m.requiredFeatures).toEqual(record.required_features ?? []);
      }
    }
  });

  it('memory and download grow with size, and q4f32 needs more than q4f16 at every size', () => {
    const f16 = qwen3Models(modelList, { shaderF16: true });
    const f32 = qwen3Models(modelList, { shaderF16: false });
    for (const list of [f16, f32]) {
      for (let i = 1; i < list.length; i++) {
        expect(list[i]!.vramRequiredMB!).toBeGreaterThan(list[i - 1]!.vramRequiredMB!);
        expect(list[i]!.downloadMB).toBeGreaterThan(list[i - 1]!.downloadMB);
        expect(list[i]!.parameters).toBeGreaterThan(list[i - 1]!.parameters);
      }
    }
    f16.forEach((m, i) => {
      expect(f32[i]!.vramRequiredMB!).toBeGreaterThan(m.vramRequiredMB!);
      expect(f32[i]!.downloadMB).toBeGreaterThan(m.downloadMB);
    });
  });

  it('WebLLM 0.2.86 lists no download size and no shader-f16 requirement for its Qwen3 builds (why both are ours)', () => {
    for (const size of QWEN3_SIZES) {
      const record = modelList.find((r) => r.model_id === qwen3ModelId(size, 'q4f16_1')) as ModelRecord;
      expect(record).toBeDefined();
      expect(Object.keys(record).some((k) => /size|bytes/i.test(k) && k !== 'buffer_size_required_bytes')).toBe(false);
      expect(record.required_features).toBeUndefined();
    }
  });
});

describe('qwen3Models: the pure function', () => {
  const record = (model_id: string, extra: Partial<ModelRecord> = {}): ModelRecord => ({
    model: `https://example.test/${model_id}`,
    model_id,
    model_lib: 'lib.wasm',
    ...extra,
  });

  it('leaves out a size the list lacks, and ignores everything but the exact Qwen3 ids', () => {
    const list = [
      record('Qwen3-0.6B-q4f16_1-MLC', { vram_required_MB: 1400 }),
      record('Qwen3-0.6B-q0f16-MLC', { vram_required_MB: 2200 }),
      record('Qwen3.5-4B-q4f16_1-MLC'),
      record('Qwen3-8B-q4f16_1-MLC', { vram_required_MB: 5700, buffer_size_required_bytes: 262144000, required_features: ['shader-f16'] }),
    ];
    const models = qwen3Models(list, { shaderF16: true });
    expect(models.map((m) => m.size)).toEqual(['0.6B', '8B']);
    expect(models[1]).toMatchObject({ bufferSizeRequiredBytes: 262144000, requiredFeatures: ['shader-f16'], lowResource: false });
    expect(models[0]).not.toHaveProperty('bufferSizeRequiredBytes');
    expect(qwen3Models(list, { shaderF16: false })).toEqual([]);
  });

  it('a memory need the list leaves out (or gives as nonsense) is null, not a guess', () => {
    const models = qwen3Models([record('Qwen3-0.6B-q4f32_1-MLC'), record('Qwen3-1.7B-q4f32_1-MLC', { vram_required_MB: Number.NaN })], { shaderF16: false });
    expect(models.map((m) => m.vramRequiredMB)).toEqual([null, null]);
  });

  it('estimates downloads as parameters × bits per weight plus the small files', () => {
    expect(estimateDownloadMB('0.6B', 'q4f16_1')).toBe(340);
    expect(estimateDownloadMB('0.6B', 'q4f32_1')).toBe(370);
    expect(estimateDownloadMB('1.7B', 'q4f16_1')).toBe(930);
    expect(estimateDownloadMB('4B', 'q4f16_1')).toBe(2160);
    expect(estimateDownloadMB('8B', 'q4f16_1')).toBe(4410);
    expect(estimateDownloadMB('8B', 'q4f32_1')).toBe(4900);
  });
});

describe('the attention cache a context window costs', () => {
  it("matches the memory WebLLM's own records add for a longer window", () => {
    // WebLLM lists Llama 3.1 8B (32 layers, 8 KV heads of 128) at 4,096 tokens and at 1,024 ("-1k"):
    // the difference is the cache for 3,072 tokens, plus a little that scales with it.
    const vram = (id: string) => prebuiltAppConfig.model_list.find((r) => r.model_id === id)?.vram_required_MB ?? NaN;
    const llama = { layers: 32, kvHeads: 8, headDim: 128 };
    for (const q of QUANTIZATIONS) {
      const listed = vram(`Llama-3.1-8B-Instruct-${q}-MLC`) - vram(`Llama-3.1-8B-Instruct-${q}-MLC-1k`);
      const computed = kvCacheMB(kvCacheBytesPerToken(llama, q), 3072);
      expect(computed / listed, q).toBeGreaterThan(0.9);
      expect(computed / listed, q).toBeLessThanOrEqual(1);
    }
  });

  it('gives the Qwen3 sizes per token of context', () => {
    expect(kvCacheBytesPerToken(QWEN3_KV_SHAPE['1.7B'], 'q4f16_1')).toBe(114_688);
    expect(kvCacheBytesPerToken(QWEN3_KV_SHAPE['8B'], 'q4f32_1')).toBe(294_912);
    // The largest custom window on a Qwen3 1.7B q4f16 build: 14 GB of cache.
    expect(kvCacheMB(kvCacheBytesPerToken(QWEN3_KV_SHAPE['1.7B'], 'q4f16_1'), 131_072)).toBe(14_336);
  });
});
