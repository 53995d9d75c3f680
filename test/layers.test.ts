/**
 * The layer rules of src/ (.dependency-cruiser.cjs, docs/architecture.md): no import cycle,
 * type-only imports included, and no layer importing one above it. The second test shows the
 * rules are live: a small tree that breaks both is caught.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { describe, expect, it } from 'vitest';

const repoPath = (path: string): string => fileURLToPath(new URL(`../${path}`, import.meta.url));

async function violationsOf(baseDir: string): Promise<string[]> {
  const options = await extractDepcruiseOptions(repoPath('.dependency-cruiser.cjs'));
  const tsConfig = extractTSConfig(repoPath('tsconfig.json'));
  const { output } = await cruise(['src'], { ...options, baseDir, validate: true }, undefined, { tsConfig });
  return (output as ICruiseResult).summary.violations.map((violation) =>
    `${violation.rule.name}: ${violation.from} -> ${violation.to}${violation.cycle ? ` (cycle: ${violation.cycle.map((step) => step.name).join(' -> ')})` : ''}`,
  );
}

describe('layers of src/', () => {
  it('have no import cycle and no import up the layers', async () => {
    expect(await violationsOf(repoPath(''))).toEqual([]);
  }, 60_000);

  it('catch a cycle and a core file importing the mcp layer', async () => {
    const root = mkdtempSync(join(tmpdir(), 'mcp-fleet-layers-'));
    try {
      mkdirSync(join(root, 'src', 'core'), { recursive: true });
      mkdirSync(join(root, 'src', 'mcp'), { recursive: true });
      writeFileSync(join(root, 'src', 'core', 'low.ts'), "import type { High } from '../mcp/high.js';\nexport type Low = High | 1;\n");
      writeFileSync(join(root, 'src', 'mcp', 'high.ts'), "import type { Low } from '../core/low.js';\nexport type High = Low | 2;\n");
      const violations = await violationsOf(root);
      expect(violations.some((line) => line.startsWith('no-cycle:'))).toBe(true);
      expect(violations).toContain('core-imports-no-other-layer: src/core/low.ts -> src/mcp/high.ts');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 60_000);
});
