/**
 * The Qwen3 models Parley offers, picked from WebLLM's own prebuilt list (the only source of
 * which model builds this WebLLM version can load). Only types come from `@mlc-ai/web-llm`
 * here; the list itself is read in the engine worker and handed on as ModelListEntry values.
 */
import type { ModelRecord } from '@mlc-ai/web-llm';
import { z } from 'zod';

export const QWEN3_SIZES = ['0.6B', '1.7B', '4B', '8B'] as const;
export type Qwen3Size = (typeof QWEN3_SIZES)[number];

/** q4f16_1 needs the adapter's `shader-f16`; q4f32_1 runs on any WebGPU adapter. */
export const QUANTIZATIONS = ['q4f16_1', 'q4f32_1'] as const;
export type Quantization = (typeof QUANTIZATIONS)[number];

/** The fields of WebLLM's ModelRecord that Parley reads: what crosses from the engine worker. */
export const ModelListEntrySchema = z.object({
  model_id: z.string().min(1).max(200),
  vram_required_MB: z.number().optional(),
  low_resource_required: z.boolean().optional(),
  buffer_size_required_bytes: z.number().optional(),
  required_features: z.array(z.string().max(100)).max(32).optional(),
});
export type ModelListEntry = z.infer<typeof ModelListEntrySchema>;

/** A record of WebLLM's list cut to what Parley reads. */
export function modelListEntry(record: ModelRecord): ModelListEntry {
  const entry: ModelListEntry = { model_id: record.model_id };
  if (record.vram_required_MB !== undefined) entry.vram_required_MB = record.vram_required_MB;
  if (record.low_resource_required !== undefined) entry.low_resource_required = record.low_resource_required;
  if (record.buffer_size_required_bytes !== undefined) entry.buffer_size_required_bytes = record.buffer_size_required_bytes;
  if (record.required_features !== undefined) entry.required_features = [...record.required_features];
  return entry;
}

export const quantizationFor = (shaderF16: boolean): Quantization => (shaderF16 ? 'q4f16_1' : 'q4f32_1');

/** WebLLM's id for one build, e.g. `Qwen3-1.7B-q4f16_1-MLC`. */
export const qwen3ModelId = (size: Qwen3Size, quantization: Quantization): string => `Qwen3-${size}-${quantization}-MLC`;

/**
 * Parameter counts from the Qwen3 model cards (embeddings included; 0.6B to 4B tie them to the
 * output layer, 8B does not).
 */
export const QWEN3_PARAMETERS: Record<Qwen3Size, number> = {
  '0.6B': 0.6e9,
  '1.7B': 1.7e9,
  '4B': 4.0e9,
  '8B': 8.2e9,
};

/**
 * Bits stored per weight: 4-bit weights in groups of 32 with one scale per group, an f16 scale
 * (q4f16_1: 4 + 16/32) or an f32 one (q4f32_1: 4 + 32/32).
 */
export const BITS_PER_WEIGHT: Record<Quantization, number> = { q4f16_1: 4.5, q4f32_1: 5 };

/**
 * The attention cache's size per token of context: keys and values for every layer and KV head,
 * at 2 bytes a value in the f16 builds and 4 in the f32 ones. WebLLM allocates it for the whole
 * context window when it loads a model, so the memory a model needs grows with the window; the
 * prebuilt records' `vram_required_MB` are for their window (4,096 for Qwen3). Qwen3's shapes are
 * from its model cards' configurations (28 layers for 0.6B and 1.7B, 36 for 4B and 8B; 8 KV heads
 * of 128 values each).
 */
export const QWEN3_KV_SHAPE: Record<Qwen3Size, { layers: number; kvHeads: number; headDim: number }> = {
  '0.6B': { layers: 28, kvHeads: 8, headDim: 128 },
  '1.7B': { layers: 28, kvHeads: 8, headDim: 128 },
  '4B': { layers: 36, kvHeads: 8, headDim: 128 },
  '8B': { layers: 36, kvHeads: 8, headDim: 128 },
};

export const kvCacheBytesPerToken = (shape: { layers: number; kvHeads: number; headDim: number }, quantization: Quantization): number =>
  shape.layers * shape.kvHeads * shape.headDim * 2 * (quantization === 'q4f16_1' ? 2 : 4);

/** MB (2^20 bytes) of attention cache for `tokens` of context. */
export const kvCacheMB = (bytesPerToken: number, tokens: number): number => (bytesPerToken * tokens) / 2 ** 20;

/** Tokenizer, configuration and the compiled model library, downloaded beside the weights. */
export const DOWNLOAD_OVERHEAD_MB = 15;

const MB = 2 ** 20;

/**
 * WebLLM's model list gives the memory a model needs but not its download size, so the download
 * is estimated as parameters × bits per weight, plus the small files, rounded to 10 MB.
 */
export function estimateDownloadMB(size: Qwen3Size, quantization: Quantization): number {
  const weights = (QWEN3_PARAMETERS[size] * BITS_PER_WEIGHT[quantization]) / 8 / MB;
  return Math.round((weights + DOWNLOAD_OVERHEAD_MB) / 10) * 10;
}

export interface Qwen3Model {
  /** WebLLM's model_id, as `CreateWebWorkerMLCEngine` and the cache functions take it. */
  id: string;
  size: Qwen3Size;
  /** For people: "Qwen3 1.7B (q4f16)". */
  label: string;
  parameters: number;
  quantization: Quantization;
  /** Estimated download, in MB (2^20 bytes); see estimateDownloadMB. */
  downloadMB: number;
  /** GPU memory the model needs, in MB, from WebLLM's list; null where the list does not say. */
  vramRequiredMB: number | null;
  /** WebLLM marks it as able to run on small devices (phones). */
  lowResource: boolean;
  /** Largest storage buffer binding the model needs, where WebLLM's list says. */
  bufferSizeRequiredBytes?: number;
  /** WebGPU features WebLLM's list says the build needs (it leaves `shader-f16` out for Qwen3). */
  requiredFeatures: string[];
}

/**
 * The Qwen3 builds this adapter should use, smallest first: q4f16_1 with `shader-f16`, q4f32_1
 * without. A size missing from the list (a WebLLM version that dropped it) is left out.
 */
export function qwen3Models(modelList: readonly ModelListEntry[], gpu: { shaderF16: boolean }): Qwen3Model[] {
  const quantization = quantizationFor(gpu.shaderF16);
  const byId = new Map(modelList.map((record) => [record.model_id, record]));
  return QWEN3_SIZES.flatMap((size): Qwen3Model[] => {
    const id = qwen3ModelId(size, quantization);
    const record = byId.get(id);
    if (!record) return [];
    const vram = record.vram_required_MB;
    const model: Qwen3Model = {
      id,
      size,
      label: `Qwen3 ${size} (${quantization.replace(/_\d+$/, '')})`,
      parameters: QWEN3_PARAMETERS[size],
      quantization,
      downloadMB: estimateDownloadMB(size, quantization),
      vramRequiredMB: typeof vram === 'number' && Number.isFinite(vram) && vram > 0 ? vram : null,
      lowResource: record.low_resource_required ?? false,
      requiredFeatures: [...(record.required_features ?? [])],
    };
    if (record.buffer_size_required_bytes !== undefined) model.bufferSizeRequiredBytes = record.buffer_size_required_bytes;
    return [model];
  });
}
