/** The pictures: the stats chart and the plan graph, as SVG and as a PNG drawn without a browser. */
import { Resvg } from '@resvg/resvg-js';
import { describe, expect, it } from 'vitest';
import { planGraphSvg, planGraphText } from '../../../src/commands/charts/plan-graph.js';
import { statsChartSvg, statsChartText } from '../../../src/commands/charts/stats-chart.js';
import { svgToPng } from '../../../src/commands/charts/svg-to-png.js';
import type { PlanGroup } from '../../../src/core/workflows/goal/plan-parser.js';

const ROWS = [
  { agent: 'geordi', outputTokens: 1200, peakContextTokens: 8192, totalTokens: 9000, durationMs: 24_000 },
  { agent: 'worf', outputTokens: 300, peakContextTokens: 2048, totalTokens: 2500, durationMs: 6_000 },
];
const CHART = { title: 'Team dev_security — tokens and time per agent', contextWindow: 32_768 };

/** How many pixels of the rendered SVG have exactly this colour (bars are drawn in flat colours). */
function pixelsOf(svg: string, [r, g, b]: [number, number, number]): number {
  const pixels = new Resvg(svg).render().pixels;
  let found = 0;
  for (let index = 0; index < pixels.length; index += 4) if (pixels[index] === r && pixels[index + 1] === g && pixels[index + 2] === b) found++;
  return found;
}

describe('stats chart', () => {
  it('draws output tokens and time per agent to scale, and peak context against the window', () => {
    const svg = statsChartSvg(ROWS, CHART);
    expect(svg).toContain('>geordi<');
    expect(svg).toContain('>1,200 tok<');
    expect(svg).toContain('>24.0 s<');
    expect(svg).toContain('>8,192 (25%)<');
    expect(svg).toContain('peak context of 32,768');
    const widths = [...svg.matchAll(/<rect x="130" y="\d+" width="(\d+)" height="14" rx="2" fill="#4a3aff"\/>/g)].map((match) => Number(match[1]));
    // The legend swatch, then geordi (the longest bar) and worf at a quarter of it.
    expect(widths).toEqual([10, 380, 95]);
    // Rendered: the token bars (#4a3aff) cover about 4/5 and 1/5 of the bar area in the same proportion.
    expect(pixelsOf(svg, [0x4a, 0x3a, 0xff])).toBeGreaterThan((380 + 95) * 10);
  });

  it('says the same numbers in words, and escapes names', () => {
    expect(statsChartText(ROWS, CHART)).toBe(
      'Team dev_security — tokens and time per agent. geordi: 1,200 output tokens, 24.0 s, peak context 8,192 of 32,768 tokens (25%); worf: 300 output tokens, 6.0 s, peak context 2,048 of 32,768 tokens (6%).',
    );
    expect(statsChartSvg([{ ...ROWS[0]!, agent: '<script>' }], CHART)).toContain('&lt;script&gt;');
  });

  it('becomes a PNG twice the SVG width, drawn without a browser', async () => {
    const png = await svgToPng(statsChartSvg(ROWS, CHART));
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.readUInt32BE(16)).toBe(1280);
    expect(png.readUInt32BE(20)).toBeGreaterThan(200);
    expect(png.length).toBeGreaterThan(5_000);
  });
});

describe('plan graph', () => {
  const step = (number: number, agent: string, task: string) => ({ number, agent, task, line: number });
  const groups: PlanGroup[] = [
    { parallel: false, steps: [step(1, 'geordi', 'Write the endpoint')] },
    { parallel: true, steps: [step(2, 'worf', 'Audit it'), step(3, 'data', 'Write tests')] },
    { parallel: false, steps: [step(4, 'pike', 'Sum up')] },
  ];

  it('shows parallel steps stacked in one column, with an arrow from each step to each next one', () => {
    const svg = planGraphSvg(groups, 'Plan');
    expect(svg.match(/<rect x="\d+" y="\d+" width="176"/g)).toHaveLength(4);
    expect(svg.match(/<line /g)).toHaveLength(4);
    expect(svg.match(/in parallel/g)).toHaveLength(1);
    const columnOf = (name: string) => Number(new RegExp(`<text x="(\\d+)"[^>]*>\\d\\. @${name}<`).exec(svg)?.[1]);
    expect(columnOf('worf')).toBe(columnOf('data'));
    expect(columnOf('geordi')).toBeLessThan(columnOf('worf'));
    expect(columnOf('worf')).toBeLessThan(columnOf('pike'));
  });

  it('says the same in words', () => {
    expect(planGraphText(groups)).toBe('Plan: step 1 (@geordi) → steps 2, 3 in parallel (@worf, @data) → step 4 (@pike).');
  });
});

describe('chart text is legible at 1× (issue 24: it was 10 px, ≈ 7 px once shrunk into the thread pane)', () => {
  const step = (number: number, agent: string, task: string) => ({ number, agent, task, line: number });
  const charts = {
    'stats chart': statsChartSvg(ROWS, CHART),
    'stats chart without a context window': statsChartSvg(ROWS, { title: 'Goal' }),
    'plan graph': planGraphSvg(
      [
        { parallel: true, steps: [step(1, 'worf', 'Audit the endpoint for injection'), step(2, 'data', 'Write tests')] },
        { parallel: false, steps: [step(3, 'pike', 'Sum up')] },
      ],
      'Plan: a title long enough to need the whole width of the picture',
    ),
  };

  it.each(Object.entries(charts))('%s: every text at least 11 px, in a picture drawn at its own size (1 SVG unit = 1 px)', (_name, svg) => {
    const texts = [...svg.matchAll(/<text\b[^>]*>/g)].map((match) => match[0]);
    expect(texts.length).toBeGreaterThan(3);
    const sizes = texts.map((text) => Number(/font-size="(\d+(?:\.\d+)?)"/.exec(text)?.[1] ?? Number.NaN));
    expect(sizes.filter((size) => !(size >= 11))).toEqual([]);
    const root = /<svg[^>]*\swidth="(\d+)"[^>]*viewBox="0 0 (\d+) \d+"/.exec(svg)!;
    expect(root[1]).toBe(root[2]);
  });

  it('the PNG for Slack and Discord keeps them at least 11 px: drawn at twice the width, text at twice the size', async () => {
    const svg = charts['stats chart'];
    const png = await svgToPng(svg);
    const width = Number(/<svg[^>]*\swidth="(\d+)"/.exec(svg)![1]);
    expect(png.readUInt32BE(16)).toBe(width * 2);
  });
});
