// Svelte 5 understands TypeScript in <script lang="ts"> by itself; no preprocessor is needed.
export default {};
