/**
 * A form elicitation's fields as the terminal asks them: read from the requested schema,
 * each answer parsed and checked against its field, and written as a question with its
 * hint and choices.
 */
import type { McpFormElicitation } from '../mcp/calls/interaction.js';
import type { CliIO, Colors } from './output.js';
import { terminalSafe } from './terminal-text.js';

/** A form value, as `McpElicitationResult.content` holds them. */
export type Value = string | number | boolean | string[];

/** A numbered choice typed as its number, 1 to `count`. */
export function choiceNumber(text: string, count: number): number | undefined {
  if (!/^\d+$/.test(text)) return undefined;
  const number = Number(text);
  return number >= 1 && number <= count ? number : undefined;
}

interface Choice {
  value: string;
  label: string;
}

export interface Field {
  name: string;
  label: string;
  description: string;
  kind: 'string' | 'number' | 'integer' | 'boolean' | 'choice' | 'choices' | 'list';
  choices: Choice[];
  required: boolean;
  /** The schema's default, only if it fits the field. */
  fallback: Value | undefined;
  schema: Record<string, unknown>;
}

type Parsed = { value: Value | undefined } | { problem: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function finiteNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** Choices from `enum` (labels from the legacy `enumNames`) or from `oneOf`/`anyOf` entries of `{ const, title }`. */
function choicesOf(schema: Record<string, unknown>): Choice[] {
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) && schema.enumNames.length === schema.enum.length ? schema.enumNames : undefined;
    return schema.enum.flatMap((value: unknown, index) => {
      if (typeof value !== 'string') return [];
      const name: unknown = names?.[index];
      return [{ value, label: typeof name === 'string' ? name : value }];
    });
  }
  const entries: unknown = schema.oneOf ?? schema.anyOf;
  if (!Array.isArray(entries)) return [];
  return entries.flatMap((entry: unknown) => {
    if (!isRecord(entry) || typeof entry.const !== 'string') return [];
    return [{ value: entry.const, label: typeof entry.title === 'string' ? entry.title : entry.const }];
  });
}

function fieldOf(name: string, property: unknown, required: boolean): Field {
  const schema = isRecord(property) ? property : {};
  const titled = typeof schema.title === 'string' ? terminalSafe(schema.title) : '';
  const base = {
    name,
    label: titled === '' ? terminalSafe(name) : titled,
    description: typeof schema.description === 'string' ? terminalSafe(schema.description) : '',
    required,
    schema,
  };
  let kind: Field['kind'];
  let choices: Choice[] = [];
  if (schema.type === 'array') {
    choices = choicesOf(isRecord(schema.items) ? schema.items : {});
    kind = choices.length > 0 ? 'choices' : 'list';
  } else if (schema.type === 'number' || schema.type === 'integer' || schema.type === 'boolean') {
    kind = schema.type;
  } else {
    choices = choicesOf(schema);
    kind = choices.length > 0 ? 'choice' : 'string';
  }
  const field: Field = { ...base, kind, choices: choices.map((choice) => ({ value: choice.value, label: terminalSafe(choice.label) })), fallback: undefined };
  // A default that does not fit would be sent as the answer and fail the whole form.
  if (schema.default !== undefined && fits(field, schema.default as Value) === undefined) field.fallback = schema.default as Value;
  return field;
}

/** The fields of a form's schema, in its order. */
export function formFields(schema: McpFormElicitation['requestedSchema'] | undefined): Field[] {
  const properties = isRecord(schema?.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema?.required) ? schema.required : []);
  return Object.entries(properties).map(([name, property]) => fieldOf(name, property, required.has(name)));
}

const FORMATS: Record<string, { test: (text: string) => boolean; expected: string }> = {
  email: { test: (text) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text), expected: 'an email address (name@example.com)' },
  uri: {
    test: (text) => {
      try {
        return new URL(text).protocol !== '';
      } catch {
        return false;
      }
    },
    expected: 'a URL with its scheme (https://...)',
  },
  date: {
    test: (text) => {
      const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
      if (match === null) return false;
      // Date.UTC rolls 2024-02-30 over into March: the day must survive the round trip.
      const [year, month, day] = match.slice(1).map(Number) as [number, number, number];
      const date = new Date(Date.UTC(year, month - 1, day));
      return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
    },
    expected: 'a date as YYYY-MM-DD',
  },
  'date-time': {
    test: (text) => /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:\d{2})$/.test(text) && !Number.isNaN(Date.parse(text)),
    expected: 'a date and time as YYYY-MM-DDTHH:MM:SSZ (or with an offset)',
  },
};

function bounds(low: number | undefined, high: number | undefined, unit: string): string | undefined {
  if (low !== undefined && high !== undefined) return `${low} to ${high}${unit}`;
  if (low !== undefined) return `at least ${low}${unit}`;
  if (high !== undefined) return `at most ${high}${unit}`;
  return undefined;
}

/** Why a value does not fit the field's schema, or `undefined`. */
function fits(field: Field, value: Value): string | undefined {
  const { schema } = field;
  switch (field.kind) {
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'not yes or no';
    case 'number':
    case 'integer': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return `not a ${field.kind}`;
      if (field.kind === 'integer' && !Number.isSafeInteger(value)) return 'not a whole number';
      const low = finiteNumber(schema.minimum);
      const high = finiteNumber(schema.maximum);
      return (low !== undefined && value < low) || (high !== undefined && value > high) ? `must be ${bounds(low, high, '')}` : undefined;
    }
    case 'choice':
      return typeof value === 'string' && field.choices.some((choice) => choice.value === value) ? undefined : 'not one of the choices';
    case 'choices':
    case 'list': {
      if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) return 'not a list';
      if (field.kind === 'choices' && !value.every((item) => field.choices.some((choice) => choice.value === item))) return 'not among the choices';
      const low = finiteNumber(schema.minItems);
      const high = finiteNumber(schema.maxItems);
      return (low !== undefined && value.length < low) || (high !== undefined && value.length > high) ? `choose ${bounds(low, high, '')}` : undefined;
    }
    case 'string': {
      if (typeof value !== 'string') return 'not text';
      const length = [...value].length;
      const low = finiteNumber(schema.minLength);
      const high = finiteNumber(schema.maxLength);
      if ((low !== undefined && length < low) || (high !== undefined && length > high)) return `must be ${bounds(low, high, ' characters')}`;
      const format = typeof schema.format === 'string' ? FORMATS[schema.format] : undefined;
      return format === undefined || format.test(value) ? undefined : `not ${format.expected}`;
    }
  }
}

