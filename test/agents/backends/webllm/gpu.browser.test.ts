/**
 * The real WebGPU check in headless Chromium, started with --enable-unsafe-webgpu: its only
 * adapter is SwiftShader, a software GPU without shader-f16.
 */
import { describe, expect, it } from 'vitest';
import { checkWebGpu } from '../../../../src/agents/backends/webllm/gpu';
import { listModels } from '../../../../src/agents/backends/webllm/engine';
import { WEBLLM_MODEL_IDS } from '../../../../src/agents/specs';
import { guardShaderF16 } from '../../../../src/agents/backends/webllm/f16-guard';
import type { LoadedEngine } from '../../../../src/agents/backends/webllm/engine';
import type { NavigatorLike } from '../../../../src/agents/backends/webllm/gpu';

describe('checkWebGpu in Chromium (SwiftShader)', () => {
  it('finds the software adapter, says it has no shader-f16 and offers the q4f32 builds', async () => {
    // WebLLM's list as the app reads it: from an engine worker.
    const report = await checkWebGpu(navigator, { modelList: (await listModels(WEBLLM_MODEL_IDS)).models });
    expect(report.adapter).not.toBeNull();
    expect(report.adapter?.fallback).toBe(true);
    expect(report.shaderF16).toBe(false);
    expect(report.quantization).toBe('q4f32_1');
    expect(report.findings.map((f) => f.code)).toEqual(['no-shader-f16', 'software-adapter']);
    expect(report.findings.every((f) => !f.blocking)).toBe(true);
    expect(report.summary).toContain('This GPU has no shader-f16, so the q4f32 builds are used');
    expect(report.summary).toContain('software GPU');
    expect(report.models.map((m) => m.model.id)).toEqual(['Qwen3-0.6B-q4f32_1-MLC', 'Qwen3-1.7B-q4f32_1-MLC', 'Qwen3-4B-q4f32_1-MLC', 'Qwen3-8B-q4f32_1-MLC']);
    // Chromium's adapter meets WebLLM's limits, and this browser reports its memory.
    expect(report.canRun).toBe(true);
    expect(typeof (navigator as Navigator & { deviceMemory?: number }).deviceMemory).toBe('number');
    expect(report.models[0]?.fit).not.toBe('no');
  });

  it('refuses a q4f16 build before loading on this adapter, and lets the q4f32 build through', async () => {
    const loaded: string[] = [];
    const load = guardShaderF16(
      async (modelId) => {
        loaded.push(modelId);
        return {} as LoadedEngine;
      },
      () => navigator as NavigatorLike,
    );
    await expect(load('Qwen3-0.6B-q4f16_1-MLC', {})).rejects.toThrow(
      'Qwen3-0.6B-q4f16_1-MLC needs the GPU feature shader-f16, which this GPU lacks, so it cannot load here. Choose its single-precision build, Qwen3-0.6B-q4f32_1-MLC, instead',
    );
    await load('Qwen3-0.6B-q4f32_1-MLC', {});
    expect(loaded).toEqual(['Qwen3-0.6B-q4f32_1-MLC']);
  });
});
