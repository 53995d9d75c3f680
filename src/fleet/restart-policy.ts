/**
 * The restart policy of a supervised server: exponential backoff between restart
 * attempts, `min(initialDelayMs × backoffMultiplier^attempt, maxDelayMs)`, given up after
 * `maxRestartAttempts` consecutive failures. The defaults are ADK-Rust's `RestartPolicy`.
 */

/** How a crashed server is restarted. Every field is optional; missing ones keep their defaults. */
export interface McpRestartPolicy {
  /** Delay before the first restart attempt, in milliseconds. Default 1,000. */
  initialDelayMs?: number;
  /** Longest delay between attempts, in milliseconds. Default 30,000. */
  maxDelayMs?: number;
  /** Factor applied to the delay after each attempt (at least 1). Default 2. */
  backoffMultiplier?: number;
  /** Consecutive attempts before the server is given up as `failed_to_start`. Default 10. */
  maxRestartAttempts?: number;
}

export type ResolvedRestartPolicy = Required<McpRestartPolicy>;

export const DEFAULT_RESTART_POLICY: Readonly<ResolvedRestartPolicy> = Object.freeze({
  initialDelayMs: 1_000,
  maxDelayMs: 30_000,
  backoffMultiplier: 2,
  maxRestartAttempts: 10,
});

/** The policy with its defaults filled in. */
export function resolveRestartPolicy(policy: McpRestartPolicy): ResolvedRestartPolicy {
  return { ...DEFAULT_RESTART_POLICY, ...withoutUndefined(policy) };
}

function withoutUndefined(policy: McpRestartPolicy): McpRestartPolicy {
  return Object.fromEntries(Object.entries(policy).filter(([, value]) => value !== undefined));
}

/**
 * The delay before restart attempt `attempt` (0 for the first), in milliseconds:
 * `min(initialDelayMs × backoffMultiplier^attempt, maxDelayMs)`.
 */
export function restartDelayMs(policy: ResolvedRestartPolicy, attempt: number): number {
  return Math.min(policy.initialDelayMs * policy.backoffMultiplier ** attempt, policy.maxDelayMs);
}
