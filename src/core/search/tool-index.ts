/**
 * Ranked search over a tool catalog. Each tool is indexed once (BM25F over its name, title,
 * description, parameters and server); the index follows the catalog tool by tool, so a
 * server that publishes a new catalog costs only its own tools. A query is read as
 * concepts, one per content word or known phrase, each looked for as itself, as its
 * synonyms, as the longer words it begins, or, for a word no tool uses, as the word it most
 * likely misspells; a tool scores by the concepts it matches, the more the better.
 */
import type { ToolGroup } from '../group.js';
import type { ToolDefinition } from '../tool.js';
import { Bm25fIndex, type FieldTerms, type FieldWeights } from './bm25f.js';
import { definitionFields, type ToolSearchFields } from './fields.js';
import { type EmbedTexts, embeddingText } from './hybrid.js';
import type { ToolMatch } from './match.js';
import { type Alternative, DEFAULT_SYNONYMS, Thesaurus } from './synonyms.js';
import { correction } from './typos.js';
import { termOf, termsOf, words } from './words.js';

/** How ranking may be adjusted; every field has a default. */
export interface ToolSearchOptions {
  /** More synonym groups, added to the defaults (`DEFAULT_SYNONYMS`): `[['invoice', 'bill']]`. */
  synonyms?: readonly (readonly string[])[];
  /** Whether the default synonym groups apply. Default `true`. */
  defaultSynonyms?: boolean;
  /**
   * An embedding model, for hybrid ranking: the lexical ranking fused with the tools nearest
   * the query by meaning (see `SemanticRanker`). Default: none, lexical ranking only.
   */
  embed?: EmbedTexts;
}

/** What a search catalog reads: the tools, their groups, and (optionally) what a provider knows of each. */
export interface SearchableCatalog {
  definitions(): ToolDefinition[];
  groups(): ToolGroup[];
  /** The searchable fields of the tool named `name`, when its provider knows more than its definition. */
  searchFields?(name: string): ToolSearchFields | undefined;
}


/** Field weights and length normalisation: a name says most; a long description is normalised the most. */
export const FIELD_WEIGHTS: FieldWeights = {
  name: { weight: 5, b: 0.3 },
  title: { weight: 3, b: 0.3 },
  description: { weight: 1, b: 0.75 },
  parameters: { weight: 0.4, b: 0.75 },
  server: { weight: 1.5, b: 0.2 },
  serverAbout: { weight: 0.3, b: 0.75 },
};

/** How much a concept's other forms count beside the word itself. */
const SYNONYM_WEIGHT = 0.6;
const PREFIX_WEIGHT = 0.5;
const TYPO_WEIGHT = 0.8;
/** Most longer words a prefix stands for. */
const PREFIX_EXPANSIONS = 16;
/** The shortest word read as a prefix too: shorter ones begin too many words (`pr` in `problem`). */
const PREFIX_MIN = 3;

interface IndexedTool {
  definition: ToolDefinition;
  id: number;
  /** The text its vector is made from, kept only for hybrid ranking. */
  embeddingText: string | undefined;
  /** The tool's own name as words joined by `_` (`create_issue` for `createIssue`), for exact-name queries. */
  ownName: string;
}

/** One form a concept is looked for in: its terms (a phrase has several) and its weight. */
interface Form {
  terms: Alternative;
  weight: number;
}

export class ToolSearchIndex {
  private readonly index = new Bm25fIndex(FIELD_WEIGHTS);
  private readonly byName = new Map<string, IndexedTool>();
  private readonly byId = new Map<number, IndexedTool>();
  private readonly thesaurus: Thesaurus;
  /**
   * The words the indexed tools are written with, before stemming, and the term of each. A
   * typo is corrected to one of these: stems are no good for that (`meetign` is one swap
   * from `meeting` but three edits from its stem `meet`). Kept per word, not per tool (a
   * catalog's vocabulary is far smaller than its text); a word whose term no tool has any
   * more is let go when the catalog changes.
   */
  private readonly vocabulary = new Map<string, string>();
  /** Corrections found (the corrected word's term), by misspelt word; cleared when the vocabulary changes. */
  private corrections = new Map<string, string | undefined>();
  private readonly semantic: boolean;
  /** The scores of one search by tool id, all zero between searches (a search runs to its end without yielding). */
  private scratch = { best: new Float64Array(0), total: new Float64Array(0), matched: new Uint16Array(0) };

