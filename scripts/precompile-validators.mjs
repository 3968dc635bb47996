// Our own JSON Schemas compiled ahead of time (ajv's standalone code), so that no start of the
// bundled CLI compiles them — nor the JSON Schema meta-schema that ajv compiles before its first
// schema. Each schema module declares its `OwnSchema` (id, ajv options, schema); the bundle gets
// `src/core/validation/precompiled-validators.ts` replaced by these validators (bundle.mjs).
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Ajv } from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { tsImport } from 'tsx/esm/api';

/** Where each `OwnSchema` is declared: module under src/ → its exports that are one (or a record of them). */
export const OWN_SCHEMA_EXPORTS = {
  'core/data/roster-schemas.ts': ['ROSTER_SCHEMAS'],
  'core/provider/catalogue.ts': ['PROVIDERS_SCHEMA'],
  'core/tools/tool-schema-loader.ts': ['TOOL_SCHEMA_FILE_SCHEMA'],
  'core/tools/mcp/mcp-config.ts': ['MCP_CONFIG_SCHEMAS'],
  'config/config-file-schema.ts': ['CONFIG_FILE_SCHEMA'],
  'core/policy/policy-schema.ts': ['POLICY_SCHEMA'],
};

/** Every `OwnSchema` the sources under `root` declare. */
export async function ownSchemas(root) {
  const schemas = [];
  for (const [file, names] of Object.entries(OWN_SCHEMA_EXPORTS)) {
    const module = await tsImport(pathToFileURL(path.join(root, 'src', file)).href, import.meta.url);
    for (const name of names) {
      const value = module[name];
      if (!value) throw new Error(`src/${file} exports no ${name}`);
      schemas.push(...(typeof value.id === 'string' ? [value] : Object.values(value)));
    }
  }
  return schemas;
}

/**
 * One ES module per schema (ajv's standalone code, exporting `validate`), and the module that stands
 * in for precompiled-validators.ts, importing each of them from `<prefix><id>`.
 */
export async function precompiledValidatorModules(root, prefix) {
  const modules = new Map();
  const ids = [];
  for (const schema of await ownSchemas(root)) {
    if (!/^[A-Za-z_$][\w$]*$/.test(schema.id) || ids.includes(schema.id)) throw new Error(`own schema id "${schema.id}" is not a unique identifier`);
    const ajv = new Ajv({ ...schema.options, code: { ...schema.options.code, source: true, esm: true } });
    ajv.addSchema(schema.load(), schema.id);
    modules.set(schema.id, standaloneCode.default(ajv, { validate: schema.id }));
    ids.push(schema.id);
  }
  const imports = ids.map((id) => `import { validate as ${id} } from ${JSON.stringify(prefix + id)};`).join('\n');
  const index = `${imports}\nexport const PRECOMPILED_VALIDATORS = { ${ids.join(', ')} };\n`;
  return { index, modules };
}
