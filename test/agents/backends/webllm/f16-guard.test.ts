/**
 * Parley's shader-f16 check in front of a WebLLM load, with a fake `navigator.gpu` (the adapter
 * with and without the feature, no adapter, no WebGPU) and WebLLM's own prebuilt records: its
 * Qwen3 records list no required feature, so WebLLM's own check cannot catch them.
 */
import { prebuiltAppConfig, type AppConfig } from '@mlc-ai/web-llm';
import { describe, expect, it } from 'vitest';
import { f32Alternative, guardShaderF16, needsShaderF16, shaderF16Message } from '../../../../src/agents/backends/webllm/f16-guard';
import type { AdapterLike, NavigatorLike } from '../../../../src/agents/backends/webllm/gpu';
import type { EngineLoader } from '../../../../src/agents/backends/webllm/pool';
import type { LoadedEngine } from '../../../../src/agents/backends/webllm/engine';
import { BackendError } from '../../../../src/agents/backends/types';
import { WEBLLM_MODEL_IDS } from '../../../../src/agents/specs';

function fakeNavigator(features: string[] | 'no-adapter' | 'no-webgpu'): NavigatorLike & { asked: number } {
  const nav = { asked: 0 } as NavigatorLike & { asked: number };
  if (features === 'no-webgpu') return nav;
  nav.gpu = {
    async requestAdapter(options) {
      nav.asked++;
      expect(options?.powerPreference).toBe('high-performance');
      if (features === 'no-adapter') return null;
      const adapter: AdapterLike = { features: new Set(features), limits: {}, info: { vendor: 'test', architecture: '', description: '' } };
      return adapter;
    },
  };
  return nav;
}

/** A loader that records what reached it. */
function innerLoader(): EngineLoader & { loaded: string[] } {
  const loaded: string[] = [];
  const loader: EngineLoader = async (modelId) => {
    loaded.push(modelId);
    return { unload: async () => undefined } as unknown as LoadedEngine;
  };
  return Object.assign(loader, { loaded });
}

describe('which builds need shader-f16', () => {
  it("reads every Qwen3 build Parley offers, none of which WebLLM's records mark", () => {
    const records = new Map(prebuiltAppConfig.model_list.map((r) => [r.model_id, r]));
    for (const id of WEBLLM_MODEL_IDS) {
      expect(records.get(id)?.required_features ?? [], id).not.toContain('shader-f16');
      expect(needsShaderF16(id), id).toBe(id.includes('q4f16'));
    }
  });

  it("agrees with WebLLM's records that do list the feature", () => {
    const marked = prebuiltAppConfig.model_list.filter((r) => r.required_features?.includes('shader-f16'));
    expect(marked.length).toBeGreaterThan(0);
    for (const r of marked) expect(needsShaderF16(r.model_id, prebuiltAppConfig), r.model_id).toBe(true);
  });

  it("reads a custom model's record: its features, or its library's file name", () => {
    const config = (lib: string, features?: string[]): AppConfig => ({
      model_list: [{ model: 'https://h/w/', model_id: 'mine', model_lib: lib, ...(features && { required_features: features }) }],
    });
    expect(needsShaderF16('mine', config('https://h/lib/Qwen3-1.7B-q4f16_1_cs1k-webgpu.wasm'))).toBe(true);
    expect(needsShaderF16('mine', config('/libs/Qwen3-1.7B-q4f32_1-webgpu.wasm?v=2'))).toBe(false);
    expect(needsShaderF16('mine', config('/libs/x.wasm', ['shader-f16']))).toBe(true);
    expect(needsShaderF16('Qwen3-1.7B-parley-q4f16_1-MLC')).toBe(true);
    expect(needsShaderF16('Qwen3-1.7B-parley-q4f32_1-MLC')).toBe(false);
    expect(needsShaderF16('notq4f16really')).toBe(false);
  });

  it('names the single-precision build', () => {
    expect(f32Alternative('Qwen3-4B-q4f16_1-MLC')).toBe('Qwen3-4B-q4f32_1-MLC');
    expect(f32Alternative('Llama-3.2-1B-Instruct-q0f16-MLC')).toBe('Llama-3.2-1B-Instruct-q0f32-MLC');
    expect(f32Alternative('Qwen3-4B-q4f32_1-MLC')).toBeNull();
    expect(shaderF16Message('Qwen3-4B-q4f16_1-MLC')).toContain('Choose its single-precision build, Qwen3-4B-q4f32_1-MLC, instead');
    expect(shaderF16Message('mine')).toContain('Choose a q4f32 build instead.');
  });
});

describe('the guard in front of the loader', () => {
  it('refuses a q4f16 build on a GPU without shader-f16 before loading, and lets q4f32 through', async () => {
    const nav = fakeNavigator([]);
    const inner = innerLoader();
    const load = guardShaderF16(inner, () => nav);
    const refused = await load('Qwen3-1.7B-q4f16_1-MLC', {}).then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(BackendError);
    expect((refused as BackendError).kind).toBe('gpu-lost');
    expect((refused as BackendError).message).toContain('Qwen3-1.7B-q4f32_1-MLC');
    await load('Qwen3-1.7B-q4f32_1-MLC', {});
    expect(inner.loaded).toEqual(['Qwen3-1.7B-q4f32_1-MLC']);
    // The adapter is asked once, and not for a build that does not need it.
    await load('Qwen3-0.6B-q4f16_1-MLC', {}).catch(() => undefined);
    expect(nav.asked).toBe(1);
  });

  it('loads a q4f16 build where the adapter has shader-f16', async () => {
    const inner = innerLoader();
    await guardShaderF16(inner, () => fakeNavigator(['shader-f16', 'timestamp-query']))('Qwen3-1.7B-q4f16_1-MLC', {});
    expect(inner.loaded).toEqual(['Qwen3-1.7B-q4f16_1-MLC']);
  });

  it("leaves a browser with no adapter or no WebGPU to WebLLM's own error", async () => {
    for (const nav of [fakeNavigator('no-adapter'), fakeNavigator('no-webgpu')]) {
      const inner = innerLoader();
      await guardShaderF16(inner, () => nav)('Qwen3-1.7B-q4f16_1-MLC', {});
      expect(inner.loaded).toEqual(['Qwen3-1.7B-q4f16_1-MLC']);
    }
  });
});