  constructor(options: ToolSearchOptions = {}) {
    this.semantic = options.embed !== undefined;
    this.thesaurus = new Thesaurus([...(options.defaultSynonyms === false ? [] : DEFAULT_SYNONYMS), ...(options.synonyms ?? [])]);
  }

  /** How many tools are indexed. */
  get size(): number {
    return this.byName.size;
  }

  /**
   * Brings the index up to `catalog`: a tool whose definition is the same object as when it
   * was indexed stays as it is; a new or changed one is indexed; a gone one is taken out.
   */
  sync(catalog: SearchableCatalog): void {
    const definitions = catalog.definitions();
    let groupOf: Map<string, ToolGroup> | undefined;
    const current = new Set<string>();
    let changed = false;
    for (const definition of definitions) {
      const name = definition.name.toLowerCase();
      current.add(name);
      const known = this.byName.get(name);
      if (known?.definition === definition) continue;
      if (known !== undefined) this.drop(known);
      groupOf ??= firstGroups(catalog.groups());
      const fields = catalog.searchFields?.(definition.name) ?? definitionFields(definition, groupOf.get(name));
      const id = this.index.add(fieldTerms(fields));
      const tool = { definition, id, ownName: words(fields.name).join('_'), embeddingText: this.semantic ? embeddingText(fields) : undefined };
      this.learnWords(fields);
      this.byName.set(name, tool);
      this.byId.set(id, tool);
      changed = true;
    }
    for (const tool of [...this.byName.values()]) {
      if (current.has(tool.definition.name.toLowerCase())) continue;
      this.drop(tool);
      changed = true;
    }
    if (changed) {
      this.corrections = new Map();
      for (const [word, term] of this.vocabulary) if (!this.index.has(term)) this.vocabulary.delete(word);
    }
  }

  /** Adds the words of a tool's fields a misspelling may be corrected to: those with a term, long enough to be told apart. */
  private learnWords(fields: ToolSearchFields): void {
    const text = [fields.name, fields.title, fields.description, fields.parameters, fields.server?.id, fields.server?.title].filter(Boolean).join(' ');
    for (const word of words(text)) {
      if (word.length < 3 || this.vocabulary.has(word)) continue;
      const term = termOf(word);
      if (term !== undefined) this.vocabulary.set(word, term);
    }
  }

  /** Every indexed tool's name and embedding text (hybrid ranking only). */
  embeddingTexts(): { name: string; text: string }[] {
    return [...this.byName.values()].map((tool) => ({ name: tool.definition.name, text: tool.embeddingText ?? '' }));
  }

  private drop(tool: IndexedTool): void {
    this.index.remove(tool.id);
    this.byId.delete(tool.id);
    this.byName.delete(tool.definition.name.toLowerCase());
  }

  /**
   * The tools matching `query`, best first, at most `limit`. A tool named exactly as the
   * query (its model-facing or its own name) comes first. A query of function words only
   * (`tool`, `the`) matches the tools whose names have those words. Empty when nothing
   * matches: words no tool uses or nearly uses.
   */
  search(query: string, limit: number): ToolMatch[] {
    const exact = this.exactMatches(query);
    const concepts = this.concepts(query);
    if (concepts.length === 0) return this.nameWordMatches(query, exact).slice(0, limit);
    const { best, total, matched } = this.scratchFor(this.index.idLimit);
    // Every tool any concept reached, and (per concept) the tools its forms reached.
    const reached: number[] = [];
    try {
      for (const forms of concepts) {
        const inConcept: number[] = [];
        const keep = (id: number, score: number): void => {
          if (best[id] === 0) inConcept.push(id);
          if (score > best[id]!) best[id] = score;
        };
        for (const form of forms) {
          if (form.terms.length === 1) this.index.eachScore(form.terms[0]!, (id, score) => keep(id, score * form.weight));
          else for (const [id, score] of phraseScores(form, (term) => this.index.scores(term))) keep(id, score);
        }
        for (const id of inConcept) {
          if (matched[id] === 0) reached.push(id);
          total[id]! += best[id]!;
          matched[id]!++;
          best[id] = 0;
        }
      }
      // A tool matching more of the query's concepts beats one matching a few of them strongly;
      // by the square root of the share, so one rare word a long request is about (translate,
      // in "translate this paragraph into Japanese for our product page") still counts.
      for (const id of reached) total[id] = total[id]! * Math.sqrt(matched[id]! / concepts.length);
      const nameOf = (id: number): string => this.byId.get(id)!.definition.name;
      const wanted = exact.length === 0 ? reached : reached.filter((id) => !exact.includes(nameOf(id)));
      const top = topIds(wanted, limit, total, nameOf);
      const ranked = top.map((id) => rounded({ name: nameOf(id), score: total[id]! }));
      if (exact.length === 0) return ranked;
      const first = (top.length === 0 ? 0 : total[top[0]!]!) + 1;
      return [...exact.map((name) => rounded({ name, score: first, exact: true })), ...ranked].slice(0, limit);
    } finally {
      for (const id of reached) {
        total[id] = 0;
        matched[id] = 0;
      }
    }
  }

