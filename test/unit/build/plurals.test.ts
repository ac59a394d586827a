/**
 * No "(s)" plurals in what Research Desk says: "1 entry(ies)" reads as a machine wrote it, and a translator cannot
 * give a language its own plural forms for one string. Messages choose a singular or a plural string by count
 * instead. Checked on every string and template literal of src/ (comments and code are not text anyone reads).
 */
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const root = join(__dirname, '..', '..', '..');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** The text of every string literal and template part of a source file. */
function literals(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    )
      out.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** "entry(ies)", "paper(s)", "match(es)"; not "http(s)", which names two schemes, not a count. */
const PLURAL = /\p{L}\((?:s|es|ies)\)/u;

describe('plural forms in src/', () => {
  it('finds the pattern it looks for', () => {
    assert.ok(PLURAL.test('{0} entry(ies) added'));
    assert.ok(PLURAL.test('Copied {0} DOI(s).'));
    assert.ok(!PLURAL.test('a valid http(s) URL'.replace('http(s)', '')));
  });

  it('has no "(s)" or "(ies)" plural in any string', () => {
    const hits = files(join(root, 'src')).flatMap((file) =>
      literals(file)
        .map((text) => text.replace(/https?\(s\)|http\(s\)/gu, ''))
        .filter((text) => PLURAL.test(text))
        .map((text) => `${relative(root, file)}: ${JSON.stringify(text)}`),
    );
    assert.deepEqual(hits, []);
  });
});
