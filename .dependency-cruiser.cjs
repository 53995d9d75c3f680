/**
 * The layer rules of src/ (docs/architecture.md), checked in `npm test` by
 * test/layers.test.ts: no import cycles (type-only imports count) and no import upward.
 * core < mcp < fleet < gateway < cli; projections and adapters stand on core only;
 * policy stands on core and mcp.
 */
const layer = (name, mayImport) => ({
  name: mayImport.length === 0 ? `${name}-imports-no-other-layer` : `${name}-imports-only-${mayImport.join('-')}`,
  comment: `src/${name}/ may import only ${mayImport.map((to) => `src/${to}/`).join(', ')} of the other layers`,
  severity: 'error',
  from: { path: `^src/${name}/` },
  to: { path: '^src/', pathNot: `^src/(${[name, ...mayImport].join('|')})/` },
});

module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      comment: 'an import cycle ties files that should stand in a line: move what both need to where it belongs',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    layer('core', []),
    layer('mcp', ['core']),
    layer('projections', ['core']),
    layer('adapters', ['core', 'projections']),
    layer('fleet', ['core', 'mcp']),
    layer('policy', ['core', 'mcp']),
    layer('gateway', ['core', 'mcp', 'fleet']),
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
  },
};
