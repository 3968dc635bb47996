import type { ErrorObject } from 'ajv';
import type { ToolSchema } from './tool.js';

/**
 * Turns ajv errors into one message a small model can act on: which argument, what was
 * expected, and the parameters the tool takes.
 */
export function describeInputErrors(schema: ToolSchema, errors: readonly ErrorObject[], input: unknown): string {
  const reasons = [...new Set(errors.map((error) => describeError(error, input)))];
  return `Invalid arguments for ${schema.name}: ${reasons.join('; ')}. ${describeParameters(schema)}`;
}

/** `Parameters: path (string, required), offset (integer).` */
export function describeParameters(schema: ToolSchema): string {
  const properties = asRecord(schema.parameters.properties);
  const required = new Set(Array.isArray(schema.parameters.required) ? schema.parameters.required : []);
  const names = Object.keys(properties);
  if (names.length === 0) return `${schema.name} takes no parameters.`;
  const parts = names.map((name) => {
    const type = describeType(asRecord(properties[name]));
    return `${name} (${[type, required.has(name) ? 'required' : ''].filter(Boolean).join(', ')})`;
  });
  return `Parameters: ${parts.join(', ')}.`;
}

function describeError(error: ErrorObject, input: unknown): string {
  const path = argumentPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `missing required argument "${joinPath(path, String(params.missingProperty))}"`;
    case 'additionalProperties':
      return `unknown argument "${joinPath(path, String(params.additionalProperty))}"`;
    case 'type': {
      const actual = describeValue(valueAt(input, error.instancePath));
      return path ? `argument "${path}" must be ${String(params.type)}, got ${actual}` : `arguments must be an object, got ${actual}`;
    }
    case 'enum':
      return `argument "${path}" must be one of ${(params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`;
    default:
      return path ? `argument "${path}" ${error.message ?? 'is invalid'}` : (error.message ?? 'invalid arguments');
  }
}

function argumentPath(instancePath: string): string {
  return instancePath
    .split('/')
    .filter(Boolean)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');
}

function joinPath(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}

function valueAt(input: unknown, instancePath: string): unknown {
  let value = input;
  for (const part of instancePath.split('/').filter(Boolean)) {
    value = (value as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return value;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `a string (${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)})`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

function describeType(property: Record<string, unknown>): string {
  if (Array.isArray(property.enum)) return property.enum.map((value) => JSON.stringify(value)).join('|');
  if (property.type === 'array') {
    const items = asRecord(property.items);
    return typeof items.type === 'string' ? `array of ${items.type}` : 'array';
  }
  if (Array.isArray(property.type)) return property.type.join('|');
  return typeof property.type === 'string' ? property.type : 'any';
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
