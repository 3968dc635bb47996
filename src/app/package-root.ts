/** The package's folder (package.json, roles/, tools_schemas/ …): two folders above this module's, in src/ and in dist/. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
