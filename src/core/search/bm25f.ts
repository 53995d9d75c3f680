/**
 * BM25F over a small, changing set of documents (a catalog's tools): an inverted index of
 * terms by field, updated one document at a time, and scoring that weighs each field before
 * the term frequency saturates (Robertson and Zaragoza's BM25F), so three mentions of
 * "commit" across a tool's name and description count as one strong signal, not three
 * separate ones, and a long description is normalised by its own field's length. None of
 * the JavaScript search libraries scores this way: MiniSearch and Orama sum a BM25 per
 * field, wink-bm25-text-search does BM25F but rebuilds its whole index for every change.
 */

/** The fields of a document, in the order their term counts are packed. */
export const FIELDS = ['name', 'title', 'description', 'parameters', 'server', 'serverAbout'] as const;
export type SearchField = (typeof FIELDS)[number];

/** How a field counts: its weight, and how much its length normalises (`b`, 0 to 1). */
export interface FieldWeight {
  weight: number;
  b: number;
}

export type FieldWeights = Record<SearchField, FieldWeight>;

/** A document as indexed: the terms of each field, in order, repeats kept. */
export type FieldTerms = Partial<Record<SearchField, readonly string[]>>;

/**
 * Term counts per field are packed 2 bits each into one small integer, and a count stops at
 * 3: a word's fourth mention in a field says nothing the third did not, and a description
 * that repeats a word a hundred times must not outrank a tool named with it.
 */
const BITS = 2;
const MOST = (1 << BITS) - 1;

interface Posting {
  docs: number[];
  /** The packed field counts, at the same index as the document. */
  counts: number[];
}

interface IndexedDoc {
  /** Field lengths in terms. */
  lengths: Uint16Array;
  /** The distinct terms, to take the document out of their postings again. */
  terms: string[];
}

/** BM25's term-frequency saturation; 1.2 is the customary value. */
const K1 = 1.2;

/**
 * The most terms a field counts for toward its field's average length. One tool with a
 * 13 KB description would otherwise raise the average so far that every short description
 * looked short, and a word in it weighed several times what it should. (The field's own
 * length still counts whole when it is normalised.)
 */
const AVERAGED_LENGTH_CAP = 128;

export class Bm25fIndex {
  private readonly docs = new Map<number, IndexedDoc>();
  private readonly postings = new Map<string, Posting>();
  private readonly totalLengths = new Float64Array(FIELDS.length);
  private nextId = 0;
  /** The terms in order, for prefix lookups; rebuilt at the first lookup after a change. */
  private sortedTerms: string[] | undefined;

  /** The weights in field order, and room for the average field lengths of one scoring. */
  private readonly fieldWeights: readonly FieldWeight[];
  private readonly averages = new Float64Array(FIELDS.length);

  constructor(weights: FieldWeights) {
    this.fieldWeights = FIELDS.map((field) => weights[field]);
  }

  get size(): number {
    return this.docs.size;
  }

  /** Adds a document; returns its id. */
  add(fields: FieldTerms): number {
    const id = this.nextId++;
    const lengths = new Uint16Array(FIELDS.length);
    const counts = new Map<string, number>();
    FIELDS.forEach((field, at) => {
      const terms = fields[field] ?? [];
      lengths[at] = Math.min(terms.length, 0xffff);
      this.totalLengths[at]! += Math.min(lengths[at], AVERAGED_LENGTH_CAP);
      const shift = at * BITS;
      for (const term of terms) {
        const packed = counts.get(term) ?? 0;
        if (((packed >> shift) & MOST) < MOST) counts.set(term, packed + (1 << shift));
      }
    });
    for (const [term, packed] of counts) {
      let posting = this.postings.get(term);
      if (posting === undefined) {
        posting = { docs: [], counts: [] };
        this.postings.set(term, posting);
        this.sortedTerms = undefined;
      }
      posting.docs.push(id);
      posting.counts.push(packed);
    }
    this.docs.set(id, { lengths, terms: [...counts.keys()] });
    return id;
  }

  /** Takes document `id` out of the index. */
  remove(id: number): void {
    const doc = this.docs.get(id);
    if (doc === undefined) return;
    this.docs.delete(id);
    doc.lengths.forEach((length, at) => (this.totalLengths[at]! -= Math.min(length, AVERAGED_LENGTH_CAP)));
    for (const term of doc.terms) {
      const posting = this.postings.get(term)!;
      const at = posting.docs.indexOf(id);
      posting.docs.splice(at, 1);
      posting.counts.splice(at, 1);
      if (posting.docs.length === 0) {
        this.postings.delete(term);
        this.sortedTerms = undefined;
      }
    }
  }

  /** Whether any document has `term`. */
  has(term: string): boolean {
    return this.postings.has(term);
  }

  /** How many documents have `term`. */
  documentFrequency(term: string): number {
    return this.postings.get(term)?.docs.length ?? 0;
  }

  /** Indexed terms that start with `prefix` (not `prefix` itself), the most common first, at most `most`. */
  withPrefix(prefix: string, most: number): string[] {
    this.sortedTerms ??= [...this.postings.keys()].sort();
    const sorted = this.sortedTerms;
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (sorted[middle]! < prefix) low = middle + 1;
      else high = middle;
    }
    const found: string[] = [];
    for (let at = low; at < sorted.length && sorted[at]!.startsWith(prefix); at++) if (sorted[at] !== prefix) found.push(sorted[at]!);
    return found.sort((a, b) => this.documentFrequency(b) - this.documentFrequency(a)).slice(0, most);
  }

  /** One more than the highest document id given so far: ids are below it. */
  get idLimit(): number {
    return this.nextId;
  }

  /** The BM25F score of `term` for each document that has it. */
  scores(term: string): Map<number, number> {
    const result = new Map<number, number>();
    this.eachScore(term, (id, score) => result.set(id, score));
    return result;
  }

  /**
   * Calls `visit` with each document that has `term` and its BM25F score, allocating
   * nothing per document: a search visits thousands of postings, and the garbage of a Map
   * per term was what made its slowest searches slow (collector pauses, not scoring).
   */
  eachScore(term: string, visit: (id: number, score: number) => void): void {
    const posting = this.postings.get(term);
    if (posting === undefined) return;
    const documents = this.docs.size;
    const frequency = posting.docs.length;
    // Never negative, even for a term nearly every document has (the "+1" of Lucene's form).
    const idf = Math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5));
    const averages = this.averages;
    for (let at = 0; at < FIELDS.length; at++) averages[at] = documents === 0 ? 1 : this.totalLengths[at]! / documents || 1;
    for (let n = 0; n < posting.docs.length; n++) {
      const id = posting.docs[n]!;
      const packed = posting.counts[n]!;
      const lengths = this.docs.get(id)!.lengths;
      let weighted = 0;
      for (let at = 0; at < FIELDS.length; at++) {
        const count = (packed >> (at * BITS)) & MOST;
        if (count === 0) continue;
        const { weight, b } = this.fieldWeights[at]!;
        weighted += (weight * count) / (1 - b + (b * lengths[at]!) / averages[at]!);
      }
      visit(id, (idf * weighted) / (K1 + weighted));
    }
  }
}
