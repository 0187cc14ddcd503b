import { fileURLToPath } from 'node:url';
import { defineConfig } from 'eslint/config';
import js from '@eslint/js';
import ts from 'typescript-eslint';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';
import svelteConfig from './svelte.config.js';
import { layers } from './eslint.layers.js';
import parley from './eslint.layer-rule.js';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));

// The recommended sets without type information: the type-aware ones took four times as long on two
// cores (91 s of CPU against 22 s) and found mostly `no-unsafe-*` on JSON that zod checks anyway.
export default defineConfig(
  { ignores: ['dist/', 'dist-bench/', 'dist-test/', 'test-results/', '.gl/', '.whl/', '.scratch/'] },
  js.configs.recommended,
  ts.configs.recommended,
  svelte.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.worker, ...globals.node } },
    rules: {
      // A leading underscore names what a destructuring leaves out (`{ oracle: _, ...kept }`).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // The control characters are the point: these patterns strip or test for them in untrusted text.
      'no-control-regex': 'off',
      // `{' '}` keeps a space beside an `{#if}` that the markup alone would drop.
      'svelte/no-useless-mustaches': 'off',
      // Maps and Sets here are built inside a $derived or replaced whole in a $state.raw, never mutated to redraw.
      'svelte/prefer-svelte-reactivity': 'off',
    },
  },
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: { parserOptions: { parser: ts.parser, svelteConfig } },
  },
  {
    files: ['test/**/*.ts'],
    // Tests read untyped JSON answers and edit parsed files to break them on purpose.
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['src/**/*.{ts,svelte}'],
    plugins: { parley },
    rules: { 'parley/layers': ['error', { src: here('./src'), test: here('./test'), layers }] },
  },
);
