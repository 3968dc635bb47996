/**
 * SVG to PNG without a browser, for platforms that show attached images but not SVG (Slack,
 * Discord): resvg, a Rust renderer shipped as a prebuilt binary inside its npm package. Loaded on
 * first use so that commands that never draw do not pay for it.
 */
import { TsukaError } from '../../core/errors.js';

/** Rendered at twice the SVG's width so text stays sharp on high-density screens. */
const PNG_SCALE = 2;

export async function svgToPng(svg: string): Promise<Buffer> {
  try {
    const { Resvg } = await import('@resvg/resvg-js');
    const width = Number(/<svg[^>]*\swidth="(\d+)"/.exec(svg)?.[1] ?? 640);
    const rendered = new Resvg(svg, {
      fitTo: { mode: 'width', value: width * PNG_SCALE },
      font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' },
    }).render();
    return rendered.asPng();
  } catch (error) {
    throw new TsukaError('chart_render_failed', 'The chart could not be drawn as an image.', { cause: error });
  }
}
