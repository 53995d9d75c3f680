/** One ranked tool: its model-facing name and its relevance (higher is better; comparable within one search). */
export interface ToolMatch {
  name: string;
  score: number;
  /** Whether the query is the tool's name: such a tool is ranked first, whatever its score. */
  exact?: boolean;
}
