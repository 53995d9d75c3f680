/**
 * Every model API wants a tool's parameters to be one object schema at the root: no
 * `anyOf`/`oneOf`/`allOf` there (Anthropic and OpenAI answer 400 to them). A root
 * union of objects becomes one object holding every branch's properties, where only
 * what every branch requires stays required, so it still accepts every value the
 * union accepted.
 */
import { type ChangeLog, copySchema, isSchemaNode, resolveLocalRef, type SchemaNode, typesOf } from './schema-tools.js';
import type { JsonSchema } from '../core/tool.js';

const ROOT_UNIONS = ['anyOf', 'oneOf'] as const;
/** Root keywords that constrain the whole arguments object and have no place in an object root. */
const ROOT_REFUSED = ['not', 'if', 'then', 'else', 'enum', 'const'] as const;

function requiredOf(schema: SchemaNode): string[] {
  return Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : [];
}

/** Adds `branch`'s properties to `into` where `into` has none of that name yet (an `allOf` member's are all required of a value, so the first is a wider stand-in). */
function mergeProperties(into: SchemaNode, branch: SchemaNode): void {
  if (!isSchemaNode(branch.properties)) return;
  const properties = isSchemaNode(into.properties) ? into.properties : {};
  for (const [name, schema] of Object.entries(branch.properties)) if (!(name in properties)) properties[name] = schema;
  into.properties = properties;
}

/** A branch of a root combinator, its `$ref` looked up in the root. */
function branchSchema(root: SchemaNode, branch: unknown): SchemaNode | undefined {
  if (!isSchemaNode(branch)) return undefined;
  if (typeof branch.$ref === 'string') return resolveLocalRef(root, branch.$ref) ?? branch;
  return branch;
}

/**
 * The union's properties on `root`: a property several branches declare differently (the
 * discriminator of a tagged union) takes any of their schemas.
 */
function unionProperties(root: SchemaNode, branches: SchemaNode[]): void {
  const schemas = new Map<string, unknown[]>();
  for (const branch of branches) {
    if (!isSchemaNode(branch.properties)) continue;
    for (const [name, schema] of Object.entries(branch.properties)) {
      const known = schemas.get(name) ?? [];
      if (!known.some((other) => JSON.stringify(other) === JSON.stringify(schema))) known.push(schema);
      schemas.set(name, known);
    }
  }
  const properties = isSchemaNode(root.properties) ? root.properties : {};
  for (const [name, known] of schemas) if (!(name in properties)) properties[name] = known.length === 1 ? known[0] : { anyOf: known };
  if (schemas.size > 0) root.properties = properties;
}

function flattenUnion(root: SchemaNode, keyword: 'anyOf' | 'oneOf', log: ChangeLog): void {
  const branches = (Array.isArray(root[keyword]) ? root[keyword] : []).map((branch) => branchSchema(root, branch));
  delete root[keyword];
  const objects = branches.filter((branch): branch is SchemaNode => branch !== undefined);
  unionProperties(root, objects);
  // Only what every branch requires is required of the merged object.
  const sets = objects.map((branch) => new Set(requiredOf(branch)));
  const shared = sets.length === 0 ? [] : [...sets[0]!].filter((name) => sets.every((set) => set.has(name)));
  const required = [...new Set([...requiredOf(root), ...shared])];
  if (required.length > 0) root.required = required;
  log.add('rewritten', `/${keyword}`, `the root "${keyword}" was merged into one object: every branch's properties (any branch's schema where they differ), required only where every branch requires them.`);
}

function flattenAllOf(root: SchemaNode, log: ChangeLog): void {
  const branches = (Array.isArray(root.allOf) ? root.allOf : []).map((branch) => branchSchema(root, branch));
  delete root.allOf;
  const required = new Set(requiredOf(root));
  for (const branch of branches) {
    if (branch === undefined) continue;
    mergeProperties(root, branch);
    for (const name of requiredOf(branch)) required.add(name);
  }
  if (required.size > 0) root.required = [...required];
  log.add('rewritten', '/allOf', 'the root "allOf" was merged into one object holding every member\'s properties and requirements.');
}

/** A root that is only a `$ref` to one of its definitions takes that definition's keywords. */
function inlineRootRef(root: SchemaNode, log: ChangeLog): void {
  if (typeof root.$ref !== 'string') return;
  const target = resolveLocalRef(root, root.$ref);
  if (target === undefined || target === root) return;
  delete root.$ref;
  for (const [key, value] of Object.entries(target)) if (!(key in root)) root[key] = value;
  log.add('rewritten', '/$ref', 'the root "$ref" was replaced by the definition it names.');
}

/**
 * A copy of `parameters` whose root is an object schema with `properties`: a
 * non-object root is replaced, root combinators are merged, and root-level
 * constraints no API takes there are dropped. Each change goes to `log`.
 */
export function objectRoot(parameters: JsonSchema, log: ChangeLog): SchemaNode {
  if (!isSchemaNode(parameters)) {
    log.add('rewritten', '', 'the parameters were not a schema object and were replaced by an empty object schema.');
    return { type: 'object', properties: {} };
  }
  const root = copySchema(parameters);
  inlineRootRef(root, log);
  const types = typesOf(root);
  if (types.length > 0 && !(types.length === 1 && types[0] === 'object')) {
    log.add('rewritten', '/type', `the root type ${JSON.stringify(root.type)} was replaced by "object": tool arguments are always an object.`);
  } else if (types.length === 0) log.add('added', '/type', 'the root was given "type": "object".');
  root.type = 'object';
  for (const keyword of ROOT_UNIONS) if (keyword in root) flattenUnion(root, keyword, log);
  if ('allOf' in root) flattenAllOf(root, log);
  for (const keyword of ROOT_REFUSED) {
    if (keyword in root) {
      delete root[keyword];
      log.dropped('', keyword, 'model APIs take only an object schema at the root');
    }
  }
  if (!isSchemaNode(root.properties)) {
    if ('properties' in root) log.add('rewritten', '/properties', '"properties" was not an object and was replaced by an empty one.');
    root.properties = {};
  }
  return root;
}
