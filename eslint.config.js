// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const products = ['agent', 'probe', 'controlplane'];

export default tseslint.config(
  { ignores: ['**/node_modules/**', '.tools/**', '.run/**', '**/dist/**', 'eslint.config.js'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/only-throw-error': 'error',
      '@typescript-eslint/explicit-module-boundary-types': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      // client-node declares its API models as classes of plain data; object literals of that
      // shape are how the library is meant to be used.
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
      '@typescript-eslint/no-misused-spread': 'off',
      'no-console': 'error',
      complexity: ['error', 12],
      'max-params': ['error', 4],
      'max-depth': ['error', 3],
    },
  },
  {
    // Tests may be longer and more branchy than production code.
    files: ['**/*.test.ts'],
    rules: { complexity: 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    // Process edges print to the terminal.
    files: ['**/main.ts', '**/*-main.ts', 'scripts/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
  // The control plane's service connects to its API server as connections.ts says: its clients
  // come from there, and every cache, recorder and elector is given that transport.
  {
    files: ['controlplane/src/**/*.ts'],
    ignores: [
      '**/*.test.ts',
      'controlplane/src/connections.ts',
      // One-shot commands, not the service.
      'controlplane/src/join/**',
      'controlplane/src/workload/explain/**',
    ],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'NewExpression[callee.name=/^(ResourceClient|KubeTransport)$/]',
          message: 'Build it with controlPlaneClient() or controlPlaneTransport() (connections.ts).',
        },
        {
          selector:
            "NewExpression[callee.name=/^(WatchCache|EventRecorder|LeaderElector)$/]:not(:has(Property[key.name='transport']))",
          message: 'Give it transport: CONTROL_PLANE_TRANSPORT (connections.ts).',
        },
      ],
    },
  },
  // Libraries never import a product.
  {
    files: ['lib/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: products.flatMap((o) => [`@kf/${o}`, `@kf/${o}/*`, `**/${o}/src/**`]) },
      ],
    },
  },
  // Products never import each other.
  ...products.map((p) => ({
    files: [`${p}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: products
            .filter((o) => o !== p)
            .flatMap((o) => [`@kf/${o}`, `@kf/${o}/*`, `**/${o}/src/**`]),
        },
      ],
    },
  })),
);