  private scratchFor(ids: number): { best: Float64Array; total: Float64Array; matched: Uint16Array } {
    if (this.scratch.best.length < ids) {
      const size = Math.max(64, Math.ceil(ids * 1.5));
      this.scratch = { best: new Float64Array(size), total: new Float64Array(size), matched: new Uint16Array(size) };
    }
    return this.scratch;
  }

  /**
   * For a query with no content word: the exact names first, then the tools whose own name
   * has the query's words, the larger share of the name first. Function words are not
   * indexed, so this reads the names themselves.
   */
  private nameWordMatches(query: string, exact: readonly string[]): ToolMatch[] {
    const wanted = new Set(words(query));
    if (wanted.size === 0) return [];
    const matches: ToolMatch[] = exact.map((name) => ({ name, score: 2, exact: true }));
    for (const tool of this.byName.values()) {
      if (exact.includes(tool.definition.name)) continue;
      const parts = tool.ownName.split('_');
      const hits = parts.filter((part) => wanted.has(part)).length;
      if (hits > 0) matches.push({ name: tool.definition.name, score: hits / parts.length });
    }
    return matches.sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map(rounded);
  }

  /** Tools whose model-facing or own name is the query, ignoring case and separators. */
  private exactMatches(query: string): string[] {
    const wanted = query.trim().toLowerCase();
    const loose = words(query).join('_');
    if (loose === '') return [];
    const names: string[] = [];
    for (const [name, tool] of this.byName) if (name === wanted || tool.ownName === loose) names.push(tool.definition.name);
    return names.sort();
  }

  /** The query's concepts, each as the forms it is looked for in. */
  private concepts(query: string): Form[][] {
    const terms: string[] = [];
    const written: string[] = [];
    for (const word of words(query)) {
      const term = termOf(word);
      if (term === undefined) continue;
      terms.push(term);
      written.push(word);
    }
    const concepts: Form[][] = [];
    for (let at = 0; at < terms.length; ) {
      const phrase = this.phraseAt(terms, at);
      if (phrase !== undefined) {
        concepts.push([{ terms: phrase, weight: 1 }, ...this.thesaurus.of(phrase).map((synonym) => ({ terms: synonym, weight: SYNONYM_WEIGHT }))]);
        at += phrase.length;
        continue;
      }
      concepts.push(this.wordForms(terms[at]!, written[at]!));
      at++;
    }
    return concepts;
  }

  /** The longest known phrase (two terms or more) starting at `at`. */
  private phraseAt(terms: readonly string[], at: number): string[] | undefined {
    for (let length = Math.min(this.thesaurus.longest, terms.length - at); length >= 2; length--) {
      const candidate = terms.slice(at, at + length);
      if (this.thesaurus.of(candidate).length > 0) return candidate;
    }
    return undefined;
  }

