import { describe, expect, it } from 'vitest';
import { isStratboxError } from '../errors/stratbox-error.js';
import { MAX_EXPRESSION_CHAIN, MAX_SOURCE_NESTING, checkSourceShape } from './source-shape.js';

function refusal(source: string) {
  try {
    checkSourceShape(source);
  } catch (error) {
    if (isStratboxError(error)) return error;
    throw error;
  }
  return null;
}

const head = 'export function onCandle(ctx, c) {}\n';

describe('checkSourceShape', () => {
  it('accepts ordinary strategies, with brackets inside strings, comments, templates and regexes', () => {
    const source = `${head}
      // a comment with ((((((( and [[[[[[
      /* and a block comment with {{{{{{ */
      const s = "(((((( [[[[[[ {{{{{{";
      const t = \`text { [ ( \${ [1, [2, [3]]].length } more \${ \`inner \${ 'x' }\` }\`;
      const r = /[(]+\\[/g;
      export const meta = { params: { fast: { type: 'int', default: 10, min: 1, max: 50 } } };
      function deep(x) { return [[[[[[[[[[x]]]]]]]]]]; }
    `;
    expect(refusal(source)).toBeNull();
  });

  it('accepts nesting up to the limit and a long statement below the chain bound', () => {
    const n = MAX_SOURCE_NESTING - 1; // the function body is one level already
    expect(refusal(`export function onCandle(ctx, c) { const x = ${'['.repeat(n - 1)}1${']'.repeat(n - 1)}; }`)).toBeNull();
    expect(refusal(`${head}const s = ${'1+'.repeat(MAX_EXPRESSION_CHAIN - 1)}1;`)).toBeNull();
  });

  it.each([
    ['brackets', `export function onCandle(ctx,c){ const x = ${'['.repeat(250_000)}${']'.repeat(250_000)}; }`],
    ['braces', `${head}const y = ${'{a:'.repeat(50_000)}1${'}'.repeat(50_000)};`],
    ['blocks', `${head}${'{'.repeat(150_000)}${'}'.repeat(150_000)}`],
    ['parentheses', `${head}const z = ${'('.repeat(200_000)}1${')'.repeat(200_000)};`],
    ['templates', `${head}const t = ${'`${'.repeat(20_000)}1${'}`'.repeat(20_000)};`],
    ['one nesting past the limit', `${head}const x = ${'['.repeat(MAX_SOURCE_NESTING + 1)}${']'.repeat(MAX_SOURCE_NESTING + 1)};`],
  ])('refuses deep nesting (%s) with 400 at its line and column', (_name, source) => {
    const error = refusal(source);
    expect(error?.code).toBe('VALIDATION_FAILED');
    expect(error?.status).toBe(400);
    expect(error?.message).toMatch(/nest more than 128 levels deep/);
    const [problem] = error!.details as Array<{ line: number; column: number; code: string }>;
    expect(problem).toMatchObject({ code: 'SOURCE_TOO_COMPLEX' });
    expect(problem!.line).toBeGreaterThanOrEqual(1);
    expect(problem!.column).toBeGreaterThan(1);
  });

  it('refuses a 500 KB chain of operators in one statement', () => {
    const error = refusal(`${head}const s = ${'1+'.repeat(240_000)}1;`);
    expect(error?.code).toBe('VALIDATION_FAILED');
    expect(error?.message).toMatch(/line 2, column \d+: one statement chains more than 10000 operators/);
  });

  it('counts chains per statement: many short statements are fine', () => {
    expect(refusal(`${head}${'x = 1 + 2 + 3;\n'.repeat(20_000)}`)).toBeNull();
  });
});
