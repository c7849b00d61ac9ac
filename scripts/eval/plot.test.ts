import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ResultRow } from './aggregate.ts';
import { renderPlot, seriesOf } from './plot.ts';

function row(
  strategy: ResultRow['strategy'],
  budget: number,
  mode: ResultRow['mode'],
  erFrac: number,
  category = 'all',
): ResultRow {
  return {
    strategy,
    budget,
    mode,
    category,
    n: 10,
    ap: null,
    atr: null,
    er_all: erFrac,
    er_frac: erFrac,
    containment: null,
    tokens: null,
    budget_share: null,
  };
}

describe('the ER plot', () => {
  it('draws one line per strategy and mode of the "all" rows, in budget order, agnostic dashed', () => {
    const rows = [
      row('hybrid', 2000, 'aware', 0.8),
      row('hybrid', 1000, 'aware', 0.7),
      row('hybrid', 1000, 'aware', 0.1, 'temporal'),
      row('flat', 1000, 'agnostic', 0.2),
      row('flat', 2000, 'agnostic', 0.4),
    ];
    const series = seriesOf(rows, 'er_frac', 'locomo: ');
    expect(series).toEqual([
      {
        label: 'locomo: hybrid, aware',
        points: [
          { budget: 1000, value: 0.7 },
          { budget: 2000, value: 0.8 },
        ],
      },
      {
        label: 'locomo: flat, agnostic',
        points: [
          { budget: 1000, value: 0.2 },
          { budget: 2000, value: 0.4 },
        ],
      },
    ]);
    const svg = renderPlot(series, { title: 'ER <by> budget', metric: 'ER_frac' });
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.match(/<polyline /g)).toHaveLength(2);
    expect(svg.match(/stroke-dasharray/g)).toHaveLength(2); // the agnostic line and its legend
    expect(svg).toContain('ER &lt;by&gt; budget');
    expect(svg).toContain('>locomo: hybrid, aware</text>');
  });

  it('keeps every point inside the drawing (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 100_000 }), { minLength: 1, maxLength: 6 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (budgets, value) => {
          const svg = renderPlot([{ label: 'x', points: budgets.map((budget) => ({ budget, value })) }], {
            title: 't',
            metric: 'm',
            width: 700,
            height: 400,
          });
          for (const match of svg.matchAll(/<circle cx="([\d.]+)" cy="([\d.]+)"/g)) {
            expect(Number(match[1])).toBeGreaterThanOrEqual(0);
            expect(Number(match[1])).toBeLessThanOrEqual(700);
            expect(Number(match[2])).toBeGreaterThanOrEqual(0);
            expect(Number(match[2])).toBeLessThanOrEqual(400);
          }
        },
      ),
    );
  });
});
