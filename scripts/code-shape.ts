// The structural limits STYLE.md sets for source code, measured on the syntax tree: no source file
// over 400 lines, no function over 80 lines, no function with more than four positional parameters
// (an options object counts as one). A query module written as one closure of methods is one
// function, so it counts whole. Used by scripts/architecture.test.ts; run it to list offenders:
//   pnpm exec tsx scripts/code-shape.ts

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const LIMITS = { fileLines: 400, functionLines: 80, positionalParameters: 4 } as const;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const isTestFile = (file: string) => /\.test\.ts$|[\\/]test[\\/]/.test(file);

/** Source files under packages/ and apps/ (tracked by git, tests excluded). */
export function sourceFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '--', 'packages/*/src/*', 'apps/*/src/*'], { cwd: root, encoding: 'utf8' });
  return listed.split('\n').filter((file) => /\.(ts|mts)$/.test(file) && !file.endsWith('.d.ts') && !isTestFile(file));
}

function functionName(node: ts.SignatureDeclaration): string {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return parent.name.getText();
  if (ts.isCallExpression(parent)) return `callback of ${parent.expression.getText().slice(0, 40)}`;
  return '<anonymous>';
}

/** Every breach of LIMITS in one file's text, as `path:line what`. */
export function shapeProblems(file: string, text: string): string[] {
  const problems: string[] = [];
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (lines > LIMITS.fileLines) problems.push(`${file} has ${lines} lines (limit ${LIMITS.fileLines})`);
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const where = `${file}:${first + 1} ${functionName(node)}`;
      if (last - first + 1 > LIMITS.functionLines) problems.push(`${where} has ${last - first + 1} lines`);
      if (node.parameters.length > LIMITS.positionalParameters)
        problems.push(`${where} takes ${node.parameters.length} positional parameters`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return problems;
}

export function allShapeProblems(files = sourceFiles()): string[] {
  return files.flatMap((file) => shapeProblems(file, readFileSync(path.join(root, file), 'utf8')));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const problems = allShapeProblems(process.argv.slice(2).length > 0 ? process.argv.slice(2) : undefined);
  console.log(problems.length === 0 ? 'no breaches' : problems.join('\n'));
  process.exitCode = problems.length === 0 ? 0 : 1;
}
