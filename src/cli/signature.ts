/**
 * A tool's input schema as a line a person reads at a glance:
 * `read_file(path: string, tail?: number)`. Optional parameters carry `?`; enums show
 * their choices; anything the line cannot say simply (nested objects, `$ref`) is named by
 * its kind. The schema itself is never changed.
 */

type Schema = Record<string, unknown>;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** How many enum choices are shown before the rest is summarised. */
const MAX_CHOICES = 4;

/** The type of one property, in TypeScript-like words. */
export function typeText(schema: unknown, depth = 0): string {
  if (!isSchema(schema)) return 'any';
  if (Array.isArray(schema.enum)) {
    const choices = schema.enum.slice(0, MAX_CHOICES).map((choice) => JSON.stringify(choice));
    return schema.enum.length > MAX_CHOICES ? `${choices.join(' | ')} | ...` : choices.join(' | ');
  }
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const union = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(union) && depth < 2) return [...new Set(union.map((item) => typeText(item, depth + 1)))].join(' | ');
  if (Array.isArray(schema.type)) return schema.type.map((type: unknown) => typeText({ ...schema, type }, depth + 1)).join(' | ');
  switch (schema.type) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'null':
      return schema.type;
    case 'integer':
      return 'integer';
    case 'array': {
      const items = depth < 2 ? typeText(schema.items, depth + 1) : 'any';
      return items.includes(' ') ? `(${items})[]` : `${items}[]`;
    }
    case 'object':
      return 'object';
    default:
      return typeof schema.$ref === 'string' ? 'object' : 'any';
  }
}

/** `name(a: string, b?: number)`: the tool's parameters in the schema's order, required ones without `?`. */
export function toolSignature(name: string, inputSchema: unknown): string {
  const schema = isSchema(inputSchema) ? inputSchema : {};
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((key): key is string => typeof key === 'string') : []);
  const parameters = Object.entries(properties).map(([key, property]) => `${key}${required.has(key) ? '' : '?'}: ${typeText(property)}`);
  return `${name}(${parameters.join(', ')})`;
}

/** The JSON types a property's schema takes (`type`, or those of an `anyOf`/`oneOf`), or `undefined` when it says none. */
function acceptedTypes(schema: unknown): Set<string> | undefined {
  if (!isSchema(schema)) return undefined;
  if (Array.isArray(schema.enum)) return new Set(schema.enum.map((choice) => (choice === null ? 'null' : typeof choice)));
  if (typeof schema.type === 'string') return new Set([schema.type === 'integer' ? 'number' : schema.type]);
  if (Array.isArray(schema.type)) return new Set(schema.type.map((type: unknown) => (type === 'integer' ? 'number' : String(type))));
  const union = schema.anyOf ?? schema.oneOf;
  if (!Array.isArray(union)) return undefined;
  const types = new Set<string>();
  for (const option of union) {
    const inner = acceptedTypes(option);
    if (inner === undefined) return undefined;
    for (const type of inner) types.add(type);
  }
  return types;
}

function jsonType(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

/**
 * Fits `key=value` arguments to the tool's schema: a value typed as `5` or `true` for a
 * parameter that takes a string is sent as the text typed; then every argument whose
 * JSON type the schema does not take is named (never its value, which may be a secret),
 * so the person fixes it before the call is sent.
 */
export function fitArguments(inputSchema: unknown, args: Record<string, unknown>, typed: Record<string, string>): { args: Record<string, unknown>; problems: string[] } {
  const properties = isSchema(inputSchema) && isSchema(inputSchema.properties) ? inputSchema.properties : {};
  const fitted = { ...args };
  const problems: string[] = [];
  for (const [key, value] of Object.entries(fitted)) {
    const types = acceptedTypes(properties[key]);
    if (types === undefined) continue;
    if (!types.has(jsonType(value)) && types.has('string') && Object.hasOwn(typed, key)) fitted[key] = typed[key];
    const type = jsonType(fitted[key]);
    if (!types.has(type)) problems.push(`${key} takes ${[...types].join(' or ')}, not ${type === 'object' ? 'an object' : type === 'array' ? 'an array' : `a ${type}`}`);
  }
  return { args: fitted, problems };
}

/** The required parameters an argument object lacks. */
export function missingArguments(inputSchema: unknown, args: Record<string, unknown>): string[] {
  const schema = isSchema(inputSchema) ? inputSchema : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((key): key is string => typeof key === 'string') : [];
  return required.filter((key) => !Object.hasOwn(args, key));
}

/** The first line of a description, cut to `max` characters. */
export function firstLine(text: string | undefined, max = 80): string {
  const line = (text ?? '').trim().split(/\r?\n/, 1)[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
