/**
 * The call policy: which tool calls run, which wait for a person's yes, which are refused.
 * Pure rules (no I/O), meant to be consulted through `CompiledPolicy.decide` before each call.
 */
export { compilePolicy } from './rules.js';
export type { AnnotationHints, CompiledPolicy, PolicyDecision, PolicyRules, PolicySubject, PolicyVerdict } from './rules.js';
export { parsePattern } from './patterns.js';
export type { ToolPattern } from './patterns.js';
export { editorPolicy, mergeRules } from './editor-fields.js';
