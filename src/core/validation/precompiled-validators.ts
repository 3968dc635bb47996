/**
 * The validators `npm run build` compiled ahead of time, by schema id. Running from the sources there
 * are none (each is compiled when first used); in the bundle, scripts/precompile-validators.mjs
 * replaces this module with ajv's standalone code for every schema listed there.
 */
import type { ValidateFunction } from 'ajv';

export const PRECOMPILED_VALIDATORS: Readonly<Record<string, ValidateFunction | undefined>> = {};
