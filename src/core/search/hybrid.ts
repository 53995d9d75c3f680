/**
 * The optional semantic stage of tool search: an application that has an embedding model
 * passes `embed`, and `tools_search` then ranks by reciprocal rank fusion of the lexical
 * ranking and a ranking by cosine similarity to the query. Words can bridge what synonyms
 * cannot ("urgent" to a tool that sets a priority); the lexical ranking keeps what
 * embeddings blur (exact names, rare identifiers). Tool vectors are cached by a
 * fingerprint of the text they were made from, so a catalog is embedded once and a
 * changed tool again; nothing is downloaded, and without `embed` nothing of this runs.
 */
import { createHash } from 'node:crypto';
import type { ToolSearchFields } from './fields.js';
import type { ToolMatch } from './match.js';

/** Turns texts into vectors, one per text, in order (any dimension, the same for all). */
export type EmbedTexts = (texts: string[]) => Promise<number[][]>;

/**
 * The rank constant of reciprocal rank fusion. Cormack et al.'s 60 flattens the top of a
 * ranking (ranks 1 and 10 differ by 13%), so any semantic vote reorders the lexical top
 * ten; at 5 they differ by a factor of 2.5 and the lexical order of the first few holds.
 */
const RRF_K = 5;
/**
 * How much the semantic ranking counts beside the lexical one: below
 * (1/(k+1) - 1/(k+2)) / (1/(k+1)) = 1/7, so the lexical first can never be overtaken by
 * the lexical second on the semantic vote alone, while closer neighbours further down are
 * settled by meaning, and tools no query word reached join the ranking after the lexical
 * matches of their standing. Chosen on the dev half of the tool-search bench
 * (bench/tool-search.ts): with equal weights and Cormack et al.'s k = 60, a bag-of-words
 * stand-in embedding cost 0.15-0.20 of top-1 there; at 0.15 one query of 200 still lost
 * its first place.
 */
const SEMANTIC_WEIGHT = 0.1;
/** How many of the nearest tools by meaning take part in the fusion. */
const SEMANTIC_CANDIDATES = 30;
/** Most tool texts sent to `embed` at once. */
const EMBED_BATCH = 256;

/** The text a tool's vector is made from. */
export function embeddingText(fields: ToolSearchFields): string {
  const server = fields.server === undefined ? '' : ` (${[fields.server.title ?? fields.server.id, fields.server.description].filter(Boolean).join(': ')})`;
  return [`${fields.name}${fields.title ? `: ${fields.title}` : ''}${server}`, fields.description ?? '', fields.parameters ?? ''].filter((part) => part !== '').join('\n');
}

function fingerprint(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

function norm(vector: readonly number[]): number {
  let sum = 0;
  for (const value of vector) sum += value * value;
  return Math.sqrt(sum);
}

interface Embedded {
  vector: Float32Array;
  norm: number;
}

/** Tool vectors by fingerprint, made by `embed` as needed. */
export class SemanticRanker {
  private readonly vectors = new Map<string, Embedded>();
  private readonly pending = new Map<string, Promise<void>>();

  constructor(private readonly embed: EmbedTexts) {}

  /**
   * `lexical` fused with the tools nearest to `query` by meaning, best first, at most
   * `limit`. `tools` gives each searchable tool's name and embedding text. If `embed`
   * fails, the lexical ranking is returned as it is: search still works.
   */
  async rank(query: string, lexical: readonly ToolMatch[], tools: readonly { name: string; text: string }[], limit: number): Promise<ToolMatch[]> {
    let nearest: { name: string; similarity: number }[];
    try {
      nearest = await this.nearest(query, tools);
    } catch {
      return lexical.slice(0, limit);
    }
    const fused = new Map<string, number>();
    lexical.forEach((match, rank) => fused.set(match.name, 1 / (RRF_K + rank + 1)));
    nearest.slice(0, SEMANTIC_CANDIDATES).forEach((match, rank) => {
      fused.set(match.name, (fused.get(match.name) ?? 0) + SEMANTIC_WEIGHT / (RRF_K + rank + 1));
    });
    // Exact name matches stay first: the lexical ranking puts them there on purpose.
    const exact = lexical.filter((match) => match.exact === true);
    const fusedRanking = [...fused]
      .filter(([name]) => !exact.some((match) => match.name === name))
      .map(([name, score]) => ({ name, score: Math.round(score * 1e5) / 1e5 }))
      .sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const top = fusedRanking[0]?.score ?? 0;
    return [...exact.map((match) => ({ name: match.name, score: top + 1, exact: true })), ...fusedRanking].slice(0, limit);
  }

  private async nearest(query: string, tools: readonly { name: string; text: string }[]): Promise<{ name: string; similarity: number }[]> {
    const keyed = tools.map((tool) => ({ ...tool, key: fingerprint(tool.text) }));
    await this.ensure(keyed);
    this.forgetOthers(keyed);
    const [queryVector] = await this.embed([query]);
    if (queryVector === undefined) throw new Error('embed returned no vector for the query');
    const queryNorm = norm(queryVector) || 1;
    const scored: { name: string; similarity: number }[] = [];
    for (const tool of keyed) {
      const embedded = this.vectors.get(tool.key);
      if (embedded === undefined || embedded.vector.length !== queryVector.length) continue;
      let dot = 0;
      for (let at = 0; at < queryVector.length; at++) dot += queryVector[at]! * embedded.vector[at]!;
      scored.push({ name: tool.name, similarity: dot / (queryNorm * (embedded.norm || 1)) });
    }
    return scored.sort((a, b) => b.similarity - a.similarity);
  }

  /** Lets go of the vectors of tools the catalog no longer has, once they could be as many as the tools it has. */
  private forgetOthers(tools: readonly { key: string }[]): void {
    if (this.vectors.size <= 2 * tools.length) return;
    const current = new Set(tools.map((tool) => tool.key));
    for (const key of this.vectors.keys()) if (!current.has(key)) this.vectors.delete(key);
  }

  /** Embeds the tools not embedded yet, in batches; concurrent searches share the work. */
  private async ensure(tools: readonly { text: string; key: string }[]): Promise<void> {
    const waits: Promise<void>[] = [];
    const missing = new Map<string, { text: string; key: string }>();
    for (const tool of tools) {
      if (this.vectors.has(tool.key)) continue;
      const pending = this.pending.get(tool.key);
      if (pending !== undefined) waits.push(pending);
      else missing.set(tool.key, tool);
    }
    const toEmbed = [...missing.values()];
    for (let at = 0; at < toEmbed.length; at += EMBED_BATCH) {
      const batch = toEmbed.slice(at, at + EMBED_BATCH);
      const work = this.embed(batch.map((tool) => tool.text)).then((vectors) => {
        batch.forEach((tool, n) => {
          const vector = vectors[n];
          if (vector !== undefined) this.vectors.set(tool.key, { vector: Float32Array.from(vector), norm: norm(vector) });
        });
      });
      const settled = work.finally(() => batch.forEach((tool) => this.pending.delete(tool.key)));
      batch.forEach((tool) => this.pending.set(tool.key, settled));
      waits.push(settled);
    }
    await Promise.all(waits);
  }
}
