/** Small persistent settings of the command layer: the global effort pin and per-channel default characters. */
import type { Store } from '../../core/store/open-store.js';

const NAMESPACE = 'settings';

export async function readEffortPin(store: Store): Promise<string | undefined> {
  return store.namespace<string>(NAMESPACE).get('effort-pin');
}

export async function writeEffortPin(store: Store, effort: string | undefined): Promise<void> {
  const namespace = store.namespace<string>(NAMESPACE);
  if (effort === undefined || effort === 'auto') await namespace.delete('effort-pin');
  else await namespace.set('effort-pin', effort);
}

export async function readChannelDefault(store: Store, channel: string): Promise<string | undefined> {
  return store.namespace<string>(NAMESPACE).get(`channel-default:${channel}`);
}

export async function writeChannelDefault(store: Store, channel: string, character: string | undefined): Promise<void> {
  const namespace = store.namespace<string>(NAMESPACE);
  if (character === undefined) await namespace.delete(`channel-default:${channel}`);
  else await namespace.set(`channel-default:${channel}`, character);
}
