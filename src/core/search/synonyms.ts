/**
 * Words people and tools use for the same thing: a user asks to "remove" what a tool calls
 * "delete", to "fetch" what it calls "get", for "k8s" pods on a "kubernetes" server, for a
 * "PR" that the tool calls a "pull request". A query word is also looked for as each of its
 * synonyms, at a lower weight than itself. The list is small and curated (groups of words
 * or short phrases of content words that mean the same in tool vocabulary); an application adds its own
 * with `DiscoveryOptions.synonyms`.
 */
import { termsOf } from './words.js';

/** The default groups. A word may sit in more than one group; a phrase is two or three words. */
export const DEFAULT_SYNONYMS: readonly (readonly string[])[] = [
  ['delete', 'remove', 'rm', 'erase', 'destroy', 'drop', 'trash', 'unlink'],
  ['find', 'search', 'lookup', 'query', 'locate', 'seek'],
  ['get', 'fetch', 'read', 'retrieve', 'load', 'obtain', 'view'],
  ['list', 'ls', 'enumerate', 'show', 'browse'],
  ['create', 'make', 'new', 'add', 'generate', 'open'],
  ['update', 'edit', 'modify', 'change', 'patch', 'set', 'alter', 'rename'],
  ['write', 'save', 'store', 'put'],
  ['run', 'execute', 'exec', 'invoke', 'launch', 'start', 'trigger'],
  ['stop', 'kill', 'terminate', 'halt', 'cancel', 'abort'],
  ['undo', 'revert', 'reset', 'rollback', 'roll back'],
  ['send', 'post', 'publish', 'notify'],
  ['message', 'msg', 'chat', 'dm'],
  ['email', 'mail', 'inbox'],
  ['repository', 'repo'],
  ['pull request', 'pr'],
  ['merge request', 'mr'],
  ['issue', 'ticket', 'bug'],
  ['kubernetes', 'k8s', 'kube', 'cluster'],
  ['github', 'gh'],
  ['database', 'db', 'sql'],
  ['directory', 'dir', 'folder'],
  ['document', 'doc', 'docs', 'documentation'],
  ['image', 'img', 'picture', 'photo'],
  ['screenshot', 'screen capture', 'capture'],
  ['url', 'link', 'uri'],
  ['website', 'site', 'webpage', 'web page', 'page'],
  ['navigate', 'go', 'visit', 'open'],
  ['click', 'press', 'tap'],
  ['type', 'enter', 'fill', 'input'],
  ['calendar', 'schedule', 'agenda'],
  ['schedule', 'book', 'reserve'],
  ['event', 'meeting', 'appointment'],
  ['user', 'member', 'account', 'person', 'people', 'profile'],
  ['config', 'configuration', 'settings', 'preferences', 'options'],
  ['auth', 'authentication', 'login', 'signin', 'credentials'],
  ['statistics', 'stats', 'metrics', 'analytics'],
  ['information', 'info', 'details', 'metadata', 'describe'],
  ['error', 'exception', 'failure', 'crash'],
  ['comment', 'reply', 'note'],
  ['tag', 'label'],
  ['priority', 'urgent', 'urgency', 'importance'],
  ['task', 'todo'],
  ['project', 'workspace'],
  ['table', 'sheet', 'spreadsheet'],
  ['location', 'place', 'address', 'geocode'],
  ['directions', 'route', 'itinerary'],
  ['summary', 'summarize', 'overview'],
  ['payment', 'charge', 'pay'],
  ['customer', 'client'],
  ['diff', 'compare', 'difference'],
  ['status', 'state', 'health'],
  ['upload', 'attach'],
  ['web', 'internet', 'online'],
  ['library', 'package', 'dependency', 'module'],
  ['memory', 'remember', 'knowledge'],
  ['think', 'reason', 'reasoning', 'plan'],
];

/** A synonym as looked for: the terms of its word or phrase. */
export type Alternative = readonly string[];

/**
 * Synonyms by the terms they are found under: a single term (`remov`), or a phrase's terms
 * joined by a space (`pull request`).
 */
export class Thesaurus {
  private readonly byKey = new Map<string, Alternative[]>();
  /** The longest phrase, in terms: how far ahead a query is read for one. */
  readonly longest: number;

  constructor(groups: readonly (readonly string[])[]) {
    let longest = 1;
    for (const group of groups) {
      const members = group.map((member) => termsOf(member)).filter((terms) => terms.length > 0);
      for (const member of members) {
        longest = Math.max(longest, member.length);
        const key = member.join(' ');
        const known = this.byKey.get(key) ?? [];
        for (const other of members) {
          const otherKey = other.join(' ');
          if (otherKey !== key && !known.some((alternative) => alternative.join(' ') === otherKey)) known.push(other);
        }
        this.byKey.set(key, known);
      }
    }
    this.longest = longest;
  }

  /** The synonyms of the word or phrase whose terms are `terms`. */
  of(terms: readonly string[]): readonly Alternative[] {
    return this.byKey.get(terms.join(' ')) ?? [];
  }
}
