/**
 * From text to search terms, the same way for a tool's fields and for a query: words split
 * where a person sees word boundaries (`git_commit`, `createIssue`, `list-pods`,
 * `HTTPServer`), lowercased with accents removed; then function words dropped (so "the"
 * and "a" never match) and each word reduced to its stem (commit, commits, committed).
 * Stemming is the Porter algorithm of the `stemmer` package: small, dependency-free and
 * the common choice for English retrieval; tool vocabulary is English almost always.
 */
import { stemmer } from 'stemmer';

/**
 * English function words, and the filler of requests ("please", "want", "need") and of tool
 * descriptions ("use", "allows"). They carry no sign of which tool is meant, and long
 * descriptions hold hundreds of them.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an the and or but nor so yet if then else than as of at by for from in into onto on off out over under ' +
    'to up down with within without about above below between through during before after again further once ' +
    'is am are was were be been being has have had having do does did doing will would shall should can could ' +
    'may might must i me my mine myself we us our ours you your yours he him his she her it its they them their ' +
    'this that these those there here what which who whom whose when where why how all any both each few more ' +
    'most other some such no not only own same too very just also s t e g eg ie etc via per ' +
    'please want wants need needs like would let lets help me something thing things way ' +
    'use uses used using allow allows allowed able tool tools given'
  ).split(' '),
);

/**
 * Splits a run of letters and digits at case changes: `createIssue` → create, Issue;
 * `HTTPServer` → HTTP, Server; an acronym's plural stays whole: `listPRs` → list, PRs.
 */
const HUMPS = /[\p{Lu}]{2,}s(?![\p{Ll}])|[\p{Lu}]+(?![\p{Ll}])|[\p{Lu}]?[\p{Ll}]+|[\p{N}]+[\p{Ll}]*|[\p{L}]+/gu;

/**
 * The words of `text`, lowercased, accents removed, in order. Letters and digits that
 * stand together stay one word (`s3`, `k8s`, `ec2`, `oauth2`).
 */
export function words(text: string): string[] {
  const result: string[] = [];
  // NFKD splits an accented letter into the letter and its mark, and the marks go: café is cafe.
  for (const run of text.normalize('NFKD').replace(/\p{M}+/gu, '').match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (/^[\p{Ll}\p{N}]+$/u.test(run) || /^[\p{Lu}\p{N}]+$/u.test(run)) {
      result.push(run.toLowerCase());
      continue;
    }
    for (const part of mergeDigitParts(run.match(HUMPS) ?? [run])) result.push(part.toLowerCase());
  }
  return result;
}

/** `K8s` is split as K, 8s by the humps, `getS3Object` as get, S, 3, Object: letters and digits written together are one word. */
function mergeDigitParts(parts: readonly string[]): string[] {
  const merged: string[] = [];
  for (const part of parts) {
    const last = merged.at(-1);
    if (last !== undefined && /^\p{N}/u.test(part) && /^\p{L}{1,3}$/u.test(last) && part.length <= 4) merged[merged.length - 1] = last + part;
    else merged.push(part);
  }
  return merged;
}

/** A word's search term: its stem, or `undefined` for a function word or a single letter. */
export function termOf(word: string): string | undefined {
  if (word.length < 2 && !/\p{N}/u.test(word)) return undefined;
  if (STOP_WORDS.has(word)) return undefined;
  // Words with digits (s3, ec2, v2) and short abbreviations are names, not English to stem.
  if (word.length <= 3 || /\p{N}/u.test(word)) return word;
  return stemmer(word);
}

/** The search terms of `text`, in order, repeats kept (they count). */
export function termsOf(text: string): string[] {
  const terms: string[] = [];
  for (const word of words(text)) {
    const term = termOf(word);
    if (term !== undefined) terms.push(term);
  }
  return terms;
}
