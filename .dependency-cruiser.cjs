/**
 * dependency-cruiser's rules for this repository, checked by
 * tests/unit/import-cycles.test.ts (`npm run check:imports` runs that test alone).
 * Imports are read as TypeScript writes them (`tsPreCompilationDeps`), so
 * type-only imports count: an import cycle of types is a type in the wrong file.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle (type-only imports included): move the type or function that closes it to the module both sides may import.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-unresolvable-relative',
      severity: 'error',
      comment: 'A relative import that does not resolve: an edge the cycle check cannot follow.',
      from: {},
      to: { couldNotResolve: true, path: '^[.]' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|build)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // packages' subpath exports (hono/http-exception, pure-rand/distribution/…)
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
