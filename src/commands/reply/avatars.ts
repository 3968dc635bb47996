/**
 * A face per character: a deterministic picture drawn from the character's name — a background
 * colour and a mirrored 5×5 pattern both taken from a hash of the name, and the initial of the
 * name it answers to — rendered to PNG with resvg (the library of the charts). The pattern needs
 * no font, so two characters stay apart even on a host without one. The HTTP server serves the
 * pictures at `/avatars/<name>.png`; Discord (webhook `avatar_url`) and Slack (`icon_url`) fetch
 * them at `TSUKA_PUBLIC_URL/avatars/<name>.png`. A character whose `avatar` is an https URL keeps it.
 */
import type { Character, Roster } from '../../core/data/types.js';
import { svgToPng } from '../charts/svg-to-png.js';

/** Size of the SVG; the PNG is drawn at twice this (256 px, sharp in Discord's and Slack's lists). */
const SIZE = 128;
const GRID = 5;

/**
 * Pictures for the two faces that are not characters (the playground shows them where it showed
 * 🤖 and 🧑, which are empty boxes on a system without an emoji font). A hyphen keeps their names
 * apart from every character's (file names are `[a-z][a-z0-9_]*`).
 */
export const BOT_PICTURE = { name: 'tsuka-bot', aiName: 'TSUKA' } as const;
export const PERSON_PICTURE = { name: 'you-person', aiName: 'You' } as const;

/** Where this host serves a character's picture. */
export const avatarPath = (name: string): string => `/avatars/${encodeURIComponent(name)}.png`;

const isHttpUrl = (value: string | undefined): value is string => value !== undefined && /^https?:\/\/\S+$/.test(value);

/**
 * The picture a platform fetches for a character: its own URL when its `avatar` is one, else the
 * generated picture under the public URL; undefined without a public URL (the platform's default
 * picture, or the emoji, is shown instead).
 */
export function avatarUrlOf(character: Pick<Character, 'name' | 'avatar'>, publicUrl: string | undefined): string | undefined {
  if (isHttpUrl(character.avatar)) return character.avatar;
  return publicUrl ? `${publicUrl.replace(/\/+$/, '')}${avatarPath(character.name)}` : undefined;
}

/** FNV-1a, 32 bits: small, stable across versions and processes. */
function hash(text: string, seed = 0x811c9dc5): number {
  let value = seed >>> 0;
  for (const char of text) {
    value ^= char.codePointAt(0)!;
    value = Math.imul(value, 0x01000193) >>> 0;
  }
  return value;
}

/** `#rrggbb` of an HSL colour (resvg reads hex everywhere). */
function hex(hue: number, saturation: number, lightness: number): string {
  const s = saturation / 100;
  const l = lightness / 100;
  const k = (n: number) => (n + hue / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const channel = (n: number) => Math.round(255 * (l - a * Math.max(-1, Math.min(k(n) - 3, Math.min(9 - k(n), 1)))));
  return `#${[channel(0), channel(8), channel(4)].map((value) => value.toString(16).padStart(2, '0')).join('')}`;
}

const escapeXml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The character's picture as SVG: the same name always gives the same picture. */
export function avatarSvg(character: Pick<Character, 'name' | 'aiName'>): string {
  const seed = hash(character.name);
  const background = hex(seed % 360, 55, 40);
  const pattern = hash(character.name, seed);
  const cell = SIZE / (GRID + 1);
  const offset = cell / 2;
  const cells: string[] = [];
  // Three columns of bits, mirrored: a symmetric pattern reads as a face rather than noise.
  for (let row = 0; row < GRID; row++) {
    for (let column = 0; column < Math.ceil(GRID / 2); column++) {
      if (((pattern >>> (row * 3 + column)) & 1) === 0) continue;
      for (const x of new Set([column, GRID - 1 - column]))
        cells.push(`<rect x="${offset + x * cell}" y="${offset + row * cell}" width="${cell}" height="${cell}" fill="#ffffff" fill-opacity="0.22"/>`);
    }
  }
  const initial = escapeXml([...character.aiName.trim()][0]?.toUpperCase() ?? '?');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}" viewBox="0 0 ${SIZE} ${SIZE}">`,
    `<rect width="${SIZE}" height="${SIZE}" rx="${SIZE / 5}" fill="${background}"/>`,
    ...cells,
    `<text x="${SIZE / 2}" y="${SIZE / 2 + 22}" text-anchor="middle" font-family="DejaVu Sans, sans-serif" font-weight="bold" font-size="64" fill="#ffffff">${initial}</text>`,
    '</svg>',
  ].join('');
}

/** PNGs of the roster's characters, drawn once each on first request. */
export interface AvatarImages {
  png(character: Pick<Character, 'name' | 'aiName'>): Promise<Buffer>;
}

export function createAvatarImages(): AvatarImages {
  const drawn = new Map<string, Promise<Buffer>>();
  return {
    png(character) {
      let image = drawn.get(character.name);
      if (!image) {
        image = svgToPng(avatarSvg(character));
        // A failed drawing is tried again on the next request.
        image.catch(() => drawn.delete(character.name));
        drawn.set(character.name, image);
      }
      return image;
    },
  };
}

/** A character's picture as bytes: the file its data names (read at load), else the generated PNG; undefined for a name not in the roster. */
export type CharacterPictures = (character: string) => Promise<{ bytes: Buffer; contentType: string } | undefined>;

export function characterPictures(roster: Pick<Roster, 'characters' | 'avatarImages'>, images: AvatarImages = createAvatarImages()): CharacterPictures {
  return async (name) => {
    const own = roster.avatarImages?.get(name);
    if (own) return { bytes: own.bytes, contentType: own.contentType };
    const character = roster.characters.get(name);
    return character ? { bytes: await images.png(character), contentType: 'image/png' } : undefined;
  };
}