  /** A single word's forms: itself, its synonyms, the words it begins, and, for a word no tool uses, its correction. */
  private wordForms(term: string, written: string): Form[] {
    const forms: Form[] = [{ terms: [term], weight: 1 }];
    // A short plural is not stemmed (`prs`, `dbs`): its singular counts as the word when tools or synonyms know it.
    const singular = term.length <= 4 && term.endsWith('s') ? term.slice(0, -1) : undefined;
    if (singular !== undefined && (this.index.has(singular) || this.thesaurus.of([singular]).length > 0)) {
      forms.push({ terms: [singular], weight: 1 }, ...this.thesaurus.of([singular]).map((synonym) => ({ terms: synonym, weight: SYNONYM_WEIGHT })));
    }
    const synonyms = (of: string, weight: number): Form[] => this.thesaurus.of([of]).map((synonym) => ({ terms: synonym, weight }));
    forms.push(...synonyms(term, SYNONYM_WEIGHT));
    const longer = term.length >= PREFIX_MIN ? this.index.withPrefix(term, PREFIX_EXPANSIONS) : [];
    for (const word of longer) forms.push({ terms: [word], weight: PREFIX_WEIGHT });
    if (!this.index.has(term) && !this.vocabulary.has(written)) {
      const corrected = this.correctionOf(written);
      if (corrected !== undefined && corrected !== term && !longer.includes(corrected)) forms.push({ terms: [corrected], weight: TYPO_WEIGHT }, ...synonyms(corrected, TYPO_WEIGHT * SYNONYM_WEIGHT));
    }
    return forms;
  }

  /** The term of the word `written` most likely misspells, if any. */
  private correctionOf(written: string): string | undefined {
    if (!this.corrections.has(written)) {
      const word = correction(written, this.vocabulary.keys(), (known) => this.index.documentFrequency(this.vocabulary.get(known)!));
      this.corrections.set(written, word === undefined ? undefined : this.vocabulary.get(word));
    }
    return this.corrections.get(written);
  }
}

/** A phrase's score per tool: the mean of its terms' scores where the tool has them all, times the form's weight. */
function phraseScores(form: Form, scoresOf: (term: string) => Map<number, number>): Map<number, number> {
  const [first, ...others] = form.terms.map(scoresOf);
  const result = new Map<number, number>();
  for (const [id, score] of first!) {
    let sum = score;
    let all = true;
    for (const scores of others) {
      const other = scores.get(id);
      if (other === undefined) {
        all = false;
        break;
      }
      sum += other;
    }
    if (all) result.set(id, (form.weight * sum) / form.terms.length);
  }
  return result;
}

/**
 * The best `limit` of `ids` by `score`, best first, ties by name. A bounded insertion, not a
 * sort: a common word reaches most of a big catalog, and only the first few are wanted.
 */
function topIds(ids: readonly number[], limit: number, score: Float64Array, nameOf: (id: number) => string): number[] {
  const before = (a: number, b: number): boolean => score[a]! > score[b]! || (score[a] === score[b] && nameOf(a) < nameOf(b));
  const top: number[] = [];
  for (const id of ids) {
    if (top.length === limit && !before(id, top[limit - 1]!)) continue;
    let at = top.length === limit ? limit - 1 : top.length;
    while (at > 0 && before(id, top[at - 1]!)) {
      top[at] = top[at - 1]!;
      at--;
    }
    top[at] = id;
  }
  return top;
}

function rounded(match: ToolMatch): ToolMatch {
  return { ...match, score: Math.round(match.score * 1000) / 1000 };
}

/** The first group each tool is a member of, by lowercased name. */
function firstGroups(groups: readonly ToolGroup[]): Map<string, ToolGroup> {
  const result = new Map<string, ToolGroup>();
  for (const group of groups) for (const member of group.members) if (!result.has(member.toLowerCase())) result.set(member.toLowerCase(), group);
  return result;
}

/** A tool's fields as the index takes them. */
function fieldTerms(fields: ToolSearchFields): FieldTerms {
  const server = fields.server;
  return {
    name: termsOf(fields.name),
    title: termsOf(fields.title ?? ''),
    description: termsOf(fields.description ?? ''),
    parameters: termsOf(fields.parameters ?? ''),
    server: termsOf(server === undefined ? '' : `${server.id} ${server.title ?? ''}`),
    serverAbout: termsOf(server?.description ?? ''),
  };
}
