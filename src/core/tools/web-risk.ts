import type { CallRisk } from './tool.js';
import { isPrivateUrl, parseWebUrl } from './private-address.js';

/** The reason the SSRF guard gives; approval prompts show it. */
export const PRIVATE_ADDRESS_REASON = 'reaches a private or local address';

/**
 * Risk of a web call by its URL: DANGEROUS for private/local targets and for anything that is
 * not an http(s) URL (fail closed), otherwise `publicLevel`.
 */
export function classifyWebUrl(raw: string, publicLevel: CallRisk): CallRisk {
  const url = parseWebUrl(raw);
  if (!url) return { level: 'DANGEROUS', reason: 'not a valid http(s) URL' };
  if (isPrivateUrl(url)) return { level: 'DANGEROUS', reason: `${PRIVATE_ADDRESS_REASON} (${url.host})` };
  return publicLevel;
}
