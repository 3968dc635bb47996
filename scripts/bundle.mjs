// The CLI bundled by esbuild (decision 0006, "CLI start-up, second pass"): `dist/cli/main.js` and the
// chunks its lazy `import()`s split into, all one folder below dist/, with the pure-JavaScript
// dependencies inside. Resolving and loading ~400 module files was most of the start-up of `tsuka ask`.
import { copyFileSync, mkdirSync, readdirSync, realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';
import { precompiledValidatorModules } from './precompile-validators.mjs';

/**
 * Left to node_modules: native add-ons (located on disk at run time), the platform SDKs (loaded by
 * `tsuka start` only, with optional native add-ons and `require.resolve` look-ups of their own), and
 * linkedom's optional `canvas`, and OpenTelemetry (loaded only when traces are exported; its gRPC
 * exporter reads .proto files beside itself). Everything else the sources import is bundled.
 */
export const EXTERNAL_PACKAGES = ['sqlite3', '@resvg/resvg-js', '@slack/*', 'discord.js', '@discordjs/*', 'canvas', '@opentelemetry/*'];

/**
 * Modules find files beside themselves through `import.meta.url` (schemas, the playground's web/).
 * In the bundle that URL is the chunk's, so each source's own is rewritten to where tsc would have
 * put it: every output file sits exactly one folder below dist/ (`cli/`, `chunks/`), so the same
 * relative path works from any of them, and the files stay where `copyAssets` puts them.
 */
function ownModuleUrl(sourceRoot) {
  return {
    name: 'own-module-url',
    setup(builder) {
      builder.onLoad({ filter: /\.ts$/ }, async (args) => {
        if (!args.path.startsWith(sourceRoot + path.sep)) return undefined;
        const contents = await readFile(args.path, 'utf8');
        if (!contents.includes('import.meta.url')) return { contents, loader: 'ts' };
        const compiled = path.relative(sourceRoot, args.path).replace(/\.ts$/, '.js').split(path.sep).join('/');
        const own = `new URL(${JSON.stringify(`../${compiled}`)}, import.meta.url).href`;
        return { contents: contents.replaceAll('import.meta.url', own), loader: 'ts' };
      });
    },
  };
}

/** Our own JSON Schemas' validators compiled at build time, standing in for `precompiled-validators.ts`. */
export function precompiledValidators(root) {
  const prefix = 'tsuka-precompiled:';
  return {
    name: 'precompiled-validators',
    setup(builder) {
      let generated;
      const modules = () => (generated ??= precompiledValidatorModules(root, prefix));
      builder.onLoad({ filter: /[\\/]src[\\/]core[\\/]validation[\\/]precompiled-validators\.ts$/ }, async () => ({
        contents: (await modules()).index,
        loader: 'js',
      }));
      builder.onResolve({ filter: /^tsuka-precompiled:/ }, (args) => ({ path: args.path.slice(prefix.length), namespace: 'precompiled' }));
      builder.onLoad({ filter: /.*/, namespace: 'precompiled' }, async (args) => ({
        contents: (await modules()).modules.get(args.path),
        loader: 'js',
        // The standalone code requires ajv's small runtime helpers (ucs2length, equal, uri).
        resolveDir: root,
      }));
    },
  };
}

/** Where `npm run build` keeps esbuild's metafile (what each output loads): tests/e2e/cli-bundle.test.ts reads it. */
export const METAFILE = '.bundle-metafile.json';

/** Bundles `<root>/src/cli/main.ts` into `<outdir>/cli/main.js` and `<outdir>/chunks/`. */
export async function bundleCli({ root, outdir }) {
  // Real paths: esbuild resolves symbolic links, and the plugins compare its paths with this one.
  const sourceRoot = realpathSync(path.join(root, 'src'));
  return build({
    absWorkingDir: root,
    entryPoints: { 'cli/main': path.join(sourceRoot, 'cli', 'main.ts') },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    chunkNames: 'chunks/[name]-[hash]',
    external: EXTERNAL_PACKAGES,
    sourcemap: 'linked',
    legalComments: 'linked',
    logLevel: 'warning',
    // Bundled CommonJS packages `require` Node's built-ins; an ES module has no `require` of its own.
    banner: { js: "import { createRequire as __tsukaCreateRequire } from 'node:module';\nconst require = __tsukaCreateRequire(import.meta.url);" },
    plugins: [precompiledValidators(root), ownModuleUrl(sourceRoot)],
    metafile: true,
  });
}

/** Copies the files the code reads from beside itself (JSON schemas, the playground's web/) from src/ to where they sit there. */
export function copyAssets(from, to) {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) copyAssets(source, target);
    else if (!entry.name.endsWith('.ts')) {
      mkdirSync(to, { recursive: true });
      copyFileSync(source, target);
    }
  }
}
