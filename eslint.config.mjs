// ESLint flat config: type-checked rules for all TypeScript, and a boundary rule
// that keeps the pure layer (src/api, src/render, src/bib, src/shared) free of `vscode`.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Files that run without VS Code: the pure layer's folders, the webviews' browser code, and the pure parts of
 * feature folders (models, caches, display text). Fenced from `vscode` so they stay testable in plain Node;
 * test/unit/build/layout.test.ts fails when a file that imports no `vscode` is missing here.
 */
export const PURE_FILES = [
  'src/api/**/*.ts',
  'src/bib/**/*.ts',
  'src/render/**/*.ts',
  'src/shared/**/*.ts',
  'src/answer/webview/**/*.ts',
  'src/answer/{exportName,protocol}.ts',
  'src/composition/{codeCache,commandTable,deferred}.ts',
  'src/chat/{answerMarkdown,chatMarkdown,seenPapers,threadToolInput,toolInput}.ts',
  'src/citations/{citeIndex,citeMatch,declare,display,entryText,errors,incrementalParse,latexWords,recentPapers}.ts',
  'src/platform/ids.ts',
  'src/search/{cache,filterModel,paging,query,resultsModel,searchPages}.ts',
  'src/search/table/{protocol,rows,sortFilter}.ts',
  'src/search/table/webview/**/*.ts',
  'src/service/{clientProvider,demoKey,keyTag}.ts',
  'src/threads/{briefGist,threadList}.ts',
];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'out/**',
      'node_modules/**',
      '.vscode-test/**',
      'test-results/**',
      '**/*.js',
      '**/*.mjs',
      '**/*.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      eqeqeq: ['error', 'always'],
    },
  },
  {
    files: PURE_FILES,
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [{ name: 'vscode', message: 'The pure layer runs in plain Node: no vscode import here.' }] },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-expressions': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