const YES = new Set(['y', 'yes', 'true']);
const NO = new Set(['n', 'no', 'false']);

export function yesNo(text: string): boolean | undefined {
  const word = text.trim().toLowerCase();
  return YES.has(word) ? true : NO.has(word) ? false : undefined;
}

/** One choice by its number, value or label. */
function pick(field: Field, text: string): string | undefined {
  const number = choiceNumber(text, field.choices.length);
  if (number !== undefined) return field.choices[number - 1]!.value;
  const exact = field.choices.find((choice) => choice.value === text || choice.label === text);
  if (exact !== undefined) return exact.value;
  const folded = field.choices.filter((choice) => choice.value.toLowerCase() === text.toLowerCase() || choice.label.toLowerCase() === text.toLowerCase());
  return folded.length === 1 ? folded[0]!.value : undefined;
}

/** The person's text as the field's value, or a one-line reason to ask again. An empty answer takes the default, or leaves an optional field out. */
export function parse(field: Field, typed: string): Parsed {
  const text = field.kind === 'string' ? typed : typed.trim();
  if (text === '') {
    if (field.fallback !== undefined) return { value: field.fallback };
    if (field.required) return { problem: 'required: type a value' };
    return { value: undefined };
  }
  let value: Value;
  switch (field.kind) {
    case 'boolean': {
      const answer = yesNo(text);
      if (answer === undefined) return { problem: 'not yes or no: type y or n' };
      value = answer;
      break;
    }
    case 'number':
      if (!/^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/.test(text)) return { problem: 'not a number: type digits, like 42 or 3.5' };
      value = Number(text);
      break;
    case 'integer':
      if (!/^[+-]?\d+$/.test(text)) return { problem: 'not an integer: type a whole number, like 42' };
      value = Number(text);
      break;
    case 'choice': {
      const choice = pick(field, text);
      if (choice === undefined) return { problem: `not one of the choices: type its number (1 to ${field.choices.length})` };
      value = choice;
      break;
    }
    case 'choices': {
      const picked: string[] = [];
      for (const part of text.split(',').map((item) => item.trim()).filter((item) => item !== '')) {
        const choice = pick(field, part);
        if (choice === undefined) return { problem: `"${terminalSafe(part, { limit: 40 })}" is not one of the choices: type their numbers, separated by commas` };
        if (!picked.includes(choice)) picked.push(choice);
      }
      value = picked;
      break;
    }
    case 'list':
      value = text.split(',').map((item) => item.trim()).filter((item) => item !== '');
      break;
    case 'string':
      value = text;
      break;
  }
  const problem = fits(field, value);
  return problem === undefined ? { value } : { problem };
}

/** A value as the person would type it. */
function shown(field: Field, value: Value): string {
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  const label = (item: string): string => field.choices.find((choice) => choice.value === item)?.label ?? terminalSafe(item);
  if (Array.isArray(value)) return value.map(label).join(', ');
  return field.kind === 'choice' ? label(String(value)) : terminalSafe(String(value));
}

/** What kind of answer the field takes, in a few words. */
function hint(field: Field): string {
  const { schema } = field;
  const parts: string[] = [];
  switch (field.kind) {
    case 'string': {
      parts.push(typeof schema.format === 'string' && FORMATS[schema.format] !== undefined ? `string, ${schema.format}` : 'string');
      const length = bounds(finiteNumber(schema.minLength), finiteNumber(schema.maxLength), ' characters');
      if (length !== undefined) parts.push(length);
      break;
    }
    case 'number':
    case 'integer': {
      parts.push(field.kind);
      const range = bounds(finiteNumber(schema.minimum), finiteNumber(schema.maximum), '');
      if (range !== undefined) parts.push(range);
      break;
    }
    case 'boolean':
      parts.push('boolean, y/n');
      break;
    case 'choice':
      parts.push('choose one');
      break;
    case 'choices': {
      parts.push('choose any, comma-separated');
      const count = bounds(finiteNumber(schema.minItems), finiteNumber(schema.maxItems), '');
      if (count !== undefined) parts.push(count);
      break;
    }
    case 'list':
      parts.push('list, comma-separated');
      break;
  }
  parts.push(field.required ? 'required' : 'optional');
  if (field.fallback !== undefined) parts.push(`default: ${shown(field, field.fallback)}`);
  return parts.join(', ');
}

export function writeField(io: CliIO, colors: Colors, field: Field): void {
  io.stderr.write(`${colors.bold(field.label)} ${colors.dim(`(${hint(field)})`)}${field.required ? colors.red(' *') : ''}\n`);
  if (field.description !== '') io.stderr.write(`  ${colors.dim(field.description)}\n`);
  const defaults = Array.isArray(field.fallback) ? field.fallback : [field.fallback];
  field.choices.forEach((choice, index) => {
    io.stderr.write(`  ${colors.cyan(`${index + 1})`)} ${choice.label}${defaults.includes(choice.value) ? colors.dim(' (default)') : ''}\n`);
  });
}
