import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The `parley/layers` rule: every import in src/ (static, dynamic, re-export or `import('…')` type)
 * is resolved against the importing file and checked against the table in eslint.layers.js, so a
 * relative path that climbs a layer is caught however many `../` it takes.
 */

/**
 * The layer a path under src/ belongs to: the longest key whose segments lead it, and the folder
 * that matched. An imported path may be the folder itself (its index); a file's own name is no folder.
 */
function layerOf(layers, relative, isFile) {
  const segments = relative.split(path.sep);
  let best = null;
  for (const key of Object.keys(layers)) {
    const keySegments = key.split('/');
    if (keySegments.length > segments.length - (isFile ? 1 : 0)) continue;
    if (!keySegments.every((s, i) => s === '*' || s === segments[i])) continue;
    if (best === null || keySegments.length > best.key.split('/').length) {
      best = { key, folder: segments.slice(0, keySegments.length).join('/') };
    }
  }
  return best;
}

const packageName = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

const isInside = (dir, file) => {
  const relative = path.relative(dir, file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
};

export default {
  // ESLint's cache (`npm run lint`) keeps a file's result while the file and the config's hash stay
  // the same; a plugin counts in that hash by its name and version alone, so the version is this
  // file's own hash: a change to the rule lints every file again.
  meta: {
    name: 'parley',
    version: createHash('sha256')
      .update(readFileSync(new URL(import.meta.url)))
      .digest('hex')
      .slice(0, 16),
  },
  rules: {
    layers: {
      meta: {
        type: 'problem',
        docs: { description: 'Imports in src/ go down the layers of eslint.layers.js only, and never into test/' },
        schema: [
          {
            type: 'object',
            properties: { src: { type: 'string' }, test: { type: 'string' }, layers: { type: 'object' } },
            required: ['src', 'test', 'layers'],
            additionalProperties: false,
          },
        ],
        messages: {
          climbs: "{{from}} may not import {{to}} ('{{specifier}}'); {{from}} imports only {{allowed}}",
          top: "{{from}} may not import '{{specifier}}', which is in no layer (src/main.ts stands above them all)",
          unlisted: 'src/{{folder}} is in no layer: add it to eslint.layers.js',
          package: "{{from}} may not import the package '{{specifier}}'; it imports only {{allowed}}",
          test: "src/ may not import test code ('{{specifier}}')",
        },
      },
      create(context) {
        const [{ src, test, layers }] = context.options;
        const file = context.filename;
        if (!isInside(src, file)) return {};
        const relative = path.relative(src, file);
        const from = layerOf(layers, relative, true);
        // Only the files directly in src/ (main.ts) stand above the layers; a new folder joins the table.
        const unlisted = from === null && path.dirname(relative) !== '.';
        const list = (names) => (names.length === 0 ? 'its own folder' : names.join(', '));

        function check(node, specifier) {
          const bare = specifier.split('?')[0];
          if (!bare.startsWith('.') && !bare.startsWith('/')) {
            const allowed = from && layers[from.key].packages;
            if (allowed && !allowed.includes(packageName(bare))) {
              context.report({ node, messageId: 'package', data: { from: from.folder, specifier, allowed: list(allowed) } });
            }
            return;
          }
          // A leading slash is the project root, as Vite reads it.
          const target = bare.startsWith('/') ? path.join(path.dirname(src), bare) : path.resolve(path.dirname(file), bare);
          if (target === test || isInside(test, target)) {
            context.report({ node, messageId: 'test', data: { specifier } });
            return;
          }
          if (from === null || !isInside(src, target)) return;
          const to = layerOf(layers, path.relative(src, target), false);
          if (to === null) {
            context.report({ node, messageId: 'top', data: { from: from.folder, specifier } });
          } else if (to.folder !== from.folder && !layers[from.key].imports.includes(to.key)) {
            const allowed = list(layers[from.key].imports);
            context.report({ node, messageId: 'climbs', data: { from: from.folder, to: to.folder, specifier, allowed } });
          }
        }

        const fromSource = (node) => {
          if (node.source?.type === 'Literal' && typeof node.source.value === 'string') check(node.source, node.source.value);
        };
        return {
          Program(node) {
            if (unlisted) context.report({ node, loc: { line: 1, column: 0 }, messageId: 'unlisted', data: { folder: path.dirname(relative) } });
          },
          ImportDeclaration: fromSource,
          ExportNamedDeclaration: fromSource,
          ExportAllDeclaration: fromSource,
          ImportExpression: fromSource,
          TSImportType: fromSource,
        };
      },
    },
  },
};
